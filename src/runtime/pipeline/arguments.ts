/**
 * A call's arguments, read once (stage 1 reads them; stage 2 validates what
 * was read): a JSON string (as models send it) or an object, within the size
 * and depth limits. Nothing here recurses on the arguments before their depth
 * is known to be bounded.
 */
import { type JsonProblem, jsonProblem } from '../../json.js';
import type { RunLimits } from '../limits.js';

/** Which limits reading arguments obeys. */
export type ArgumentLimits = Pick<RunLimits, 'maxArgumentBytes' | 'maxArgumentDepth'>;

/** Arguments as read: the value, or why they cannot be used (`keyword` names the broken bound). */
export type ArgumentsRead = { ok: true; value: unknown } | { ok: false; keyword: 'maxLength' | 'maxDepth' | 'json'; message: string };

const PROBLEMS: Record<JsonProblem, (limits: ArgumentLimits) => { keyword: 'maxLength' | 'maxDepth' | 'json'; message: string }> = {
  too_deep: (l) => ({
    keyword: 'maxDepth',
    message: `the arguments nest deeper than ${l.maxArgumentDepth} levels; send flatter arguments`,
  }),
  too_large: (l) => ({
    keyword: 'maxLength',
    message: `the arguments are more than ${l.maxArgumentBytes} bytes as UTF-8 JSON; send smaller arguments`,
  }),
  cyclic: () => ({ keyword: 'json', message: 'the arguments refer to themselves (a cycle); send JSON' }),
  not_json: () => ({ keyword: 'json', message: 'the arguments hold values JSON cannot (functions, BigInts); send JSON' }),
};

/** Reads a call's arguments once: a missing or blank one is `{}`; a JSON string is parsed; never throws. */
export function readArguments(raw: unknown, limits: ArgumentLimits): ArgumentsRead {
  let value = raw === undefined ? {} : raw;
  if (typeof value === 'string') {
    // The JSON text's UTF-8 bytes, exactly (every UTF-16 unit is at least one byte, so a long string exits early).
    if (value.length > limits.maxArgumentBytes || Buffer.byteLength(value) > limits.maxArgumentBytes)
      return { ok: false, ...PROBLEMS.too_large(limits) };
    try {
      value = value.trim() === '' ? {} : JSON.parse(value);
    } catch {
      return { ok: false, keyword: 'json', message: 'the arguments are not valid JSON; send a JSON object' };
    }
  }
  const problem = jsonProblem(value, { depth: limits.maxArgumentDepth, bytes: limits.maxArgumentBytes });
  return problem === undefined ? { ok: true, value } : { ok: false, ...PROBLEMS[problem](limits) };
}
