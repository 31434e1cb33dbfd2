/**
 * The one owner of a run's waiting calls (approvals, questions, tasks): the
 * open ones by batch, the decided ones in flight on a host, the results kept
 * of those that ended, and the calls recover() interrupted — and every
 * compare-and-set write of them to the run's store. Deciding, collecting,
 * cancelling and recovering are its methods, each one path: take the calls
 * (synchronously: a second decision cannot take them again), record them in
 * flight in the same write, run them (the caller's runner: the pipeline in
 * the batch's scope), record their end. Of two hosts deciding one call, one
 * runs it and the other gets its stored result or revision_conflict.
 */
import { AgtError, isAgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { type RunStore, suspendedStateOf } from '../store/run-store.js';
import type { SuspendedRun } from '../run-options.js';
import type { InFlightView, PendingCall, ToolResult } from '../types.js';
import type { AnswerCheck } from './answers.js';
import { awaitTasks, type CollectParts } from './collect.js';
import { decidedElsewhere, DecidedCalls, storedResults } from './decided.js';
import {
  callChanges,
  callKey,
  idsKey,
  type InFlightCall,
  InFlightCalls,
  inFlightOf,
  readInFlightCall,
  type WrittenCalls,
  writtenCalls,
} from './in-flight.js';
import { OpenCalls } from './open-calls.js';
import { recordEnd } from './record-end.js';
import { recoverLost, type RecoverResult, type RecoverRun } from './recover.js';
import { collectable, onItsTask } from './tasks.js';
import { type DecidedOutcome, pendingView, readWaitingCall, type TakenCall, type WaitingCall } from './waiting-call.js';
import type { StoredResults } from '../results/kept-results.js';

/** Runs taken calls of one batch through the pipeline, within the batch's scope (the run's batches own the scope). */
export type CallRunner = (batchId: string, taken: readonly TakenCall[]) => Promise<DecidedOutcome[]>;

/** What a decision, a collect or a cancel ended: the results here, or (`decidedElsewhere`) those another host recorded. */
export interface CallsEnded {
  results: ToolResult[];
  decidedElsewhere?: true;
}

/** The run a WaitingCalls belongs to, and the rest of its state a write stores with the calls. */
export interface WaitingCallsParts {
  run: { id: string; agent: string };
  leaseMs: number;
  retentionMs: number;
  /** The run's state besides its calls: its snapshot's hashes, the batch ids seen, the tools tool_search loaded. */
  state(): {
    snapshot: Pick<SuspendedRun, 'fingerprint' | 'settingsHash' | 'mountsHash'>;
    seen: Iterable<string>;
    loadedTools: string[];
    /** B8: the results cut at the budget, kept whole (undefined when none was cut). */
    results?: StoredResults | undefined;
  };
}

/** The waiting calls of one run, and every write of them. */
export class WaitingCalls {
  readonly #parts: WaitingCallsParts;
  readonly #open = new OpenCalls();
  readonly #inFlight = new InFlightCalls();
  readonly #decided: DecidedCalls;
  /** Calls recover() ended without running them since the last write (it announces them as interrupted). */
  readonly #interrupted = new Set<string>();
  /** Pending calls ended with no decision since the last write (their task's server ended): announced as ended. */
  readonly #lost = new Set<string>();
  /** Calls a run resumed from a store took over: their task lives in the server of the host that started it, alive or not. */
  readonly #inherited = new Set<string>();
  /** What the last write stored of the calls: the next write announces the difference. */
  #written: WrittenCalls = writtenCalls([], []);
  /** The store the run was suspended to or resumed from, and its revision there. */
  #store: RunStore | undefined;
  #revision: number | null = null;

  constructor(parts: WaitingCallsParts) {
    this.#parts = parts;
    this.#decided = new DecidedCalls(parts.retentionMs);
  }

  /** The calls that wait, as the run keeps them (of every batch); `own`: but those a run resumed from a store took over. */
  waiting(own = false): WaitingCall[] {
    return own ? this.#open.list().filter((c) => !this.#inherited.has(idsKey(c))) : this.#open.list();
  }

  /** What hosts see of the calls that wait (of one batch). */
  pending(batchId?: string): PendingCall[] {
    return this.#open.list(batchId).map(pendingView);
  }

  /** The decided calls running on a host (this one, or one that died), with their leases. */
  inFlight(): InFlightView[] {
    return this.#inFlight
      .list()
      .map((c) => ({ ...pendingView(c.approval), host: c.host, decidedAt: c.decidedAt, leaseUntil: c.leaseUntil }));
  }

  /** The results of ended calls, the calls that now wait kept (in the open batch). */
  settle(outcomes: readonly DecidedOutcome[]): ToolResult[] {
    const results: ToolResult[] = [];
    for (const outcome of outcomes)
      if ('deferred' in outcome) this.#open.add(outcome.deferred);
      else results.push(outcome);
    return results;
  }

  /** Takes back what a stored run holds (resume), with the store and revision it was read at. */
  load(state: SuspendedRun, revision: number | null, store: RunStore | undefined): void {
    this.#revision = revision;
    this.#store = store;
    const inFlight = (state.inFlight ?? []).map(readInFlightCall);
    const decided = new Set(inFlight.map(callKey));
    // A call a record holds both pending and in flight was decided (E8): its host ends it, or recover() does — it is
    // never offered for a second decision, which would run it again and drop that host's lease.
    for (const call of state.pending ?? []) if (!decided.has(idsKey(call))) this.#open.add(readWaitingCall(call));
    if (store !== undefined) for (const call of this.#open.list()) this.#inherited.add(idsKey(call));
    this.#inFlight.add(inFlight);
    this.#written = writtenCalls(state.pending ?? [], state.inFlight ?? []);
    this.#decided.load(state.decided ?? []);
  }

  /**
   * The run's JSON state; with `store`, also written there, compare-and-set against the revision this run last wrote
   * or resumed from (revision_conflict when another host wrote it since), announcing what changed of its calls. A copy:
   * a host that edits what suspend() returned (say, to redact it for a log) changes nothing of the run.
   */
  async write(store?: RunStore): Promise<SuspendedRun> {
    return structuredClone(await this.#write(store));
  }

  // The write itself; the state holds the run's own records (the run's writes only store it).
  async #write(store?: RunStore): Promise<SuspendedRun> {
    const { snapshot, seen, loadedTools, results } = this.#parts.state();
    const { run } = this.#parts;
    const calls = [this.#open.list(), loadedTools, this.#inFlight.list(), this.#decided.list()] as const;
    const state = suspendedStateOf(run, snapshot, seen, ...calls, results);
    if (store === undefined) return state;
    const written = writtenCalls(state.pending ?? [], state.inFlight ?? []);
    const announce = callChanges(this.#written, written, this.#interrupted, this.#lost);
    const stored = await store.put(
      { runId: run.id, agent: run.agent, state, ...(announce.length > 0 ? { announce } : {}) },
      { expectedRevision: this.#revision },
    );
    this.#store = store;
    this.#revision = stored.revision;
    this.#written = written;
    this.#interrupted.clear();
    this.#lost.clear();
    return state;
  }

  /** Writes the run to its store (compare-and-set) when it has one: a batch is claimed there before it runs; else undefined. */
  claim(): Promise<SuspendedRun> | undefined {
    return this.#store === undefined ? undefined : this.#write(this.#store);
  }

  /** Ends calls of batch `batchId` with a host's decisions (run.decide); a call decided already gives its kept result. */
  async decide(batchId: string, decisions: unknown, check: AnswerCheck, runner: CallRunner): Promise<CallsEnded> {
    let taken: TakenCall[];
    try {
      taken = this.#open.take(batchId, decisions, check); // synchronous: a second decide cannot take them again
    } catch (error) {
      // Decided already (here, or by a host this run's copy has not seen): the result, while the run record keeps it.
      const known = isAgtError(error) && error.code === 'not_found' ? await this.#known(batchId, decisions) : undefined;
      if (known !== undefined) return known;
      throw error;
    }
    return this.#end(batchId, taken, runner, () => this.#known(batchId, decisions));
  }

  /**
   * Collects the calls of batch `batchId` whose tasks ended (E6), waiting up to `waitMs` for one (0: looks once): each
   * is taken with compare-and-set, so of two collectors one gets its result and the other nothing. not_found for a
   * batch with no call waiting on a task.
   */
  async collect(
    batchId: string,
    waitMs: number,
    signal: AbortSignal | undefined,
    parts: Omit<CollectParts, 'calls' | 'persist'>,
    check: AnswerCheck,
    runner: CallRunner,
  ): Promise<CallsEnded> {
    // A batch id that is no string names no batch (list() without one would look at every batch's tasks).
    if (typeof batchId !== 'string' || !this.#open.list(batchId).some(onItsTask))
      throw new AgtError(
        'not_found',
        `batch "${String(batchId)}" has no call waiting on a task in this run (collected or cancelled already, or none waited)`,
        { details: { batchId } },
      );
    const looks = await awaitTasks({ ...parts, calls: this.#open, persist: () => this.#persist() }, batchId, waitMs, signal);
    // A call the run stopped reading (E7) ends with its failure; the others with their task's result.
    // Of the calls that ended, those another collect or a cancel of this run took meanwhile are theirs: not taken again.
    const waiting = new Set(this.#open.list(batchId).flatMap((c) => (c.waitingFor === 'task' ? [c.callId] : [])));
    const ended = looks
      .filter((l) => collectable(l) && waiting.has(l.approval.callId))
      .map((l) => [l.approval.callId, l.failure ? { collect: true, failure: l.failure.toToolError().error } : { collect: true }] as const);
    if (ended.length === 0) return { results: [] };
    const taken = this.#open.take(batchId, Object.fromEntries(ended), check, true);
    return this.#end(batchId, taken, runner, async () => ({ results: [], decidedElsewhere: true }));
  }

  /** Cancels the task call `callId` of batch `batchId` on its server (run.cancel); the call ends cancelled. */
  cancel(batchId: string, callId: string, check: AnswerCheck, runner: CallRunner): Promise<CallsEnded> {
    const taken = this.#open.take(batchId, { [callId]: { cancel: true } }, check, true);
    return this.#end(batchId, taken, runner, () => this.#known(batchId, { [callId]: {} }));
  }

  /** Ends the decided calls whose host died (their lease ran out): see recover.ts. */
  recover(run: RecoverRun, runner: CallRunner, signal: AbortSignal | undefined): Promise<RecoverResult> {
    return recoverLost(
      {
        ...run,
        inFlight: this.#inFlight,
        decided: this.#decided,
        persist: () => this.#persist(),
        interrupted: (call) => void this.#interrupted.add(callKey(call)),
        recordEnd: (ended) => this.#recordEnd(ended),
      },
      async (batchId, calls) => this.settle(await runner(batchId, calls)),
      signal,
    );
  }

  /**
   * Ends waiting calls whose task's server ended (lost-tasks.ts) with their results: each still waiting is taken out
   * of the open calls, its result kept like a decided call's, and — when the run has a store — written there
   * (compare-and-set; merged into what another host wrote since). Returns the calls ended here (not taken meanwhile).
   */
  async endLost(ended: readonly { call: WaitingCall; result: ToolResult }[]): Promise<WaitingCall[]> {
    const gone = ended.filter(({ call }) => this.#open.remove(call));
    if (gone.length === 0) return [];
    const keys = new Set(gone.map(({ call }) => idsKey(call)));
    for (const key of keys) this.#lost.add(key);
    for (const { call, result } of gone) this.#decided.add(call.batchId, [result]);
    const store = this.#store;
    if (store !== undefined)
      await recordEnd(store, this.#parts.run, [], {
        write: () => this.#write(store),
        pending: [],
        decided: this.#decided,
        lost: keys,
      });
    return gone.map(({ call }) => call);
  }

  /** Forgets every call (the run closed). */
  clear(): void {
    this.#open.clear();
    this.#inFlight.clear();
  }

  // Taken calls end: in flight (leased to this host) in the same compare-and-set that takes them, then run.
  async #end(batchId: string, taken: TakenCall[], runner: CallRunner, known: () => Promise<CallsEnded | undefined>): Promise<CallsEnded> {
    const running = inFlightOf(taken, this.#parts.leaseMs);
    this.#inFlight.add(running);
    try {
      await this.#persist();
    } catch (error) {
      this.#inFlight.end(running);
      this.#open.restore(taken);
      // Another host decided first: its results, if it has ended them already; else what happened, and what to do.
      const result = isAgtError(error) && error.code === 'revision_conflict' ? await known() : undefined;
      if (result !== undefined) return result;
      throw decidedElsewhere(error, batchId);
    }
    const outcomes = await runner(batchId, taken);
    this.#inFlight.end(running); // a call that threw stays in flight: its lease runs out and recover() ends it
    const results = this.settle(outcomes);
    this.#decided.add(batchId, results);
    // Their end and results are recorded; a question asked again waits again, so another process can answer it.
    if (outcomes.length > 0) await this.#recordEnd(running);
    return { results };
  }

  // Records the run before decided calls run (compare-and-set); nothing without a store.
  async #persist(): Promise<void> {
    if (this.#store !== undefined) await this.#write(this.#store);
  }

  // The end of decided calls, in the store: this host's run as it has it, or merged into what another host wrote since.
  async #recordEnd(ended: readonly InFlightCall[]): Promise<void> {
    const store = this.#store;
    if (store === undefined) return;
    await recordEnd(store, this.#parts.run, ended, { write: () => this.#write(store), pending: this.#open.list(), decided: this.#decided });
  }

  // The stored results of the calls a decision names, when the run record keeps every one (decided elsewhere).
  async #known(batchId: string, decisions: unknown): Promise<CallsEnded | undefined> {
    if (typeof batchId !== 'string' || !isPlainObject(decisions) || this.#store === undefined) return undefined;
    const stored = await this.#store.get(this.#parts.run.id);
    const results = storedResults(stored?.state.decided, batchId, Object.keys(decisions));
    return results === undefined ? undefined : { results, decidedElsewhere: true };
  }
}
