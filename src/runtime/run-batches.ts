/**
 * A run's batches: stage 1 for the whole batch (checkBatch, as data), then
 * each call through the pipeline within the batch's scope (its signal,
 * deadline and running count), then the batch's boundary — pending approvals,
 * the refresh (F1, never mid-batch: F2) and the tools tool_search loaded.
 * The deferred calls a host decides later (run.decide) end here too.
 */
import { isAgtError } from '../errors.js';
import { type AnswerCheck, answerCheck, type AnswerRules } from './pending/answers.js';
import type { OpenApprovals } from './pending/open-calls.js';
import { pendingView } from './pending/record.js';
import { batchRejection, type BatchRejection, checkBatch } from './batch-check.js';
import { type CallOutcome, processCall, RunPath } from './call.js';
import { batchDeadline, type CallContext, callContext, type RunParts } from './call-context.js';
import { decideCalls } from './pending/decide.js';
import { collectable } from './pending/tasks.js';
import { awaitTasks } from './pending/collect.js';
import type { CallPath } from './pipeline.js';
import type { RunRefresher } from './refresher.js';
import { mapLimit, type RunAudit } from './run-audit.js';
import { affectsSnapshot, type Route, type SnapshotState } from './snapshot.js';
import type { RunToolSearch } from './tool-search.js';
import type { BatchResult, CallDecision, PendingCall, ToolBatch, ToolResult } from './types.js';
import { type InFlightCall, type InFlightCalls, inFlightOf } from './pending/in-flight.js';
import type { TakenApproval } from './pending/record.js';
import { decidedElsewhere, type DecidedCalls } from './pending/decided.js';
import { recoverLost, type RecoverResult } from './pending/recover.js';

/** A batch stage 1 rejected (B6): nothing ran. */
export interface RejectedBatch {
  rejected: BatchRejection;
}

/** What a run's batches need from the run. */
export interface BatchesParts {
  run: RunParts;
  audit: RunAudit;
  refresher: RunRefresher;
  toolSearch: RunToolSearch;
  /** Batch ids already run (a stored run carries them). */
  seen: Set<string>;
  approvals: OpenApprovals;
  /** How the answers to a call's questions are checked before any is taken, and made the protocol's responses (pending/answers.ts). */
  answers: AnswerRules;
  /** Claims batch `batchId` in the run's store first, if it has one (revision_conflict: another host has it); undefined without a store. */
  claim(batchId: string): Promise<void> | undefined;
  /** Records the run in its store, if it has one (compare-and-set), before decided calls run. */
  persist(): Promise<void>;
  /** Decided calls running (or left running by a host that died), with their hosts' leases. */
  inFlight: InFlightCalls;
  /**
   * Records in the store that decided calls ended (and the questions asked again): the run as this host has it, or,
   * when another host wrote the run since, merged into what it wrote. Nothing without a store.
   */
  recordEnd(ended: readonly InFlightCall[]): Promise<void>;
  /** Notes a lost call recover() ends without running it, for the next write to announce as interrupted. */
  interrupted(call: InFlightCall): void;
  /** The results of decided calls the run record keeps (decidedRetentionMs). */
  decided: DecidedCalls;
  /** The results the stored run keeps for calls `callIds` of `batchId` (another host decided them); undefined without. */
  storedResults(batchId: string, callIds: readonly string[]): Promise<ToolResult[] | undefined>;
}

/** The batches of one run. */
export class RunBatches {
  readonly #p: BatchesParts;
  readonly #answers: AnswerRules;
  readonly #check: AnswerCheck;

  constructor(parts: BatchesParts) {
    this.#p = parts;
    this.#answers = parts.answers;
    this.#check = answerCheck(parts.answers);
  }

