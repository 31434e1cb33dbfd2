/**
 * NativeRun: one execution of an agent through the strict batch pipeline.
 * It connects the agent's own mounts only (G3), freezes them in a snapshot
 * (B1), runs each batch through stage 1 and stages 2–6, and refreshes at the
 * batch boundary when the run changed its own assembly (F1–F4) or a mounted
 * server announced a list change — never mid-batch (F2).
 */
import { randomUUID } from 'node:crypto';
import { AgtError } from '../errors.js';
import { frameworkToolsFor } from '../framework/tools.js';
import type { ListChangedKind, McpConnection } from '../mcp/connection.js';
import { McpProber } from '../mcp/prober.js';
import { readAgent } from '../resources/agent-data.js';
import { rejectRemovedOptions } from '../resources/removed-options.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { OpenApprovals, pendingView } from './approvals.js';
import { batchRejection, checkBatch } from './batch-check.js';
import { decideCalls } from './decide.js';
import { type CallContext, processCall } from './call.js';
import { batchDeadline, batchTimeout, callContext, type RunParts } from './call-context.js';
import { mapLimit, RunAudit } from './run-audit.js';
import { buildSnapshot } from './refresh.js';
import { resolveLimits, type RunLimits } from './limits.js';
import { fingerprintMismatch, type RunStore, suspendedState, suspendedStateOf } from './run-store.js';
import {
  approvalTtl,
  buildContext,
  type NativeRunOptions,
  proberOptions,
  runConnectSettings,
  type RunWiring,
  type SuspendedRun,
} from './run-options.js';
import { RunMounts } from './run-mounts.js';
import { RunRefresher } from './refresher.js';
import { RunToolSearch } from './tool-search.js';
import type { ModelTool } from './model-tools.js';
import { affectsSnapshot, type RunSnapshot, type SnapshotState, snapshotView } from './snapshot.js';
import type { ApprovalDecision, BatchResult, PendingApproval, ToolBatch, ToolResult } from './types.js';

/** One native run of an agent. */
export class NativeRun extends RunMounts {
  readonly id: string;
  readonly agent: string;
  /** The run's snapshot and its refreshes at batch boundaries. */
  readonly #refresher: RunRefresher;
  readonly #options: NativeRunOptions;
  readonly #stale: Map<string, Set<ListChangedKind>>;
  readonly #seen = new Set<string>();
  readonly #broken = new Map<string, string>();
  #closed = false;
  readonly #limits: RunLimits;
  readonly #audit: RunAudit;
  /** What every batch's call context is built from. */
  readonly #parts: RunParts;
  readonly #approvals = new OpenApprovals();
  readonly #toolSearch: RunToolSearch;
  readonly #batchTimeoutMs: number | undefined;
  /** The RunStore this run was suspended to or resumed from, and its revision there: every batch is claimed in it. */
  #store: RunStore | undefined;
  #storedRevision: number | null = null;

