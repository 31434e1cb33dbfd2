/**
 * Unknown keys in what a host passes (run options, connect settings, agent
 * data): a misspelled key would otherwise be ignored without a word. It is
 * invalid_input naming the key and the closest known one; `strict: false`
 * (forward compatibility: a newer host's option on an older library) turns it
 * into a warning instead. Keys are user text: bounded and escaped; values are never quoted.
 */
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { outsideText } from '../outside-text.js';
import { closestNames, nameDistance } from '../tool-names.js';

/** How much of an unknown key a message quotes. */
const QUOTED = 64;
/** How many unknown keys of one object get a "did you mean" (an object may hold thousands). */
const SUGGESTED_KEYS = 8;

/** An unknown key of `value` and the closest of `known`: the message of its error or warning, and its details. */
export interface UnknownKey {
  readonly key: string;
  readonly closest?: string;
  readonly message: string;
}

/** The own keys of `value` that are not in `known` (none when `value` is not a plain object), each with its closest known key. */
export function unknownKeys(value: unknown, known: readonly string[], where: string): UnknownKey[] {
  if (!isPlainObject(value)) return [];
  const allowed = new Set(known);
  return Object.keys(value)
    .filter((key) => !allowed.has(key))
    .map((key, i) => {
      // The closest key costs a comparison with every known one: only the first few unknown keys get one.
      const closest = i < SUGGESTED_KEYS ? closeEnough(key, closestNames(key, known, 1)[0]) : undefined;
      const named = JSON.stringify(outsideText(key, { max: QUOTED }));
      const hint = closest === undefined ? '' : `; did you mean "${closest}"?`;
      return { key, ...(closest === undefined ? {} : { closest }), message: `${where}: unknown key ${named}${hint}` };
    });
}

// A suggestion only when it looks like a misspelling (a third of the key's letters, at least two, differ): "__proto__" is no "role".
function closeEnough(key: string, closest: string | undefined): string | undefined {
  if (closest === undefined) return undefined;
  const contains = closest.toLowerCase().includes(key.toLowerCase()) && key.length > 1;
  return contains || nameDistance(key, closest) <= Math.max(2, Math.floor(key.length / 3)) ? closest : undefined;
}

/**
 * Throws invalid_input (`details: { key, closest? }`) for the first unknown key of `value`; with `strict: false`,
 * returns one warning per unknown key instead ("… ignored").
 */
export function checkKnownKeys(value: unknown, known: readonly string[], where: string, strict: boolean): string[] {
  const found = unknownKeys(value, known, where);
  const first = found[0];
  if (first === undefined) return [];
  if (strict) {
    throw new AgtError('invalid_input', `${first.message} (give strict: false to accept keys this version does not know)`, {
      details: { key: first.key, ...(first.closest === undefined ? {} : { closest: first.closest }) },
    });
  }
  return found.map((u) => `${u.message} (ignored: strict is false)`);
}
