/**
 * The end of decided calls, recorded in a run's store when another host wrote
 * the run since this host decided them (it decided another call of the run,
 * or recovered one): the end is merged into what that host wrote — the calls
 * leave its in-flight list, the questions they asked again join its pending
 * calls — compare-and-set on each read, until it lands or the run is gone.
 */
import { AgtError, isAgtError } from '../../errors.js';
import { MAX_MERGE_ATTEMPTS } from '../../bounds.js';
import { type RunStore, withCalls } from '../store/run-store.js';
import { callKey, HOST_ID, idsKey, type InFlightCall, type StoredInFlightCall } from './in-flight.js';
import type { WaitingCall } from './waiting-call.js';
import { DecidedCalls } from './decided.js';

/**
 * Records the end of `ended` (and of the pending calls `lost`: their task's server ended) in `store`: `write` (the
 * run's own compare-and-set write) when no other host wrote the run since, else merged into what it wrote.
 */
export async function recordEnd(
  store: RunStore,
  run: { id: string; agent: string },
  ended: readonly InFlightCall[],
  parts: { write: () => Promise<unknown>; pending: readonly WaitingCall[]; decided: DecidedCalls; lost?: ReadonlySet<string> },
): Promise<void> {
  try {
    await parts.write();
  } catch (error) {
    if (!isAgtError(error) || error.code !== 'revision_conflict') throw error;
    const keys = new Set(ended.map(callKey));
    const asked = parts.pending.filter((a) => keys.has(idsKey(a)));
    // The run's revision stays behind: its next write conflicts, as it must.
    await mergeEnded(store, run, ended, asked, parts.decided, parts.lost);
  }
}

/**
 * Merges the end of `ended` (run by this host) and the questions `asked` again into the stored run; `lost`: pending
 * calls that ended with no decision (their task's server ended), taken out of its pending calls.
 */
export async function mergeEnded(
  store: RunStore,
  run: { id: string; agent: string },
  ended: readonly InFlightCall[],
  asked: readonly WaitingCall[],
  decided: DecidedCalls,
  lost: ReadonlySet<string> = new Set(),
): Promise<void> {
  const keys = new Set(ended.map(callKey));
  for (let attempt = 1; ; attempt++) {
    const stored = await store.get(run.id);
    if (stored === undefined) return; // the run was deleted: nothing is left to record the end in
    const state = stored.state;
    const mine = (c: StoredInFlightCall) => keys.has(callKey(c)) && c.host === HOST_ID;
    const inFlight = (state.inFlight ?? []).filter((c) => !mine(c));
    const waiting = new Set((state.pending ?? []).map(idsKey));
    const added = asked.filter((a) => !waiting.has(idsKey(a)));
    const gone = (state.pending ?? []).filter((p) => lost.has(idsKey(p)));
    const pending = [...(state.pending ?? []).filter((p) => !lost.has(idsKey(p))), ...added];
    try {
      const announce = [
        ...(state.inFlight ?? [])
          .filter(mine)
          .map((c) => ({ change: 'ended' as const, batchId: c.approval.batchId, callId: c.approval.callId })),
        ...gone.map((p) => ({ change: 'ended' as const, batchId: p.batchId, callId: p.callId })),
        ...added.map((a) => ({ change: 'waiting' as const, batchId: a.batchId, callId: a.callId })),
      ];
      // The results this host ended join what the record keeps (by call: the newest wins), pruned as this host prunes.
      const mineDecided = decided.list();
      const ours = new Set(mineDecided.map(idsKey));
      const kept = [...(state.decided ?? []).filter((d) => !ours.has(idsKey(d))), ...mineDecided];
      const merged = new DecidedCalls(decided.retentionMs);
      merged.load(kept.sort((x, y) => (x.endedAt < y.endedAt ? -1 : x.endedAt > y.endedAt ? 1 : 0)));
      const keep = merged.list();
      const next = withCalls({ ...state, ...(keep.length > 0 ? { decided: keep } : {}) }, pending, inFlight);
      if (keep.length === 0) delete next.decided;
      await store.put({ runId: run.id, agent: run.agent, state: next, announce }, { expectedRevision: stored.revision });
      return;
    } catch (error) {
      if (!isAgtError(error) || error.code !== 'revision_conflict') throw error;
      if (attempt >= MAX_MERGE_ATTEMPTS)
        throw new AgtError(
          'revision_conflict',
          `the end of decided calls of run "${run.id}" could not be recorded: other hosts kept writing it`,
          {
            details: { ...error.details, attempts: attempt },
            cause: error,
          },
        );
    }
  }
}
