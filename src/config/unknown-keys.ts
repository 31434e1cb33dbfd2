/**
 * Unknown keys in what a host passes (run options, connect settings, agent
 * data), nested option objects (`timeouts`, `limits` …) included: a misspelled
 * key would otherwise be ignored without a word. It is invalid_input naming
 * the key (its path: `timeouts.callMS`) and the closest known one; `strict:
 * false` (forward compatibility: a newer host's option on an older library)
 * turns it into a warning instead. A known key an options object inherits
 * (`Object.create(base)`) is refused either way: options are read from own
 * keys only. Keys are user text: bounded and escaped; values are never quoted.
 */
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { outsideText } from '../outside-text.js';
import { closestNames, nameDistance } from '../tool-names.js';

/** How much of an unknown key a message quotes. */
const QUOTED = 64;
/** How many unknown keys of one object get a "did you mean" (an object may hold thousands). */
const SUGGESTED_KEYS = 8;
/** How many prototypes of an options object are looked through for inherited options. */
const PROTOTYPES = 16;
/** What a refusal offers by default. */
const STRICT_ESCAPE = 'give strict: false to accept keys this version does not know';

/** The keys an options object knows, and the known keys of the option objects it holds (`timeouts`, `limits` …). */
export interface KnownKeys {
  readonly keys: readonly string[];
  /** Per key whose value is an options object, or a list of them (`delegates`): that object's known keys. */
  readonly nested?: Readonly<Record<string, KnownKeys>>;
  /** True for an object never spread but read key by key (a delegate tool, whose `handler` may be a class method): inherited keys count. */
  readonly readsInherited?: boolean;
}

/** An unknown key of `value` and the closest of `known`: the message of its error or warning, and its details. */
export interface UnknownKey {
  /** The key's path from the options object (`timeouts.callMS`), escaped and bounded. */
  readonly key: string;
  /** The closest known key, by the same path (`timeouts.callMs`). */
  readonly closest?: string;
  readonly message: string;
}

interface Found {
  readonly unknown: UnknownKey[];
  readonly inherited: string[];
}

/** The own keys of `value` (and of its nested option objects) that are not known, each with its closest known key. */
export function unknownKeys(value: unknown, known: readonly string[] | KnownKeys, where: string): UnknownKey[] {
  const found: Found = { unknown: [], inherited: [] };
  walk(value, knownOf(known), '', where, found);
  return found.unknown;
}

function knownOf(known: readonly string[] | KnownKeys): KnownKeys {
  return Array.isArray(known) ? { keys: known as readonly string[] } : (known as KnownKeys);
}

function walk(value: unknown, known: KnownKeys, path: string, where: string, found: Found): void {
  if (!isPlainObject(value)) return;
  const allowed = new Set(known.keys);
  if (known.readsInherited !== true) for (const key of inheritedOptions(value, allowed)) found.inherited.push(`${path}${key}`);
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) {
      found.unknown.push(unknownKey(key, path, known.keys, where, found.unknown.length < SUGGESTED_KEYS));
      continue;
    }
    const inner = known.nested !== undefined && Object.hasOwn(known.nested, key) ? known.nested[key] : undefined;
    if (inner === undefined) continue;
    const nested = value[key];
    if (Array.isArray(nested)) nested.forEach((item, i) => walk(item, inner, `${path}${key}[${i}].`, where, found));
    else walk(nested, inner, `${path}${key}.`, where, found);
  }
}

function unknownKey(key: string, path: string, known: readonly string[], where: string, suggest: boolean): UnknownKey {
  // The closest key costs a comparison with every known one: only the first few unknown keys get one.
  const near = suggest ? closeEnough(key, closestNames(key, known, 1)[0]) : undefined;
  const named = `${path}${outsideText(key, { max: QUOTED })}`; // escaped once, as every message quotes outside text
  const closest = near === undefined ? undefined : `${path}${near}`;
  const hint = closest === undefined ? '' : `; did you mean "${closest}"?`;
  return { key: named, ...(closest === undefined ? {} : { closest }), message: `${where}: unknown key "${named}"${hint}` };
}

// The known keys `value` inherits (Object.create(base), a class's accessor): a spread or an own-key walk would drop them.
function inheritedOptions(value: object, allowed: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let proto: unknown = Object.getPrototypeOf(value);
  for (let depth = 0; depth < PROTOTYPES && proto !== null && proto !== Object.prototype; depth++) {
    for (const key of Object.getOwnPropertyNames(proto)) if (allowed.has(key) && !Object.hasOwn(value, key)) out.push(key);
    proto = Object.getPrototypeOf(proto);
  }
  return out;
}

// A suggestion only when it looks like a misspelling (a third of the key's letters, at least two, differ): "__proto__" is no "role".
function closeEnough(key: string, closest: string | undefined): string | undefined {
  if (closest === undefined) return undefined;
  const contains = closest.toLowerCase().includes(key.toLowerCase()) && key.length > 1;
  return contains || nameDistance(key, closest) <= Math.max(2, Math.floor(Math.min(key.length, 64) / 3)) ? closest : undefined;
}

/**
 * Throws invalid_input (`details: { key, closest? }`, the key's path: `timeouts.callMS`) for the first unknown key of
 * `value` or of a nested option object; with `strict: false`, returns one warning per unknown key instead ("…
 * ignored"). An inherited known key is invalid_input (`reason: inherited_key`) either way. `escape` is what the
 * refusal offers (default: strict: false).
 */
export function checkKnownKeys(
  value: unknown,
  known: readonly string[] | KnownKeys,
  where: string,
  strict: boolean,
  escape: string = STRICT_ESCAPE,
): string[] {
  const found: Found = { unknown: [], inherited: [] };
  walk(value, knownOf(known), '', where, found);
  const inherited = found.inherited[0];
  if (inherited !== undefined)
    throw new AgtError(
      'invalid_input',
      `${where}: "${inherited}" is inherited (from the object's prototype), and options are read from own keys only; give it as an own key, e.g. { ...base, ...options }`,
      { details: { key: inherited, reason: 'inherited_key' } },
    );
  const first = found.unknown[0];
  if (first === undefined) return [];
  if (strict) {
    throw new AgtError('invalid_input', `${first.message} (${escape})`, {
      details: { key: first.key, ...(first.closest === undefined ? {} : { closest: first.closest }) },
    });
  }
  return found.unknown.map((u) => `${u.message} (ignored: strict is false)`);
}