  /**
   * Runs a batch; a batch stage 1 rejects, audited, with nothing run, comes back as data (`rejected`) —
   * or with `throwRejected` (executeBatch) as its batch_rejected error.
   */
  run(batch: ToolBatch, signal: AbortSignal | undefined, throwRejected: true): Promise<BatchResult>;
  run(batch: ToolBatch, signal: AbortSignal | undefined, throwRejected: false): Promise<BatchResult | RejectedBatch>;
  async run(batch: ToolBatch, signal: AbortSignal | undefined, throwRejected: boolean): Promise<BatchResult | RejectedBatch> {
    const { run, refresher, toolSearch, audit } = this.#p;
    // The start of every batch, rejected or not, is a boundary: what changed since the last one is applied first.
    const applying = refresher.apply(true);
    const opening = applying && (await applying); // nothing pending (the usual case): not even a microtask
    const snapshot = refresher.snapshot; // F2: the whole batch uses the snapshot it started with
    const check = checkBatch(batch, {
      runId: run.runId,
      agent: run.options.agent,
      seenBatchIds: this.#p.seen,
      routes: toolSearch.routes(snapshot.routes),
      maxBatchCalls: run.options.limits.maxBatchCalls,
      limits: run.options.limits,
    });
    if (!check.ok) {
      await audit.rejected((batch as { batchId?: unknown })?.batchId, check.rejection.reason);
      if (throwRejected) throw batchRejection(check.rejection);
      return { rejected: check.rejection };
    }
    this.#p.seen.add(batch.batchId);
    const claiming = this.#p.claim(batch.batchId);
    if (claiming !== undefined) await claiming; // no store (the usual case): not even a microtask
    const started = performance.now();
    const sink = run.options.audit;
    if (sink) await audit.started(batch.batchId, check.routed.length); // no sink: not even a microtask
    const scope = this.#scope(batch.batchId, snapshot, signal);
    let outcomes;
    try {
      outcomes = await mapLimit(check.routed, run.options.concurrency, ({ call, route }) =>
        processCall(call, route, scope.ctx, scope.path),
      );
    } finally {
      scope.end();
    }
    const results = this.#settle(outcomes);
    if (sink) await audit.finished(batch.batchId, results, started);
    return this.#boundary(batch.batchId, results, opening);
  }

  /** Ends deferred calls of batch `batchId` with the host's decisions (NativeRun.decide). */
  async decide(batchId: string, decisions: Record<string, CallDecision>, signal: AbortSignal | undefined): Promise<BatchResult> {
    const { refresher, approvals } = this.#p;
    const opening = await refresher.apply(true); // approved calls are checked against the tools as they are now
    let taken: TakenApproval[];
    try {
      taken = approvals.take(batchId, decisions, this.#check); // synchronous: a second decide cannot take them again
    } catch (error) {
      // Decided already (here, or by a host this run's copy has not seen): the result, while the run record keeps it.
      const known = isAgtError(error) && error.code === 'not_found' ? await this.#known(batchId, decisions) : undefined;
      if (known !== undefined) return known;
      throw error;
    }
    return this.#end(batchId, taken, opening, signal, () => this.#known(batchId, decisions));
  }

  /**
   * Collects the calls of batch `batchId` whose tasks ended (E6), waiting up to `waitMs` for one (0: looks once):
   * each is taken with compare-and-set, so of two collectors one gets its result and the other nothing.
   */
  async collect(batchId: string, waitMs: number, signal: AbortSignal | undefined): Promise<BatchResult> {
    const { refresher, approvals, run } = this.#p;
    const opening = await refresher.apply(true);
    const looks = await awaitTasks(
      {
        approvals,
        routes: () => refresher.snapshot.routes,
        route: (method) => this.#answers.route(method),
        concurrency: run.options.concurrency,
        requestMs: run.options.connect.timeouts.callMs,
        context: () => callContext(run, batchId, signal, () => undefined),
        persist: () => this.#p.persist(),
      },
      batchId,
      waitMs,
      signal,
    );
    // A call the run stopped reading (E7) ends with its failure; the others with their task's result.
    const ended = looks
      .filter(collectable)
      .map((l) => [l.approval.callId, l.failure ? { collect: true, failure: l.failure.toToolError().error } : { collect: true }] as const);
    if (ended.length === 0) return this.#boundary(batchId, [], opening);
    const taken = approvals.take(batchId, Object.fromEntries(ended), this.#check, true);
    return this.#end(batchId, taken, opening, signal, async () => ({ results: [], decidedElsewhere: true }));
  }

  /** Cancels the task call `callId` of batch `batchId` on its server; the call ends cancelled (E6). */
  async cancel(batchId: string, callId: string, signal: AbortSignal | undefined): Promise<BatchResult> {
    const opening = await this.#p.refresher.apply(true);
    const taken = this.#p.approvals.take(batchId, { [callId]: { cancel: true } }, this.#check, true);
    return this.#end(batchId, taken, opening, signal, () => this.#known(batchId, { [callId]: {} }));
  }

  // Taken calls end: in flight (leased to this host) in the same compare-and-set that takes them, then run.
  async #end(
    batchId: string,
    taken: TakenApproval[],
    opening: BatchResult['refresh'],
    signal: AbortSignal | undefined,
    known: () => Promise<BatchResult | undefined>,
  ): Promise<BatchResult> {
    const { approvals, run, inFlight } = this.#p;
    const running = inFlightOf(taken, run.options.inFlightLeaseMs);
    inFlight.add(running);
    try {
      await this.#p.persist();
    } catch (error) {
      inFlight.end(running);
      approvals.restore(taken);
      // Another host decided first: its results, if it has ended them already; else what happened, and what to do.
      const result = isAgtError(error) && error.code === 'revision_conflict' ? await known() : undefined;
      if (result !== undefined) return result;
      throw decidedElsewhere(error, batchId);
    }
    const outcomes = await this.#run(batchId, taken, signal);
    inFlight.end(running); // a call that threw stays in flight: its lease runs out and recover() ends it
    const results = this.#settle(outcomes);
    this.#p.decided.add(batchId, results);
    // Their end and results are recorded; a question asked again waits again, so another process can answer it.
    if (outcomes.length > 0) await this.#p.recordEnd(running);
    return this.#boundary(batchId, results, opening);
  }

  // The stored results of the calls a decision names, when the run record keeps every one (decided elsewhere).
  async #known(batchId: string, decisions: unknown): Promise<BatchResult | undefined> {
    if (typeof batchId !== 'string' || decisions === null || typeof decisions !== 'object') return undefined;
    const results = await this.#p.storedResults(batchId, Object.keys(decisions));
    return results === undefined ? undefined : { results, decidedElsewhere: true };
  }

