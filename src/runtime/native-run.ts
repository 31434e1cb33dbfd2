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
import {
  type ListChangedKind,
  type McpConnection,
  type PromptResult,
  type RequestOptions,
  type ResourceContents,
} from '../mcp/connection.js';
import type { McpPrompt, McpResource } from '../mcp/lists.js';
import { McpProber } from '../mcp/prober.js';
import { readAgent } from '../resources/agent-data.js';
import { rejectRemovedOptions } from '../resources/removed-options.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { OpenApprovals, pendingView } from './approvals.js';
import { batchRejection, checkBatch } from './batch-check.js';
import { decideCalls } from './decide.js';
import { type CallContext, processCall } from './call.js';
import { callContext, type RunParts } from './call-context.js';
import { mapLimit, RunAudit, type RefreshCause } from './run-audit.js';
import { buildSnapshot, closeUnused, refreshSnapshot, relistSnapshot } from './refresh.js';
import { resolveLimits, type RunLimits } from './limits.js';
import { fingerprintMismatch, type RunStore, suspendedState, suspendedStateOf } from './run-store.js';
import {
  approvalTtl,
  buildContext,
  type ModelTool,
  modelTools,
  type NativeRunOptions,
  proberOptions,
  runTimeouts,
  type RunWiring,
  type SuspendedRun,
} from './run-options.js';
import { affectsSnapshot, type RunSnapshot, type SnapshotState, snapshotView } from './snapshot.js';
import type { ApprovalDecision, BatchResult, PendingApproval, ToolBatch, ToolResult } from './types.js';

/** One native run of an agent. */
export class NativeRun {
  readonly id: string;
  readonly agent: string;
  #snapshot: SnapshotState;
  readonly #options: NativeRunOptions;
  readonly #registry: ToolSchemaRegistry;
  readonly #wiring: RunWiring;
  readonly #stale: Map<string, Set<ListChangedKind>>;
  readonly #seen = new Set<string>();
  readonly #broken = new Map<string, string>();
  #refreshPending = false;
  #closed = false;
  readonly #limits: RunLimits;
  readonly #audit: RunAudit;
  /** What every batch's call context is built from. */
  readonly #parts: RunParts;
  readonly #approvals = new OpenApprovals();
  /** The RunStore this run was suspended to or resumed from, and its revision there: every batch is claimed in it. */
  #store: RunStore | undefined;
  #storedRevision: number | null = null;

  private constructor(
    snapshot: SnapshotState,
    options: NativeRunOptions,
    parts: { registry: ToolSchemaRegistry; wiring: RunWiring; stale: Map<string, Set<ListChangedKind>> },
  ) {
    this.id = parts.wiring.runId;
    this.agent = options.agent;
    this.#snapshot = snapshot;
    this.#options = options;
    this.#registry = parts.registry;
    this.#wiring = parts.wiring;
    this.#stale = parts.stale;
    this.#limits = resolveLimits(options.limits);
    this.#audit = new RunAudit(options.audit, this.id, this.agent);
    this.#parts = {
      runId: this.id,
      agent: this.agent,
      options,
      limits: this.#limits,
      callTimeoutMs: runTimeouts(options).callMs,
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
    runTimeouts(options); // bad timeouts fail before anything connects
    approvalTtl(options);
    const agent = readAgent((await options.service.read({ kind: 'agent', reference: options.agent })).data);
    if (agent.kind === 'harness')
      throw new AgtError('forbidden', 'harness agents are driven by their harness; give them dynamic tools with HarnessToolSet');
    if (!agent.enabled) throw new AgtError('forbidden', `agent "${options.agent}" is disabled; enable its binding before dispatching work`);
    const parts = {
      registry: options.registry ?? options.pool?.registry ?? new ToolSchemaRegistry(), // pooled runs share compiled schemas
      wiring: { runId: id, agent: options.agent, inFlight: new Map() },
      stale: new Map(),
    };
    const snapshot = await buildSnapshot(agent, { ...buildContext(options, parts), framework: frameworkToolsFor(agent) });
    return new NativeRun(snapshot, options, parts);
  }

