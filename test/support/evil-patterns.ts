/** Classic evil regular expressions, each with an input of at most 10 KB that makes a backtracking engine explode (ReDoS tests and the hostile bench). */
export const EVIL_PATTERNS: readonly [pattern: string, input: string][] = [
  ['^(a+)+$', `${'a'.repeat(30)}!`],
  ['(a|a)*$', `${'a'.repeat(40)}!`],
  ['(a|aa)+$', `${'a'.repeat(60)}!`],
  ['^(\\w+\\s?)*$', `${'a'.repeat(40)}!`],
  ['(.*a){12}', 'a'.repeat(40)],
  ['^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$', `${'a'.repeat(40)}!`],
  ['x+x+y', 'x'.repeat(10_000)],
  ['^[a-z]+[a-z0-9]*$', `${'a'.repeat(10_000)}!`],
  ['\\s*$', `${' '.repeat(10_000)}x`],
  ['^(?=a)(a+)+$', `${'a'.repeat(30)}!`],
  ['(a+)+\\1', `${'a'.repeat(30)}!`],
];
