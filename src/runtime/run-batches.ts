/**
 * A run's batches: stage 1 for the whole batch (checkBatch, as data), then
 * each call through the pipeline within the batch's scope (its signal,
 * deadline and running count), then the batch's boundary — the calls that
 * wait, the refresh (F1, never mid-batch: F2) and the tools tool_search
 * loaded. The waiting calls a host decides, collects or cancels later end
 * through the run's WaitingCalls, run here within their batch's scope.
 */
import { isAgtError } from '../errors.js';
import { type AnswerCheck, answerCheck, type AnswerRules } from './pending/answers.js';
import { endCalls } from './pending/decide.js';
import { endingMounts, lostNotice, type LostWhen, onEndingMounts, serverEnded, unknownTasks, withinMs } from './pending/lost-tasks.js';
import type { RecoverResult } from './pending/recover.js';
import { keepWait } from './pending/wait.js';
import type { TakenCall } from './pending/waiting-call.js';
import type { CallRunner, CallsEnded, WaitingCalls } from './pending/waiting-calls.js';
import { batchRejection, type BatchRejection, checkBatch } from './pipeline/batch-check.js';
import { processCall, RunPath } from './pipeline/call.js';
import { type AppOrigin, batchDeadline, type CallContext, callContext, type RunParts } from './pipeline/call-context.js';
import type { CallWaiters } from './pending/call-waiters.js';
import type { CallPath } from './pipeline/pipeline.js';
import type { RunRefresher } from './assembly/refresher.js';
import { mapLimit, type RunAudit } from './audit/run-audit.js';
import { affectsSnapshot, type Route, type SnapshotState } from './assembly/snapshot.js';
import type { RunToolSearch } from './assembly/tool-search.js';
import type { BatchResult, CallDecision, PendingCall, ToolBatch, ToolResult } from './types.js';

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
  /** How the answers to a call's questions are checked before any is taken, and made the protocol's responses (pending/answers.ts). */
  answers: AnswerRules;
  /** The run's waiting calls: every approval, question and task that waits, in flight or decided, and their writes. */
  calls: WaitingCalls;
  /** Who waits for a waiting call to end (run.awaitCall). */
  waiters: CallWaiters;
  /** A snapshot's routes with the run's own tools beside it: result_read once a result was cut (B8). */
  withRunTools(routes: ReadonlyMap<string, Route>): ReadonlyMap<string, Route>;
}

/** The batches of one run. */
export class RunBatches {
  readonly #p: BatchesParts;
  readonly #answers: AnswerRules;
  readonly #check: AnswerCheck;

  /** MCP Apps rendered (`apps: true`): tools and results with an interface say so. */
  get apps(): boolean {
    return this.#p.run.options.connect.apps;
  }

  constructor(parts: BatchesParts) {
    this.#p = parts;
    this.#answers = parts.answers;
    this.#check = answerCheck(parts.answers);
  }

