/**
 * The one check of a time a caller gives (a timeout, a ttl, an interval),
 * by the rules of bounds.ts. Apart from bounds.ts because it throws an
 * AgtError, and errors.ts reads its own bounds from bounds.ts.
 */
import { AgtError } from './errors.js';
import { type MsRule, msProblem } from './bounds.js';

/** Throws invalid_input naming `field` unless `value` fits `rule`; undefined passes (the default applies). */
export function checkMs(value: unknown, field: string, rule: MsRule = {}): void {
  if (value === undefined) return;
  const problem = msProblem(value, rule);
  if (problem !== undefined) throw new AgtError('invalid_input', `${field} ${problem}`, { details: { field } });
}
