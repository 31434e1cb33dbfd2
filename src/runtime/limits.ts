import { AgtError } from '../errors.js';
import { DEFAULT_MAX_ARGUMENT_BYTES, DEFAULT_MAX_BATCH_CALLS, DEFAULT_MAX_RESULT_BYTES, MAX_JSON_DEPTH } from '../bounds.js';

/**
 * The bounds a run puts on what models and servers send it (docs/security.md).
 * Each is a documented limit with a stable outcome, so hostile or broken input
 * costs bounded time and memory and never takes a batch down.
 */

/** The limits of one run; every field has a default. */
export interface RunLimits {
  /** Calls in one batch; more rejects the batch (`batch_rejected`, `too_many_calls`). Default 512. */
  maxBatchCalls: number;
  /** A call's arguments as JSON; more is that call's `invalid_arguments`. Default 1 MiB. */
  maxArgumentBytes: number;
  /** Nesting of a call's arguments; deeper is that call's `invalid_arguments`. Default 64. */
  maxArgumentDepth: number;
  /** A result's content and structured content; more is truncated with a notice. Default 1 MiB. */
  maxResultBytes: number;
}

/** The defaults, each a bound of bounds.ts (an object here: it is typed by RunLimits, which bounds.ts cannot import). */
export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxBatchCalls: DEFAULT_MAX_BATCH_CALLS,
  maxArgumentBytes: DEFAULT_MAX_ARGUMENT_BYTES,
  maxArgumentDepth: MAX_JSON_DEPTH,
  maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
});

/** The defaults with `partial` on top; a limit that is not a positive integer is invalid_input. */
export function resolveLimits(partial: Partial<RunLimits> | undefined): RunLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1)
      throw new AgtError('invalid_input', `limits.${key} must be a positive integer`, { details: { field: `limits.${key}` } });
  }
  return limits;
}
