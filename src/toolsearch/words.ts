/**
 * The words of tool text for search: names split on `_`, `-`, `.`, `/` and
 * camel case, lower-cased, stop words dropped, and a light suffix stemmer so
 * that "files", "reading" and "created" meet "file", "read" and "create".
 * Bounded and linear: no regex that can backtrack on server text.
 */
import { MAX_TOOL_FIELD_CHARS } from '../bounds.js';

const STOP = new Set(
  'a an the of to for and or in on with by from is it this that be as at are your you its if all any into via use used using can will'.split(
    ' ',
  ),
);

/** The search words of `text`, stemmed, in order. */
export function words(text: string): string[] {
  const n = Math.min(text.length, MAX_TOOL_FIELD_CHARS);
  const out: string[] = [];
  let start = -1;
  let previousLowerOrDigit = false;
  // One pass over char codes: a word is a run of letters and digits (any script); a capital after a
  // lower-case letter or digit starts a new one (camelCase). No regex, no intermediate strings.
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    const upper = c >= 65 && c <= 90;
    const lowerOrDigit = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c >= 0xc0;
    if (start >= 0 && (!(upper || lowerOrDigit) || (upper && previousLowerOrDigit))) {
      add(out, text.slice(start, i));
      start = -1;
    }
    if (start < 0 && (upper || lowerOrDigit)) start = i;
    previousLowerOrDigit = lowerOrDigit;
  }
  return out;
}

function add(out: string[], word: string): void {
  const lower = word.toLowerCase();
  if (!STOP.has(lower)) out.push(stemmed(lower));
}

// Stems seen before (tool text repeats its words); bounded, so hostile text cannot grow it without end.
const STEMS = new Map<string, string>();
function stemmed(word: string): string {
  let s = STEMS.get(word);
  if (s === undefined) {
    if (STEMS.size >= 20_000) STEMS.clear();
    STEMS.set(word, (s = stem(word)));
  }
  return s;
}

/** A light English suffix stemmer: plural, -ing, -ed, -ion, -ly, and a final e; short words stay as they are. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  for (const suffix of ['ing', 'ed', 'ion', 'ly', 'er']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      if (w.length > 3 && w[w.length - 1] === w[w.length - 2] && !'lsz'.includes(w[w.length - 1] as string)) w = w.slice(0, -1); // running → run
      break;
    }
  }
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

// Words a model uses for the same action or thing, by stem: a query word also finds its group at a lower weight.
const GROUPS = [
  'read get fetch retriev show view open load see look',
  'list enumerat brows ls',
  'creat add new make insert',
  'delet remov eras drop rm destroy',
  'updat edit modify chang set patch replac',
  'search find query lookup grep locat',
  'run execut exec launch invok call start',
  'fil document doc',
  'directory folder dir',
  'mov renam mv',
  'writ sav stor',
  'issu ticket bug',
  'repo repository',
  'web url page site browser',
  'imag pictur photo screenshot',
  'messag chat post',
  'sum add total',
];

const SYNONYMS: Map<string, string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const group of GROUPS) {
    const stems = group.split(' ').map(stem);
    for (const s of stems) map.set(s, [...(map.get(s) ?? []), ...stems.filter((other) => other !== s)]);
  }
  return map;
})();

/** The other stems of `word`'s group (none for most words). */
export function synonyms(word: string): readonly string[] {
  return SYNONYMS.get(word) ?? [];
}
