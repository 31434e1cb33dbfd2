// The links of a markdown page, for `npm run check:pack` (scripts/check-pack.mjs): which files of the package a
// shipped page links to. Pure functions (text in, names out), tested by test/package/pack-links.test.ts.

/**
 * The page without what holds no link: fenced code (``` and ~~~), indented code (4 spaces or a tab after a blank
 * line, outside a list), HTML comments and code spans (`handlers[name](args)` is code). Removed lines stay as
 * empty lines.
 */
export function proseOf(text) {
  const out = [];
  let fence; // the opening fence while inside one: its character and length
  let blank = true; // the line before was blank (or the page starts)
  let list = false; // inside a list item, whose indented lines are its content, not code
  for (const line of text.split(/\r?\n/)) {
    if (fence !== undefined) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) fence = undefined;
      out.push('');
      continue;
    }
    const open = /^(\s*)(`{3,}|~{3,})/.exec(line);
    if (open && (open[1].length <= 3 || list) && !(open[2][0] === '`' && line.slice(open[0].length).includes('`'))) {
      fence = open[2];
      out.push('');
      blank = true; // after the closing fence, indented code may start at once
      continue;
    }
    if (line.trim() === '') {
      out.push('');
      blank = true;
      continue;
    }
    const indented = /^( {4}|\t)/.test(line);
    if (indented && blank && !list) {
      out.push(''); // an indented code block: it goes on while lines stay indented (or blank)
      continue;
    }
    if (/^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)/.test(line)) list = true;
    else if (!indented && blank) list = false; // a paragraph after a blank line, not indented: the list has ended
    blank = /^ {0,3}#{1,6}(\s|$)/.test(line); // indented code may follow a heading at once (not a paragraph line)
    out.push(line);
  }
  const prose = out.join('\n').replace(/<!--[\s\S]*?-->/g, blankOut);
  return prose
    .split(/(\n[ \t]*\n)/)
    .map(withoutCodeSpans)
    .join('');
}

/** The text with every character but its line breaks taken out. */
const blankOut = (s) => s.replace(/[^\n]/g, '');

/**
 * A paragraph without its code spans: a run of backticks opens one, the next run of the same length closes it
 * (a run with no match is plain text).
 */
function withoutCodeSpans(paragraph) {
  let out = '';
  let i = 0;
  for (;;) {
    const open = /`+/g;
    open.lastIndex = i;
    const o = open.exec(paragraph);
    if (o === null) return out + paragraph.slice(i);
    const close = new RegExp(`(?<!\`)${o[0]}(?!\`)`, 'g');
    close.lastIndex = o.index + o[0].length;
    const c = close.exec(paragraph);
    if (c === null) {
      out += paragraph.slice(i, o.index + o[0].length);
      i = o.index + o[0].length;
      continue;
    }
    out += paragraph.slice(i, o.index) + blankOut(paragraph.slice(o.index, c.index + c[0].length));
    i = c.index + c[0].length;
  }
}

/** A destination with its backslash escapes (`\(`) taken out, as CommonMark reads it. */
const unescape = (s) => s.replace(/\\([!-/:-@[-`{-~])/g, '$1');

/**
 * The link destination that starts at `text[at]` (after `](`, or after the `:` of a reference definition): `<…>`
 * (spaces allowed) or a run with no space whose parentheses balance (`x_(y).md`). Undefined when there is none.
 */
function destinationAt(text, at) {
  let i = at;
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] === '<') {
    let j = i + 1;
    for (; j < text.length && text[j] !== '>'; j++) {
      if (text[j] === '\n' || text[j] === '<') return undefined;
      if (text[j] === '\\') j++;
    }
    return j < text.length ? { target: unescape(text.slice(i + 1, j)), end: j + 1 } : undefined;
  }
  let depth = 0;
  let j = i;
  for (; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '(') depth++;
    else if (c === ')') {
      if (depth === 0) break;
      depth--;
    } else if (/\s/.test(c)) break;
  }
  if (j === i || depth !== 0) return undefined;
  return { target: unescape(text.slice(i, j)), end: j };
}

/** HTML entities an attribute may hold in a URL. */
const entities = (s) =>
  s.replace(/&(amp|quot|apos|lt|gt|#39|#x27);/g, (_, e) => ({ amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' })[e] ?? "'");

/**
 * Every link destination of a markdown page, outside code, as written: inline links and images (`[x](dest "title")`,
 * `[x](<a b.md>)`), reference definitions (`[ref]: dest`, whether or not a link uses them) and the `href`/`src`
 * of HTML `<a>` and `<img>` tags.
 */
export function linkTargets(markdown) {
  const text = proseOf(markdown);
  const targets = [];
  for (const m of text.matchAll(/\]\(/g)) {
    const d = destinationAt(text, m.index + 2);
    if (d === undefined) continue;
    // Then an optional title and the closing parenthesis; with neither it is no link.
    const rest = text.slice(d.end);
    if (/^\s*(?:"[^"]*"|'[^']*'|\([^)]*\))?\s*\)/.test(rest)) targets.push(d.target);
  }
  for (const m of text.matchAll(/^ {0,3}\[(?:[^\]\\\n]|\\.)+\]:/gm)) {
    const d = destinationAt(text, m.index + m[0].length);
    if (d !== undefined) targets.push(d.target);
  }
  for (const m of text.matchAll(/<(?:a|img)\b[^>]*?\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi))
    targets.push(entities(m[1] ?? m[2] ?? m[3]));
  return targets;
}

/**
 * What a link destination of the page `page` (a path in the package, `docs/x.md`) points to: `{ name }`, the file
 * of the package (query and anchor taken off, percent-encoding decoded, relative to the page; `/x` from the package
 * root); `{ skip: true }` for a web link (any scheme: http:, https:, mailto:) or an anchor of the page itself;
 * `{ bad }` for one that names no file of the package (outside it, or a malformed percent-encoding such as `%zz`).
 */
export function resolveLink(page, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return { skip: true };
  const file = target.replace(/[?#][\s\S]*$/, '');
  if (file === '') return { skip: true };
  let decoded;
  try {
    decoded = decodeURIComponent(file);
  } catch {
    return { bad: `${target}: a malformed percent-encoding` };
  }
  const joined = decoded.startsWith('/') ? decoded.slice(1) : `${dirname(page)}${decoded}`;
  const name = normalize(joined);
  if (name === undefined) return { bad: `${target}: outside the package` };
  return { name };
}

/** The folder of a page, with its trailing slash (`docs/`), or '' at the root. */
const dirname = (page) => page.slice(0, page.lastIndexOf('/') + 1);

/** `a/./b/../c` as `a/c`; undefined when it climbs out of the root. A trailing slash stays. */
function normalize(name) {
  const parts = [];
  const segments = name.split('/');
  for (const [i, s] of segments.entries()) {
    if (s === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else if (s !== '.' && !(s === '' && i < segments.length - 1)) parts.push(s);
  }
  return parts.join('/');
}

/**
 * The problems of the links of one shipped page: each local link whose file `ships(name)` denies, or that is bad.
 * `ships` takes a package path (`docs/x.md`, or `docs/` for a folder).
 */
export function pageLinkProblems(page, markdown, ships) {
  const problems = [];
  for (const target of linkTargets(markdown)) {
    const r = resolveLink(page, target);
    if (r.skip || r.name === '') continue; // a web link, an anchor, the package's root
    if (r.bad !== undefined) problems.push(`${page} has a bad link ${JSON.stringify(r.bad)}`);
    else if (!ships(r.name)) problems.push(`${page} links to ${r.name}, which the package does not ship`);
  }
  return problems;
}