  /** The snapshot as hosts see it, frozen: fingerprint, mounts with revisions, aliases (no connections or routes). */
  get snapshot(): RunSnapshot {
    return snapshotView(this.#snapshot);
  }

  /** Notices from loading (skipped tools or mounts). */
  get notices(): readonly string[] {
    return this.#snapshot.notices;
  }

  /** Mounts whose server announced a list change since the last refresh (refreshed after the next batch). */
  get staleMounts(): readonly string[] {
    return [...this.#stale.keys()];
  }

  /** What the model sees: tools by alias or name, schemas as declared; MCP Apps' app-only tools only with `includeAppOnly` (all are callable). */
  tools(options: { includeAppOnly?: boolean } = {}): ModelTool[] {
    return modelTools(this.#snapshot.routes.values(), options.includeAppOnly === true);
  }

  /**
   * Runs a batch: stage 1 for the whole batch (throws batch_rejected, B6), then
   * each call; refreshes after the batch (F1). `signal` cancels this batch only.
   */
  async executeBatch(batch: ToolBatch, options: { signal?: AbortSignal } = {}): Promise<BatchResult> {
    if (this.#closed) throw new AgtError('connection_closed', 'this run is closed');
    const snapshot = this.#snapshot; // F2: the whole batch uses the snapshot it started with
    const check = checkBatch(batch, {
      runId: this.id,
      agent: this.agent,
      seenBatchIds: this.#seen,
      routes: snapshot.routes,
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
    const ctx = this.#callContext(batch.batchId, snapshot, options.signal);
    const started = performance.now();
    if (this.#options.audit) await this.#audit.started(batch.batchId, routed.length); // no sink: not even a microtask
    const outcomes = await mapLimit(routed, this.#options.concurrency ?? 4, ({ call, route }) => processCall(call, route, ctx));
    const results: ToolResult[] = [];
    for (const outcome of outcomes)
      if ('deferred' in outcome) this.#approvals.add(outcome.deferred);
      else results.push(outcome);
    if (this.#options.audit) await this.#audit.finished(batch.batchId, results, started);
    return this.#boundary(batch.batchId, results);
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
    const taken = this.#approvals.take(batchId, decisions); // synchronous: a second decide cannot take them again
    if (this.#store !== undefined) {
      try {
        await this.suspend({ store: this.#store });
      } catch (error) {
        this.#approvals.restore(taken);
        throw error;
      }
    }
    const snapshot = this.#snapshot;
    const ctx = this.#callContext(batchId, snapshot, options.signal);
    const results = await decideCalls(taken, snapshot.routes, ctx, this.#options.concurrency ?? 4);
    return this.#boundary(batchId, results);
  }

  /** The calls waiting for a decision (of one batch), in batch and call order, with their validated arguments. */
  pendingApprovals(batchId?: string): PendingApproval[] {
    return this.#approvals.list(batchId).map(pendingView);
  }

  // The batch boundary: the batch's pending approvals, and at most one refresh, whatever was announced during the batch.
  async #boundary(batchId: string, results: ToolResult[]): Promise<BatchResult> {
    const pending = this.pendingApprovals(batchId);
    const base: BatchResult = pending.length > 0 ? { results, pending } : { results };
    const framework = this.#refreshPending;
    // A pooled mount whose server died is leased again (the pool starts it once for all its runs).
    const dead = this.#options.pool ? [...this.#snapshot.loaded.values()].filter((m) => m.connection.closed).map((m) => m.reference) : [];
    if (!framework && this.#stale.size === 0 && dead.length === 0) return base;
    const stale = new Map(this.#stale);
    this.#stale.clear();
    this.#refreshPending = false;
    const before = dead.map((m) => this.#broken.get(m));
    const refresh = await this.#refresh({ framework, stale, reopen: dead });
    // A restart that fails again for the same reason is not news for the model.
    const repeated =
      !framework && stale.size === 0 && refresh.status === 'failed' && dead.every((m, i) => this.#broken.get(m) === before[i]);
    return repeated ? base : { ...base, refresh };
  }

  #callContext(batchId: string, snapshot: SnapshotState, batchSignal: AbortSignal | undefined): CallContext {
    return callContext(this.#parts, batchId, batchSignal, (outcome) => {
      if (affectsSnapshot(outcome, this.agent, snapshot)) this.#refreshPending = true; // F1; other writes: F8
    });
  }

  async #refresh(cause: RefreshCause): Promise<NonNullable<BatchResult['refresh']>> {
    const o = this.#options;
    const ctx = buildContext(o, { registry: this.#registry, wiring: this.#wiring, stale: this.#stale });
    const relist = new Set(cause.stale.keys());
    const started = performance.now();
    const outcome = cause.framework
      ? await refreshSnapshot(this.#snapshot, this.agent, { ...ctx, frameworkFor: frameworkToolsFor }, relist)
      : await relistSnapshot(this.#snapshot, relist, ctx, new Set(cause.reopen)); // F8: never reads the stored configuration
    if (!outcome.ok) for (const mount of cause.reopen) this.#broken.set(mount, outcome.error.code); // their calls fail with why
    if (outcome.ok) {
      const old = this.#snapshot;
      this.#snapshot = outcome.snapshot; // F3: switch only when everything is ready
      for (const mount of outcome.snapshot.loaded.keys()) this.#broken.delete(mount);
      await closeUnused(old, outcome.snapshot);
    }
    return this.#audit.refresh(cause, outcome, started);
  }

  /** The resources a mount's server lists (all pages; [] when it declares none). Only the run's own mounts (G3). */
  async listResources(mount: string): Promise<McpResource[]> {
    return this.#connection(mount).listResources();
  }

  /** Reads one resource of a mount's server. */
  async readResource(mount: string, uri: string, options?: RequestOptions): Promise<ResourceContents> {
    return this.#connection(mount).readResource(uri, options);
  }

  /** The prompts a mount's server lists (all pages; [] when it declares none). */
  async listPrompts(mount: string): Promise<McpPrompt[]> {
    return this.#connection(mount).listPrompts();
  }

  /** Gets one prompt of a mount's server, rendered with `args`. */
  async getPrompt(mount: string, name: string, args?: Record<string, string>, options?: RequestOptions): Promise<PromptResult> {
    return this.#connection(mount).getPrompt(name, args, options);
  }

  #connection(mount: string): McpConnection {
    const loaded = this.#snapshot.loaded.get(mount);
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
    const state = suspendedStateOf(this, this.#snapshot, this.#seen, this.#approvals.list());
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
    const mismatch = fingerprintMismatch(state, run.#snapshot);
    if (mismatch !== undefined) {
      await run.close();
      throw mismatch;
    }
    for (const id of state.seenBatchIds) run.#seen.add(id);
    for (const approval of state.pending ?? []) run.#approvals.add(approval);
    return run;
  }

  /** Closes every connection of the run. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#approvals.clear();
    await Promise.all([...this.#snapshot.loaded.values()].map((m) => m.release()));
  }

  /** `await using run = await NativeRun.start(…)` closes the run at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