  /**
   * Runs a batch; a batch stage 1 rejects, audited, with nothing run, comes back as data (`rejected`) —
   * or with `throwRejected` (executeBatch) as its batch_rejected error.
   */
  run(batch: ToolBatch, signal: AbortSignal | undefined, throwRejected: true, origin?: AppOrigin): Promise<BatchResult>;
  run(batch: ToolBatch, signal: AbortSignal | undefined, throwRejected: false): Promise<BatchResult | RejectedBatch>;
  async run(
    batch: ToolBatch,
    signal: AbortSignal | undefined,
    throwRejected: boolean,
    origin?: AppOrigin, // MCP Apps: a batch of one an app asked for (run.callFromApp)
  ): Promise<BatchResult | RejectedBatch> {
    const { run, refresher, toolSearch, audit } = this.#p;
    // The start of every batch, rejected or not, is a boundary: what changed since the last one is applied first.
    const applying = refresher.apply(true);
    const opening = applying && (await applying); // nothing pending (the usual case): not even a microtask
    const snapshot = refresher.snapshot; // F2: the whole batch uses the snapshot it started with
    const check = checkBatch(batch, {
      runId: run.runId,
      agent: run.options.agent,
      seenBatchIds: this.#p.seen,
      routes: this.#p.withRunTools(toolSearch.routes(snapshot.routes)),
      maxBatchCalls: run.options.limits.maxBatchCalls,
      limits: run.options.limits,
    });
    if (!check.ok) {
      await audit.rejected((batch as { batchId?: unknown })?.batchId, check.rejection.reason);
      if (throwRejected) throw batchRejection(check.rejection);
      return { rejected: check.rejection };
    }
    this.#p.seen.add(batch.batchId);
    // A batch of a stored run is claimed there first (compare-and-set): of two hosts that resumed the same run, one
    // runs the batch and the other gets revision_conflict with nothing executed.
    const claiming = this.#p.calls.claim();
    if (claiming !== undefined) await this.#claimed(batch.batchId, claiming); // no store (the usual case): not even a microtask
    const started = performance.now();
    const sink = run.options.audit;
    if (sink) await audit.started(batch.batchId, check.routed.length); // no sink: not even a microtask
    const scope = this.#scope(batch.batchId, snapshot, signal, origin);
    let outcomes;
    try {
      // A call left waiting is kept as soon as it waits (its approval_requested or input_requested recorded then).
      outcomes = await mapLimit(check.routed, run.options.concurrency, ({ call, route }) =>
        processCall(call, route, scope.ctx, scope.path, keepWait),
      );
    } finally {
      scope.end();
    }
    const results = this.#p.calls.settle(outcomes);
    if (sink) await audit.finished(batch.batchId, results, started);
    return this.#boundary(batch.batchId, results, opening);
  }

  /** Ends waiting calls of batch `batchId` with the host's decisions (NativeRun.decide). */
  async decide(batchId: string, decisions: Record<string, CallDecision>, signal: AbortSignal | undefined): Promise<BatchResult> {
    const opening = await this.#p.refresher.apply(true); // approved calls are checked against the tools as they are now
    return this.#afterCalls(batchId, await this.#p.calls.decide(batchId, decisions, this.#check, this.#runner(signal)), opening);
  }