  // Decided calls of one batch through their pipeline, within the batch's scope.
  async #run(batchId: string, taken: readonly TakenApproval[], signal: AbortSignal | undefined): Promise<CallOutcome[]> {
    const snapshot = this.#p.refresher.snapshot;
    const scope = this.#scope(batchId, snapshot, signal);
    try {
      return await decideCalls(taken, snapshot.routes, scope.ctx, this.#answers, this.#p.run.options.concurrency);
    } finally {
      scope.end();
    }
  }

  /** Ends the decided calls whose host died (their lease ran out): see pending/recover.ts. */
  recover(signal: AbortSignal | undefined): Promise<RecoverResult> {
    return recoverLost(
      this.#p,
      async (batchId, calls) => this.#settle(await this.#run(batchId, calls as unknown as TakenApproval[], signal)),
      signal,
    );
  }

  // The results of calls that ended; the calls that wait are kept for run.decide.
  #settle(outcomes: readonly CallOutcome[]): ToolResult[] {
    const results: ToolResult[] = [];
    for (const outcome of outcomes)
      if ('deferred' in outcome) this.#p.approvals.add(outcome.deferred);
      else results.push(outcome);
    return results;
  }

  /** The calls waiting for a decision (of one batch), in batch and call order, with their validated arguments. */
  pending(batchId?: string): PendingCall[] {
    return this.#p.approvals.list(batchId).map(pendingView);
  }

  // The end of a batch: its pending approvals, and the refresh of this boundary (else the one it started with).
  // Dead pooled servers are started again at the next start (once per batch, not twice).
  // No promise of its own when nothing is refreshed or loaded (the usual case).
  #boundary(batchId: string, results: ToolResult[], opening: BatchResult['refresh']): BatchResult | Promise<BatchResult> {
    const pending = this.pending(batchId);
    const applying = this.#p.refresher.apply(false);
    if (applying !== undefined) return applying.then((refresh) => this.#ended(batchId, results, pending, refresh ?? opening));
    return this.#ended(batchId, results, pending, opening);
  }

  // The batch's result; what tool_search found in this batch is loaded now, at its boundary (F2), and audited.
  #ended(
    batchId: string,
    results: ToolResult[],
    pending: PendingCall[],
    refresh: BatchResult['refresh'],
  ): BatchResult | Promise<BatchResult> {
    const toolsLoaded = this.#p.toolSearch.applyLoads(this.#p.refresher.snapshot.routes);
    const ended: BatchResult = {
      results,
      ...(pending.length > 0 ? { pending } : {}),
      ...(refresh ? { refresh } : {}),
      ...(toolsLoaded ? { toolsLoaded } : {}),
    };
    if (toolsLoaded === undefined) return ended;
    return this.#p.audit.toolsLoaded(batchId, toolsLoaded.loaded, toolsLoaded.unloaded).then(() => ended);
  }

  // The calls of a batch: their context and path within the batch deadline (batchTimeoutMs), counted as running
  // until `end()` (no refresh swaps connections from under them, F2). No promise of its own: the pipeline's cost per batch.
  #scope(batchId: string, snapshot: SnapshotState, signal: AbortSignal | undefined) {
    const { refresher, toolSearch, run } = this.#p;
    const deadline = batchDeadline(run.options.batchTimeoutMs);
    const ends =
      deadline.signal === undefined ? signal : signal === undefined ? deadline.signal : AbortSignal.any([signal, deadline.signal]);
    const search = toolSearch.active(snapshot.routes) ? toolSearch.context(snapshot.routes) : undefined;
    const onChange = (outcome: Parameters<CallContext['onFrameworkChange']>[0]) => {
      if (affectsSnapshot(outcome, run.options.agent, snapshot)) refresher.frameworkChanged = true; // F1; other writes: F8
    };
    const ctx = callContext(run, batchId, ends, onChange, search);
    const path: CallPath<Route> = new RunPath(ctx);
    refresher.running += 1;
    return {
      ctx,
      path,
      end: () => {
        refresher.running -= 1;
        deadline.clear();
      },
    };
  }
}
