/**
 * Text from outside — a server, a client, a file, a store — made fit for a
 * terminal, a prompt, a log or a one-line field. The one function every such
 * place uses (docs/security.md, "Outside text"): the control characters (U+0000–U+001F, DEL, U+0080–U+009F)
 * (a terminal would obey them: ESC, CSI U+009B, BEL, NEL U+0085), the bidi
 * controls (text shown in another order than it is read, "Trojan Source"), half
 * a surrogate pair (no terminal shows it, a provider's JSON refuses it) and, for
 * one line, every line break (a server's words never start a line of their
 * own), escaped as `\xNN` / `\uNNNN`; the length bounded in code points.
 * `outsideJson` is the same for `--json`: exact JSON, those characters `\uXXXX`.
 */

/** How `outsideText` shapes a text. */
export interface OutsideTextOptions {
  /** Keep line breaks (`\n`) and tabs: a block of text (a tool's output, a stderr tail). Default: one line, every break escaped. */
  readonly multiline?: boolean;
  /** The most characters (code points) kept; past it the text is cut and ends with `…`. Default: no bound. */
  readonly max?: number;
}

// U+0000–U+001F (but newline and tab in a block), DEL, U+0080–U+009F, the bidi controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI), and the
// Unicode line and paragraph separators (a line break in most renderers).
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
// Half a surrogate pair: no terminal shows it, and a model's JSON request cannot carry it (a provider refuses it).
const LONE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const ONE_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI}]|${LONE}`, 'g');
const BLOCK = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI}]|${LONE}`, 'g');
const UNSAFE = new RegExp(ONE_LINE.source); // no `g`: a test keeps no lastIndex
// What JSON.stringify leaves raw in a string (it escapes U+0000–U+001F and lone surrogates itself).
const JSON_RAW = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${BIDI}]`, 'g');
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escaped(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/** Cut to at most `max` code points (never halving a surrogate pair), ending with `…` when cut. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  // At most 2 code units a code point: look no further than 2 × max units (a megabyte of text costs no more than `max`).
  const points = Array.from(text.slice(0, max * 2 + 1));
  return points.length <= max ? points.join('') : `${points.slice(0, max).join('')}…`;
}

// A value that is not a string (a hostile answer's number where a name was due): its plain form, never its toString.
function primitive(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return value === undefined || value === null ? '' : `[${typeof value}]`;
}

/** Outside text (a server's, a client's, a file's, a store's) fit for a terminal, prompt, log or one-line field. */
export function outsideText(text: unknown, options: OutsideTextOptions = {}): string {
  const raw = typeof text === 'string' ? text : primitive(text);
  const max = options.max;
  const cut = max !== undefined && Number.isFinite(max) && max >= 0 ? bounded(raw, Math.floor(max)) : raw;
  return cut.replace(options.multiline === true ? BLOCK : ONE_LINE, escaped);
}

/** A one-line template: every value put in goes through `outsideText` (one line), the template's own text is kept. */
export function oneLine(strings: TemplateStringsArray, ...values: readonly unknown[]): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i += 1) out += outsideText(values[i]) + (strings[i + 1] ?? '');
  return out;
}

// JSON.stringify leaves DEL, U+0080–U+009F, the bidi controls and the line separators raw, and a terminal obeys them.
/** A value as JSON fit for a terminal (`--json`): exact (it parses back to the same value), every such character `\uXXXX`. */
export function outsideJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) as string | undefined;
  return (json ?? 'null').replace(JSON_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** True when `text` holds a character `outsideText` escapes on one line (a control, a bidi control, a line break, half a surrogate pair). */
export function needsEscape(text: string): boolean {
  return UNSAFE.test(text);
}