  /** Collects the calls of batch `batchId` whose tasks ended (E6), waiting up to `waitMs` for one (0: looks once). */
  async collect(batchId: string, waitMs: number, signal: AbortSignal | undefined): Promise<BatchResult> {
    const { refresher, run } = this.#p;
    const opening = await refresher.apply(true);
    const parts = {
      routes: () => this.#p.withRunTools(refresher.snapshot.routes),
      route: this.#answers.route,
      concurrency: run.options.concurrency,
      requestMs: run.options.connect.timeouts.callMs,
      context: () => callContext(run, batchId, signal, () => undefined),
    };
    return this.#afterCalls(
      batchId,
      await this.#p.calls.collect(batchId, waitMs, signal, parts, this.#check, this.#runner(signal)),
      opening,
    );
  }

  /** Cancels the task call `callId` of batch `batchId` on its server; the call ends cancelled (E6). */
  async cancel(batchId: string, callId: string, signal: AbortSignal | undefined): Promise<BatchResult> {
    const opening = await this.#p.refresher.apply(true);
    return this.#afterCalls(batchId, await this.#p.calls.cancel(batchId, callId, this.#check, this.#runner(signal)), opening);
  }

  /** Ends the decided calls whose host died (their lease ran out): see pending/recover.ts. */
  async recover(signal: AbortSignal | undefined): Promise<RecoverResult> {
    const recovered = await this.#p.calls.recover({ run: this.#p.run, refresher: this.#p.refresher }, this.#runner(signal), signal);
    for (const { batchId, result } of recovered.recovered) this.#p.waiters.ended(batchId, [result]); // run.awaitCall
    return recovered;
  }

  /**
   * Ends the calls waiting on tasks of the mounts whose server ends with the run (a stdio server of its own, not a
   * pool's lease) `task_lost`, `reason: server_ended`, through the run's WaitingCalls (written to its store, if it has
   * one): as the run closes, every one but those a run resumed from a store took over (their task lives in the server
   * of the host that started it); as it resumes from a JSON state, those whose server does not know the task now
   * (looked at once). Returns the run's notices of them.
   */
  async endLostTasks(when: LostWhen): Promise<string[]> {
    const { run, refresher, calls } = this.#p;
    const snapshot = refresher.snapshot;
    const onEnding = onEndingMounts(calls.waiting(true), endingMounts(snapshot.loaded, run.options.pool !== undefined));
    if (onEnding.length === 0) return []; // the usual case: no call waits on such a task
    const lost =
      when === 'closed'
        ? onEnding
        : await unknownTasks(onEnding, snapshot.routes, {
            concurrency: run.options.concurrency,
            requestMs: run.options.connect.timeouts.callMs,
          });
    const ended = [];
    for (const call of lost) ended.push({ call, result: await serverEnded(call, run, when) });
    try {
      // A store that never answers holds no close forever: past the request timeout the write goes on without the run.
      return (await withinMs(calls.endLost(ended), run.options.connect.timeouts.callMs)).map((call) => lostNotice(call, when));
    } catch (error) {
      // The store refused the write: this run has the calls ended; a run resumed from the store still has them waiting.
      const code = isAgtError(error) ? error.code : 'store_unavailable';
      return [
        ...ended.map(({ call }) => lostNotice(call, when)),
        `the end of these calls could not be written to the run's store (${code}): a run resumed from it still has them waiting`,
      ];
    }
  }

  // Calls another host decided come back as its results; the others end at this boundary.
  #afterCalls(batchId: string, ended: CallsEnded, opening: BatchResult['refresh']): BatchResult | Promise<BatchResult> {
    this.#p.waiters.ended(batchId, ended.results); // run.awaitCall: whoever waits for these calls has their results
    return ended.decidedElsewhere ? ended : this.#boundary(batchId, ended.results, opening);
  }

  // Decided calls of one batch through their pipeline, within the batch's scope.
  #runner(signal: AbortSignal | undefined): CallRunner {
    return async (batchId: string, taken: readonly TakenCall[]) => {
      const snapshot = this.#p.refresher.snapshot;
      const scope = this.#scope(batchId, snapshot, signal);
      try {
        const routes = this.#p.withRunTools(snapshot.routes);
        return await endCalls(taken, routes, scope.ctx, this.#answers, this.#p.run.options.concurrency);
      } finally {
        scope.end();
      }
    };
  }

  // A claim that failed leaves the batch unseen: it may be run again (here, or on the host that has the run now).
  async #claimed(batchId: string, claiming: Promise<unknown>): Promise<void> {
    try {
      await claiming;
    } catch (error) {
      this.#p.seen.delete(batchId);
      throw error;
    }
  }

  // The end of a batch: its pending approvals, and the refresh of this boundary (else the one it started with).
  // Dead pooled servers are started again at the next start (once per batch, not twice).
  // No promise of its own when nothing is refreshed or loaded (the usual case).
  #boundary(batchId: string, results: ToolResult[], opening: BatchResult['refresh']): BatchResult | Promise<BatchResult> {
    const pending = this.#p.calls.pending(batchId);
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
  #scope(batchId: string, snapshot: SnapshotState, signal: AbortSignal | undefined, origin?: AppOrigin) {
    const { refresher, toolSearch, run } = this.#p;
    const deadline = batchDeadline(run.options.batchTimeoutMs);
    const ends =
      deadline.signal === undefined ? signal : signal === undefined ? deadline.signal : AbortSignal.any([signal, deadline.signal]);
    const search = toolSearch.active(snapshot.routes) ? toolSearch.context(snapshot.routes) : undefined;
    const onChange = (outcome: Parameters<CallContext['onFrameworkChange']>[0]) => {
      if (affectsSnapshot(outcome, run.options.agent, snapshot)) refresher.frameworkChanged = true; // F1; other writes: F8
    };
    const ctx = callContext(run, batchId, ends, onChange, search, origin);
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
