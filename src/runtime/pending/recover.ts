/**
 * run.recover() (E8): the decided calls whose host died (their lease ran out)
 * end here. They are claimed first — leased anew to this host in one
 * compare-and-set, so of two hosts recovering one run one does it (the other
 * gets revision_conflict), and if this host dies too they are still in
 * flight for the next. A tool that declares `idempotentHint: true` — as its
 * server lists it now, and as the record says — runs again; any other ends
 * `interrupted`, audited. They leave the record when they end.
 */
import { callContext, type RunParts } from '../pipeline/call-context.js';
import type { RunRefresher } from '../assembly/refresher.js';
import type { BatchResult, ToolResult } from '../types.js';
import { interruptedCall } from './decide.js';
import { decidedElsewhere, type DecidedCalls } from './decided.js';
import { type InFlightCall, type InFlightCalls, leaseExpired, releasedOf, rerunsSafely } from './in-flight.js';

/** A call `recover()` ended: the batch it was decided in, its result, and whether it ran again (an idempotent tool). */
export interface RecoveredCall {
  batchId: string;
  result: ToolResult;
  rerun: boolean;
}

/**
 * What `run.recover()` ended, as a BatchResult across the run's batches: `results` in the order the calls ended,
 * `recovered` the same calls with their batch and whether they ran again, `refresh` what the boundary applied first.
 */
export interface RecoverResult extends BatchResult {
  recovered: RecoveredCall[];
}

/** What recovering needs of the run: its parts (for the calls' context) and the boundary applied first. */
export interface RecoverRun {
  run: RunParts;
  refresher: Pick<RunRefresher, 'apply' | 'snapshot'>;
}

/** What recovering needs of the run's waiting calls (WaitingCalls has it all). */
export interface RecoverParts extends RecoverRun {
  inFlight: InFlightCalls;
  decided: DecidedCalls;
  persist(): Promise<void>;
  interrupted(call: InFlightCall): void;
  recordEnd(ended: readonly InFlightCall[]): Promise<void>;
}

/** Ends the calls of `p.inFlight` whose lease ran out; `rerun` runs the idempotent ones of one batch again, here. */
export async function recoverLost(
  p: RecoverParts,
  rerun: (batchId: string, calls: readonly InFlightCall[]) => Promise<ToolResult[]>,
  signal: AbortSignal | undefined,
): Promise<RecoverResult> {
  const { refresher, inFlight, run } = p;
  const now = Date.now();
  const lost = inFlight.list().filter((c) => leaseExpired(c, now));
  if (lost.length === 0) return { results: [], recovered: [] };
  const refresh = await refresher.apply(true);
  const claimed = releasedOf(lost, run.options.inFlightLeaseMs, now);
  inFlight.add(claimed); // the same keys: this host's lease replaces the dead one's
  try {
    await p.persist();
  } catch (error) {
    inFlight.add(lost);
    throw decidedElsewhere(error, lost[0]!.approval.batchId);
  }
  const recovered: RecoveredCall[] = [];
  // The tools as listed now, after the refresh above: a stored idempotentHint alone never reruns a call (issue 58 #23).
  const routes = refresher.snapshot.routes;
  const again = claimed.filter((c) => rerunsSafely(c, routes.get(c.approval.tool)));
  const interrupt = async (call: InFlightCall) => {
    const ctx = callContext(run, call.approval.batchId, signal, () => undefined);
    const result = await interruptedCall(lost[claimed.indexOf(call)]!, ctx); // its message names the dead host's lease
    p.interrupted(call);
    p.decided.add(call.approval.batchId, [result]);
    recovered.push({ batchId: call.approval.batchId, result, rerun: false });
  };
  for (const call of claimed) if (!again.includes(call)) await interrupt(call);
  for (const batchId of new Set(again.map((c) => c.approval.batchId))) {
    const calls = again.filter((c) => c.approval.batchId === batchId);
    let results: ToolResult[];
    try {
      results = await rerun(batchId, calls);
    } catch {
      // A rerun that throws (its answers no longer hold, its task is gone …) may or may not have run: its calls end
      // interrupted. Thrown on, it would leave every call claimed here in flight, each ended again by the next recover().
      for (const call of calls) await interrupt(call);
      continue;
    }
    p.decided.add(batchId, results);
    for (const result of results) recovered.push({ batchId, result, rerun: true });
  }
  inFlight.end(claimed);
  await p.recordEnd(claimed);
  return { results: recovered.map((r) => r.result), recovered, ...(refresh === undefined ? {} : { refresh }) };
}