  private constructor(
    snapshot: SnapshotState,
    options: NativeRunOptions,
    parts: { registry: ToolSchemaRegistry; wiring: RunWiring; stale: Map<string, Set<ListChangedKind>>; toolSearch: RunToolSearch },
  ) {
    super();
    this.id = parts.wiring.runId;
    this.agent = options.agent;

    this.#options = options;
    this.#stale = parts.stale;
    this.#toolSearch = parts.toolSearch;
    this.#limits = resolveLimits(options.limits);
    this.#batchTimeoutMs = batchTimeout(options);
    this.#audit = new RunAudit(options.audit, this.id, this.agent);
    const { registry, wiring, stale } = parts;
    this.#refresher = new RunRefresher(snapshot, {
      agent: this.agent,
      options,
      registry,
      wiring,
      stale,
      broken: this.#broken,
      audit: this.#audit,
    });
    this.#parts = {
      runId: this.id,
      agent: this.agent,
      options,
      limits: this.#limits,
      callTimeoutMs: runConnectSettings(options).timeouts.callMs,
      approvalTtlMs: approvalTtl(options),
      prober: new McpProber(proberOptions(options, parts.wiring, parts.registry)),
      brokenMounts: this.#broken,
      inFlight: parts.wiring.inFlight,
    };
  }

  /** Reads the agent, connects its mounts, lists and compiles their tools, and freezes the snapshot (B1). */
  static async start(options: NativeRunOptions): Promise<NativeRun> {
    return NativeRun.#open(randomUUID(), options);
  }

  static async #open(id: string, options: NativeRunOptions): Promise<NativeRun> {
    rejectRemovedOptions(options, 'NativeRun.start'); // A7: no allowMcp binding option
    if (options?.policy === undefined || typeof options.policy.review !== 'function') {
      throw new AgtError(
        'invalid_input',
        'NativeRun.start needs a permission policy: every call is allowed or denied by one, e.g. policies.autoAllow([...]) or policies.human(ask)',
      );
    }
    resolveLimits(options.limits); // bad limits fail before anything connects
    runConnectSettings(options); // so do bad connect settings (resolved once for the run)
    approvalTtl(options);
    batchTimeout(options);
    const agent = readAgent((await options.service.read({ kind: 'agent', reference: options.agent })).data);
    if (agent.kind === 'harness')
      throw new AgtError('forbidden', 'harness agents are driven by their harness; give them dynamic tools with HarnessToolSet');
    if (!agent.enabled) throw new AgtError('forbidden', `agent "${options.agent}" is disabled; enable its binding before dispatching work`);
    const registry = options.registry ?? options.pool?.registry ?? new ToolSchemaRegistry(); // pooled runs share compiled schemas
    const parts = {
      registry,
      wiring: { runId: id, agent: options.agent, inFlight: new Map() },
      stale: new Map(),
      toolSearch: new RunToolSearch(options.toolSearch, registry), // bad options fail before anything connects
    };
    const snapshot = await buildSnapshot(agent, { ...buildContext(options, parts), framework: frameworkToolsFor(agent) });
    return new NativeRun(snapshot, options, parts);
  }

  /** The snapshot as hosts see it, frozen: fingerprint, mounts with revisions, aliases (no connections or routes). */
  get snapshot(): RunSnapshot {
    return snapshotView(this.#refresher.snapshot);
  }

  /** Notices from loading (skipped tools or mounts). */
  get notices(): readonly string[] {
    return this.#refresher.snapshot.notices;
  }

  /** Mounts whose server announced a list change since the last refresh (applied at the next boundary: a batch's start or end, or `refresh()`). */
  get staleMounts(): readonly string[] {
    return [...this.#stale.keys()];
  }

  /**
   * What the model sees: tools by alias or name, schemas as declared; MCP Apps' app-only tools only with `includeAppOnly`
   * (all are callable). With tool search on, deferred tools only with `includeDeferred` (marked `deferred`).
   */
  tools(options: { includeAppOnly?: boolean; includeDeferred?: boolean } = {}): ModelTool[] {
    return this.#toolSearch.modelTools(this.#refresher.snapshot.routes, options);
  }

  /**
   * Runs a batch: stage 1 for the whole batch (throws batch_rejected, B6), then
   * each call; refreshes after the batch (F1). `signal` cancels this batch only.
   */
  async executeBatch(batch: ToolBatch, options: { signal?: AbortSignal } = {}): Promise<BatchResult> {
    if (this.#closed) throw new AgtError('connection_closed', 'this run is closed');
    // The start of every batch, rejected or not, is a boundary: what changed since the last one is applied first.
    const applying = this.#refresher.apply(true);
    const opening = applying && (await applying); // nothing pending (the usual case): not even a microtask
    const snapshot = this.#refresher.snapshot; // F2: the whole batch uses the snapshot it started with
    const check = checkBatch(batch, {
      runId: this.id,
      agent: this.agent,
      seenBatchIds: this.#seen,
      routes: this.#toolSearch.routes(snapshot.routes),
      maxBatchCalls: this.#limits.maxBatchCalls,
      limits: this.#limits,
    });
    if (!check.ok) {
      const error = batchRejection(check.problems);
      await this.#audit.rejected((batch as { batchId?: unknown })?.batchId, error.details?.reason);
      throw error;
    }
    const routed = check.routed;
    this.#seen.add(batch.batchId);
    await this.#claim(batch.batchId);
    const started = performance.now();
    if (this.#options.audit) await this.#audit.started(batch.batchId, routed.length); // no sink: not even a microtask
    const scope = this.#batchScope(batch.batchId, snapshot, options.signal);
    let outcomes;
    try {
      outcomes = await mapLimit(routed, this.#options.concurrency ?? 4, ({ call, route }) => processCall(call, route, scope.ctx));
    } finally {
      scope.end();
    }
    const results: ToolResult[] = [];
    for (const outcome of outcomes)
      if ('deferred' in outcome) this.#approvals.add(outcome.deferred);
      else results.push(outcome);
    if (this.#options.audit) await this.#audit.finished(batch.batchId, results, started);
    return this.#boundary(batch.batchId, results, opening);
  }

  /**
   * Ends deferred calls of batch `batchId` with the host's decisions: a
   * rejected call is permission_denied (with `reason`), an expired one
   * permission_denied (approval expired), an approved one runs through before →
   * execute → after once its tool is checked unchanged (else approval_stale).
   * Returns their results, the calls still pending, and the refresh at this
   * boundary. A stored run records the decision first (compare-and-set): of two
   * hosts deciding one call, one runs it and the other gets revision_conflict.
   */
  async decide(batchId: string, decisions: Record<string, ApprovalDecision>, options: { signal?: AbortSignal } = {}): Promise<BatchResult> {
    if (this.#closed) throw new AgtError('connection_closed', 'this run is closed');
    const opening = await this.#refresher.apply(true); // approved calls are checked against the tools as they are now
    const taken = this.#approvals.take(batchId, decisions); // synchronous: a second decide cannot take them again
    if (this.#store !== undefined) {
      try {
        await this.suspend({ store: this.#store });
      } catch (error) {
        this.#approvals.restore(taken);
        throw error;
      }
    }
    const snapshot = this.#refresher.snapshot;
    const scope = this.#batchScope(batchId, snapshot, options.signal);
    let results;
    try {
      results = await decideCalls(taken, snapshot.routes, scope.ctx, this.#options.concurrency ?? 4);
    } finally {
      scope.end();
    }
    return this.#boundary(batchId, results, opening);
  }

  /** The calls waiting for a decision (of one batch), in batch and call order, with their validated arguments. */
  pendingApprovals(batchId?: string): PendingApproval[] {
    return this.#approvals.list(batchId).map(pendingView);
  }

  /**
   * Applies now what changed since the last boundary — list changes servers
   * announced, the run's own configuration changes (F1), pooled servers that
   * died — so that `tools()` is current before the model is asked. Undefined
   * when nothing changed, or while a batch runs (its own boundary applies them).
   */
  async refresh(): Promise<BatchResult['refresh']> {
    if (this.#closed) throw new AgtError('connection_closed', 'this run is closed');
    return this.#refresher.apply(true);
  }

  // The end of a batch: its pending approvals, and the refresh of this boundary (else the one it started with).
  // Dead pooled servers are started again at the next start (once per batch, not twice).
  async #boundary(batchId: string, results: ToolResult[], opening: BatchResult['refresh']): Promise<BatchResult> {
    const pending = this.pendingApprovals(batchId);
    const applying = this.#refresher.apply(false);
    const refresh = (applying && (await applying)) ?? opening;
    const toolsLoaded = await this.#applyLoads(batchId);
    return {
      results,
      ...(pending.length > 0 ? { pending } : {}),
      ...(refresh ? { refresh } : {}),
      ...(toolsLoaded ? { toolsLoaded } : {}),
    };
  }

  // Tool search: what tool_search found in this batch is loaded now, at its boundary (F2), and audited.
  async #applyLoads(batchId: string): Promise<BatchResult['toolsLoaded']> {
    const change = this.#toolSearch.applyLoads(this.#refresher.snapshot.routes);
    if (change !== undefined) await this.#audit.toolsLoaded(batchId, change.loaded, change.unloaded);
    return change;
  }

  // The calls of a batch: their context within the batch deadline (batchTimeoutMs), counted as running until
  // `end()` (no refresh swaps connections from under them, F2). No promise of its own: the pipeline's cost per batch.
  #batchScope(batchId: string, snapshot: SnapshotState, signal: AbortSignal | undefined): { ctx: CallContext; end(): void } {
    const deadline = batchDeadline(this.#batchTimeoutMs);
    const ends =
      deadline.signal === undefined ? signal : signal === undefined ? deadline.signal : AbortSignal.any([signal, deadline.signal]);
    const ctx = this.#callContext(batchId, snapshot, ends);
    this.#refresher.running += 1;
    return {
      ctx,
      end: () => {
        this.#refresher.running -= 1;
        deadline.clear();
      },
    };
  }

  #callContext(batchId: string, snapshot: SnapshotState, batchSignal: AbortSignal | undefined): CallContext {
    const search = this.#toolSearch.active(snapshot.routes) ? this.#toolSearch.context(snapshot.routes) : undefined;
    return callContext(
      this.#parts,
      batchId,
      batchSignal,
      (outcome) => {
        if (affectsSnapshot(outcome, this.agent, snapshot)) this.#refresher.frameworkChanged = true; // F1; other writes: F8
      },
      search,
    );
  }

  /** The connections of the run's mounts, by mount. */
  protected mountConnections(): ReadonlyMap<string, McpConnection> {
    return new Map(this.#closed ? [] : [...this.#refresher.snapshot.loaded].map(([mount, loaded]) => [mount, loaded.connection]));
  }

  /** The connection of one of the run's own mounts (G3); not_found for anything else. */
  protected mountConnection(mount: string): McpConnection {
    const loaded = this.#refresher.snapshot.loaded.get(mount);
    if (this.#closed || loaded === undefined)
      throw new AgtError('not_found', `"${mount}" is not a mount of this run`, { details: { mount } });
    return loaded.connection;
  }

  /**
   * A JSON state to resume this run later; the run stays usable. With `store`,
   * the state is also written there, compare-and-set against the revision this
   * run last wrote or resumed from (revision_conflict when another host wrote it since).
   */
  async suspend(options: { store?: RunStore } = {}): Promise<SuspendedRun> {
    const state = suspendedStateOf(this, this.#refresher.snapshot, this.#seen, this.#approvals.list(), this.#toolSearch.loadedTools());
    if (options.store) {
      const stored = await options.store.put({ runId: this.id, agent: this.agent, state }, { expectedRevision: this.#storedRevision });
      this.#store = options.store;
      this.#storedRevision = stored.revision;
    }
    return state;
  }

  // A batch of a stored run is claimed there first (compare-and-set): of two hosts that resumed the
  // same run, one runs the batch and the other gets revision_conflict with nothing executed.
  async #claim(batchId: string): Promise<void> {
    if (this.#store === undefined) return;
    try {
      await this.suspend({ store: this.#store });
    } catch (error) {
      this.#seen.delete(batchId);
      throw error;
    }
  }

  /**
   * Resumes a suspended run — its state, or its run id in `options.store` — if
   * the stored configuration still has its fingerprint (F6, F7); else
   * fingerprint_mismatch.
   */
  static async resume(target: SuspendedRun | string, options: Omit<NativeRunOptions, 'agent'> & { store?: RunStore }): Promise<NativeRun> {
    const { state, revision } = await suspendedState(target, options.store);
    const run = await NativeRun.#open(state.runId, { ...options, agent: state.agent });
    run.#storedRevision = revision;
    if (typeof target === 'string') run.#store = options.store;
    const mismatch = fingerprintMismatch(state, run.#refresher.snapshot);
    if (mismatch !== undefined) {
      await run.close();
      throw mismatch;
    }
    for (const id of state.seenBatchIds) run.#seen.add(id);
    for (const approval of state.pending ?? []) run.#approvals.add(approval);
    run.#toolSearch.restore(state.loadedTools ?? [], run.#refresher.snapshot.routes);
    return run;
  }

  /** Closes every connection of the run. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#approvals.clear();
    await Promise.all([...this.#refresher.snapshot.loaded.values()].map((m) => m.release()));
  }

  /** `await using run = await NativeRun.start(…)` closes the run at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
