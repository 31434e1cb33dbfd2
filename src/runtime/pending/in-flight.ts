/**
 * Decided calls in flight (issue 51): a call a host decided to run is
 * recorded as in flight, with that host's lease, in the same compare-and-set
 * that takes it out of the pending calls, and its end is recorded when it
 * comes. A host that dies mid-call leaves the record behind with its lease
 * running out; any host then finds it (`run.recover()`): a tool that declares
 * `idempotentHint: true` runs again, any other ends `interrupted` ("may or
 * may not have run"). A decided call is never silently lost.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isPlainObject } from '../../json.js';
import type { Route } from '../assembly/snapshot.js';
import type { CallChange } from '../types.js';
import {
  decisionFits,
  isExpired,
  isStoredCall,
  readWaitingCall,
  type StoredCall,
  storedCall,
  type TakenCall,
  takenFor,
} from './waiting-call.js';

/** This host process, as leases name it: host name, process id and a random part (a pid is reused). */
export const HOST_ID = `${hostname().slice(0, 64)}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * A decided call that runs (or ran) on `host`; its end removes it. `approval` is the call as it waited (its record:
 * arguments, tool, server state — the field keeps the name of the record format since 0.1), `decision` what the host
 * decided: an approval, the answers to its questions, or its task collected or cancelled.
 */
export type InFlightCall = TakenCall & {
  /** The host process running it (HOST_ID). */
  host: string;
  /** ISO 8601: when it was decided. */
  decidedAt: string;
  /** ISO 8601: past this the host is taken as dead, and `recover()` ends or reruns the call. */
  leaseUntil: string;
};

/** The calls that run when decided: an approval granted in time, answers, or a declined question. */
function runs(t: TakenCall, now: number): boolean {
  return !isExpired(t.approval, now) && (!takenFor(t, 'approval') || t.decision.approve);
}

/** The in-flight records of the taken calls that will run, leased to this host for `leaseMs`. */
export function inFlightOf(taken: readonly TakenCall[], leaseMs: number, now = Date.now()): InFlightCall[] {
  const decidedAt = new Date(now).toISOString();
  const leaseUntil = new Date(now + leaseMs).toISOString();
  return taken.filter((t) => runs(t, now)).map((t) => ({ ...t, host: HOST_ID, decidedAt, leaseUntil }));
}

/**
 * True when a lost call may run again (E8): its tool as the server lists it now (`route`) declares
 * `idempotentHint: true`, and so did the tool when the call was recorded. The record alone is never enough: it is
 * data anyone who can write the store may have edited (issue 58 #23).
 */
export const rerunsSafely = (call: InFlightCall, route: Route | undefined): boolean =>
  call.approval.annotations?.idempotentHint === true && route?.kind === 'mcp' && route.annotations?.idempotentHint === true;

/**
 * Lost calls claimed by this host (recover): leased anew, their decision time kept. The decision was taken in time,
 * so the approval's own expiry does not end a call that runs again.
 */
export function releasedOf(lost: readonly InFlightCall[], leaseMs: number, now = Date.now()): InFlightCall[] {
  const leaseUntil = new Date(now + leaseMs).toISOString();
  return lost.map((c) => released(c, leaseUntil));
}

const released = <C extends InFlightCall>(c: C, leaseUntil: string): C => ({
  ...c,
  approval: { ...c.approval, expiresAt: leaseUntil },
  host: HOST_ID,
  leaseUntil,
});

/** True when the call's host is taken as dead at `now`: its lease ran out. */
export const leaseExpired = (call: InFlightCall, now: number): boolean => now >= Date.parse(call.leaseUntil);

/** The key of a call within a run, from its batch and call ids. */
export const idsKey = (ids: { batchId: string; callId: string }): string => `${ids.batchId}\u0000${ids.callId}`;

/** The key of an in-flight call within a run. */
export const callKey = (c: { approval: { batchId: string; callId: string } }): string => idsKey(c.approval);

/** An in-flight call as a run record holds it: its call in the stored form ({@link storedCall}). */
export type StoredInFlightCall = Omit<InFlightCall, 'approval'> & { approval: StoredCall };

/** An in-flight call as suspend() writes it (its approval as 0.1 wrote one). */
export const storedInFlight = (call: StoredInFlightCall): StoredInFlightCall => ({ ...call, approval: storedCall(call.approval) });

/** True for an in-flight record as suspend() writes it (resume checks every field it reads, and that the decision fits the call). */
export function isInFlightCall(value: unknown): boolean {
  const c = value as Partial<Record<keyof InFlightCall, unknown>> | null;
  return (
    isPlainObject(c) &&
    isStoredCall(c.approval) &&
    decisionFits(readWaitingCall(c.approval as StoredCall), c.decision) &&
    typeof c.host === 'string' &&
    typeof c.decidedAt === 'string' &&
    typeof c.leaseUntil === 'string' &&
    !Number.isNaN(Date.parse(c.leaseUntil))
  );
}

/** A stored in-flight record (checked by {@link isInFlightCall}) as the run keeps it: a 0.1 approval gains `waitingFor`. */
export const readInFlightCall = (call: StoredInFlightCall): InFlightCall =>
  ({ ...call, approval: readWaitingCall(call.approval) }) as InFlightCall; // isInFlightCall checked the decision fits the call

/** The in-flight calls of a run, by batch and call id. */
export class InFlightCalls {
  readonly #calls = new Map<string, InFlightCall>();

  /** Records calls as in flight. */
  add(calls: Iterable<InFlightCall>): void {
    for (const call of calls) this.#calls.set(callKey(call), call);
  }

  /** Removes ended calls (their end is what the next write records). */
  end(calls: Iterable<InFlightCall>): void {
    for (const call of calls) this.#calls.delete(callKey(call));
  }

  /** Every in-flight call, in batch and call order. */
  list(): InFlightCall[] {
    return [...this.#calls.values()].sort((x, y) =>
      x.approval.batchId === y.approval.batchId ? x.approval.index - y.approval.index : x.approval.batchId < y.approval.batchId ? -1 : 1,
    );
  }

  /** How many calls are in flight. */
  get size(): number {
    return this.#calls.size;
  }

  /** Forgets them all (the run closed). */
  clear(): void {
    this.#calls.clear();
  }
}

/** What the last write of a run stored of its calls: the keys pending and in flight. */
export interface WrittenCalls {
  pending: ReadonlySet<string>;
  inFlight: ReadonlySet<string>;
}

const idsOf = (key: string) => {
  const [batchId = '', callId = ''] = key.split('\u0000');
  return { batchId, callId };
};

/** The keys of a run's pending and in-flight calls, as a write stores them. */
export function writtenCalls(pending: readonly StoredCall[], inFlight: readonly StoredInFlightCall[]): WrittenCalls {
  return { pending: new Set(pending.map(idsKey)), inFlight: new Set(inFlight.map(callKey)) };
}

/**
 * What a write does to the run's calls, from what the last write stored (`before`) to what this one stores (`after`);
 * a pending call in `ended` left with its result and no decision (its task's server ended): `ended`, not `decided`.
 */
export function callChanges(
  before: WrittenCalls,
  after: WrittenCalls,
  interrupted: ReadonlySet<string>,
  ended: ReadonlySet<string> = new Set(),
): CallChange[] {
  const changes: CallChange[] = [];
  for (const key of after.pending) if (!before.pending.has(key)) changes.push({ change: 'waiting', ...idsOf(key) });
  for (const key of before.pending)
    if (!after.pending.has(key)) changes.push({ change: ended.has(key) ? 'ended' : 'decided', ...idsOf(key) });
  for (const key of before.inFlight)
    if (!after.inFlight.has(key)) changes.push({ change: interrupted.has(key) ? 'interrupted' : 'ended', ...idsOf(key) });
  return changes;
}
