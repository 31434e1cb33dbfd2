/**
 * Results of decided calls, kept in a stored run for a retention the host
 * sets (issue 51): a host that lost the race to decide a call — or decides a
 * call another host already ended — reads what happened instead of only
 * "decided elsewhere". The results are what the model got (masked like every
 * result); they live in the run record (docs/security.md).
 */
import { AgtError, isAgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { MAX_DECIDED_KEPT } from '../../bounds.js';
import { RESULT_STATUSES, type ToolResult } from '../types.js';

/** A decided call's result, as the run record keeps it. */
export interface DecidedCall {
  batchId: string;
  callId: string;
  result: ToolResult;
  /** ISO 8601: when it ended. */
  endedAt: string;
}

/** True for a decided result as suspend() writes it. */
export function isDecidedCall(value: unknown): value is DecidedCall {
  const d = value as Partial<Record<keyof DecidedCall, unknown>> | null;
  return (
    isPlainObject(d) &&
    typeof d.batchId === 'string' &&
    typeof d.callId === 'string' &&
    isResultOf(d.result, d.callId) &&
    typeof d.endedAt === 'string'
  );
}

const STATUSES: ReadonlySet<unknown> = new Set(RESULT_STATUSES);

// A result of call `callId` as a run hands it out (a host deciding again gets it as its own): a listed status, and the
// content of an ok result or the error (code and message) of any other.
function isResultOf(result: unknown, callId: string): boolean {
  if (!isPlainObject(result) || result.callId !== callId || !STATUSES.has(result.status)) return false;
  if (result.status === 'ok') return Array.isArray(result.content);
  return isPlainObject(result.error) && typeof result.error.code === 'string' && typeof result.error.message === 'string';
}

/** The decided results of a run, newest last, pruned by age and count. */
export class DecidedCalls {
  #calls: DecidedCall[] = [];

  constructor(readonly retentionMs: number) {}

  /** Keeps the results of calls of `batchId` that just ended. */
  add(batchId: string, results: readonly ToolResult[], now = Date.now()): void {
    if (this.retentionMs === 0 || results.length === 0) return;
    const endedAt = new Date(now).toISOString();
    this.#calls.push(...results.map((result) => ({ batchId, callId: result.callId, result, endedAt })));
  }

  /** Restores what a stored run kept. */
  load(calls: readonly DecidedCall[]): void {
    this.#calls = [...calls];
  }

  /** What a write keeps: the results younger than the retention, at most MAX_DECIDED_KEPT. */
  list(now = Date.now()): DecidedCall[] {
    const oldest = now - this.retentionMs;
    this.#calls = this.#calls.filter((c) => Date.parse(c.endedAt) >= oldest).slice(-MAX_DECIDED_KEPT);
    return this.#calls;
  }
}

/** The stored results of calls `callIds` of `batchId`, in the order asked; undefined unless every one has one. */
export function storedResults(
  decided: readonly DecidedCall[] | undefined,
  batchId: string,
  callIds: readonly string[],
): ToolResult[] | undefined {
  // Read from the store as another host left it (not checked as a resume checks it): a malformed result is none.
  const byCall = new Map((decided ?? []).filter((d) => isDecidedCall(d) && d.batchId === batchId).map((d) => [d.callId, d.result]));
  const results = callIds.map((id) => byCall.get(id));
  return callIds.length > 0 && results.every((r) => r !== undefined) ? (results as ToolResult[]) : undefined;
}

/**
 * A revision_conflict of deciding (or recovering) batch `batchId`: the stored run moved on since this host read it —
 * another host decided (or wrote) it first. Retrying here could only find the calls gone, so the error says what
 * happened and how to see what still waits (the code stays revision_conflict). Other errors are given back as they are.
 */
export function decidedElsewhere(error: unknown, batchId: string): unknown {
  if (!isAgtError(error) || error.code !== 'revision_conflict') return error;
  return new AgtError(
    'revision_conflict',
    `another host decided or wrote this run first (batch "${batchId}"); its decision stands and nothing ran here — ` +
      'resume the run from its store again to see which calls still wait, do not retry this decision',
    { details: { ...error.details, reason: 'decided_elsewhere', batchId }, cause: error },
  );
}
