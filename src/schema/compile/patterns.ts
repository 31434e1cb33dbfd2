/**
 * `pattern` and `patternProperties` without ReDoS. A tool schema is server
 * data: `"^(a+)+$"` against a 30-character argument would block the event loop
 * for seconds in a backtracking engine, and no timeout can fire meanwhile.
 *
 * - A `pattern` that the RE2 syntax can express (nearly all real ones) runs in
 *   re2js, a linear-time engine, with ECMA-262 semantics kept by translation:
 *   `.` excludes the four line terminators, `\s` is ECMA's white space set,
 *   `\uXXXX` and `\u{X}` escapes become RE2's `\x{X}`.
 * - A pattern RE2 cannot express (lookarounds, back references, long Unicode
 *   property names) and every `patternProperties` name (cfworker matches those
 *   itself) run natively, and are accepted only when their shape cannot
 *   backtrack badly: no quantified group and at most one unbounded quantifier.
 *   Anything else fails to load as `unsafe_pattern` (S7: that tool alone).
 *
 * cfworker runs `pattern` with a native RegExp that cannot be swapped, so a
 * translated pattern is handed to it as a private format (`agt-pattern:…`),
 * answered by a lookup on its format table's prototype (bounded cache, no
 * table growth); issues map back to the `pattern` keyword (issues.ts).
 */
import { format as cfFormats } from '@cfworker/json-schema';
import { RE2JS } from 're2js';

/** Prefix of the private format that carries a translated pattern. */
export const PATTERN_FORMAT = 'agt-pattern:';

// ECMA-262 WhiteSpace and LineTerminator code points (what `\s` matches), in RE2 syntax.
const ECMA_SPACE = '\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
const ECMA_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/** `source` (ECMA-262, Unicode mode) in RE2 syntax with the same meaning, or undefined when RE2 cannot say it. */
export function toRe2(source: string): string | undefined {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '\\') {
      const next = source[i + 1];
      if (next === undefined) return undefined;
      if (next === 's') out += inClass ? ECMA_SPACE : `[${ECMA_SPACE}]`;
      else if (next === 'S') {
        if (inClass) return undefined;
        out += `[^${ECMA_SPACE}]`;
      } else if (next === 'u') {
        const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(source.slice(i + 2));
        const plain = /^[0-9a-fA-F]{4}/.exec(source.slice(i + 2));
        if (braced) {
          out += `\\x{${braced[1]}}`;
          i += braced[0].length;
        } else if (plain) {
          out += `\\x{${plain[0]}}`;
          i += 4;
        } else return undefined;
      } else if (next === '0' && !/[0-9]/.test(source[i + 2] ?? '')) out += '\\x{0}';
      else if (/[1-9ck]/.test(next))
        return undefined; // back references, control letters
      else out += `\\${next}`;
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      else if (c === '[') return undefined; // ECMA takes a nested "[" literally; RE2 reads [:classes:]
      out += c;
      continue;
    }
    if (c === '[') {
      if (source[i + 1] === ']' || source.startsWith('[^]', i)) return undefined; // empty and "anything" classes
      inClass = true;
      out += c;
      if (source[i + 1] === '^') {
        out += '^';
        i += 1;
      }
      continue;
    }
    if (c === '(' && source[i + 1] === '?' && source[i + 2] !== ':' && !/^\(\?<[A-Za-z]/.test(source.slice(i))) return undefined; // lookarounds
    out += c === '.' ? ECMA_DOT : c;
  }
  try {
    RE2JS.compile(out);
    return out;
  } catch {
    return undefined;
  }
}

/** True when a natively run pattern cannot backtrack badly: no quantified group, at most one unbounded quantifier. */
export function isSimplePattern(source: string): boolean {
  let unbounded = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ')' && /^[*+?{]/.test(source.slice(i + 1))) return false;
    else if (c === '*' || c === '+') unbounded += 1;
    else if (c === '{' && /^\{\d+,\}/.test(source.slice(i))) unbounded += 1;
  }
  return unbounded <= 1;
}

// The server's own pattern of each schema node whose pattern runs as a private format (for issue messages).
const ORIGINALS = new WeakMap<object, string>();

/** Records that `node` (a private schema copy) carries `source` as a private format. */
export function rememberPattern(node: object, source: string): void {
  ORIGINALS.set(node, source);
}

/** The server's pattern carried by `node`, if it carries one. */
export function originalPattern(node: object): string | undefined {
  return ORIGINALS.get(node);
}

const MATCHERS = new Map<string, (text: string) => boolean>();
// A cache's size, not a bound a caller meets: past it the cache starts again (a pattern is compiled anew).
const MAX_MATCHERS = 2048;

function matcherFor(key: string): ((text: string) => boolean) | undefined {
  let matcher = MATCHERS.get(key);
  if (matcher !== undefined) return matcher;
  let re: ReturnType<typeof RE2JS.compile>;
  try {
    re = RE2JS.compile(key.slice(PATTERN_FORMAT.length));
  } catch {
    return undefined;
  }
  matcher = (text: string) => re.test(text);
  if (MATCHERS.size >= MAX_MATCHERS) MATCHERS.clear(); // bounded: a host that meets many schemas recompiles now and then
  MATCHERS.set(key, matcher);
  return matcher;
}

// The format table's own keys stay cfworker's; `agt-pattern:` keys are answered here, compiled once (bounded cache).
const table = cfFormats as Record<string, unknown>;
if (!(Object.getPrototypeOf(table) as { __agtPatterns?: true } | null)?.__agtPatterns) {
  const base = Object.getPrototypeOf(table) as object | null;
  Object.setPrototypeOf(
    table,
    new Proxy(Object.create(base), {
      get(target, key, receiver) {
        if (key === '__agtPatterns') return true;
        if (typeof key === 'string' && key.startsWith(PATTERN_FORMAT)) return matcherFor(key);
        return Reflect.get(target, key, receiver);
      },
    }),
  );
}
