/**
 * NativeRun: one execution of an agent through the strict batch pipeline.
 * It connects the agent's own mounts only (G3), freezes them in a snapshot
 * (B1), runs each batch through stage 1 and stages 2–6, and refreshes at the
 * batch boundary when the run changed its own assembly (F1–F4) or a mounted
 * server announced a list change — never mid-batch (F2).
 */
import type { SkillInfo } from '../skills/skill-set.js';
import { randomUUID } from 'node:crypto';
import { AgtError, type AgtErrorCode } from '../errors.js';
import { frameworkToolsFor } from '../framework/tools.js';
import type { ListChangedKind, McpConnection } from '../mcp/connection.js';
import { McpProber } from '../mcp/probe/prober.js';
import { readAgent } from '../resources/agent-data.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { RunAudit } from './audit/run-audit.js';
import { type RejectedBatch, RunBatches } from './run-batches.js';
import type { RecoverResult } from './pending/recover.js';
import { WaitingCalls } from './pending/waiting-calls.js';
import { buildSnapshot } from './assembly/refresh.js';
import { fingerprintMismatch, type RunStore, suspendedState } from './store/run-store.js';
import { type NativeRunOptions, type ResolvedRunOptions, resolveRunOptions, type SuspendedRun } from './run-options.js';
import { RunConnections, type RunParts } from './assembly/run-connections.js';
import { AppRun, type AppHost } from './apps/app-run.js';
import { CallWaiters } from './pending/call-waiters.js';
import { RunRefresher } from './assembly/refresher.js';
import { RunToolSearch } from './assembly/tool-search.js';
import type { ModelTool } from './model-tools.js';
import { RunResults } from './results/run-results.js';
import { type RunSnapshot, type SnapshotState, snapshotView } from './assembly/snapshot.js';
import type { BatchResult, CallDecision, InFlightView, PendingCall, ToolBatch } from './types.js';

/** One native run of an agent. */
export class NativeRun extends AppRun {
  readonly id: string;
  readonly agent: string;
  readonly #refresher: RunRefresher; // the run's snapshot and its refreshes at batch boundaries
  readonly #stale: Map<string, Set<ListChangedKind>>;
  readonly #seen = new Set<string>();
  readonly #broken = new Map<string, AgtErrorCode>();
  #closed: Promise<void> | undefined; // set as close() begins
  readonly #toolSearch: RunToolSearch;
  /** Stage 1, the calls through the pipeline, and each batch's boundary. */
  readonly #batches: RunBatches;
  /** The calls that wait (approvals, questions, tasks), in flight or decided, and every write of them to the run's store. */
  readonly #calls: WaitingCalls;
  /** Unknown options accepted because `strict` was false: the first of the run's notices. */
  readonly #optionWarnings: readonly string[];
  readonly #lost: string[] = []; // calls ended as their task's server ended with the run (closed, or found so at resume)
  readonly #waiters = new CallWaiters(); // run.awaitCall
  readonly #results: RunResults; // B8: results cut at the budget, read with result_read
  #apps: AppHost | undefined;

  private constructor(snapshot: SnapshotState, options: ResolvedRunOptions, parts: RunParts) {
    super();
    const { registry, connections, stale, inFlight } = parts;
    this.id = parts.runId;
    this.agent = options.agent;
    this.#optionWarnings = options.warnings;
    this.#stale = stale;
    this.#toolSearch = parts.toolSearch;
    const audit = new RunAudit(options.audit, this.id, this.agent);
    this.#results = new RunResults(options.resultBudget, registry);
    this.#refresher = new RunRefresher(snapshot, { agent: this.agent, options, registry, connections, stale, broken: this.#broken, audit });
    this.#calls = new WaitingCalls({
      run: { id: this.id, agent: this.agent },
      leaseMs: options.inFlightLeaseMs,
      retentionMs: options.decidedRetentionMs,
      state: () => ({
        snapshot: this.#refresher.snapshot,
        seen: this.#seen,
        loadedTools: this.#toolSearch.loadedTools(),
        results: this.#results.state(),
      }),
    });
    this.#batches = new RunBatches({
      run: {
        runId: this.id,
        options,
        prober: new McpProber(connections.prober(registry)),
        brokenMounts: this.#broken,
        inFlight,
        results: this.#results.kept,
      },
      audit,
      refresher: this.#refresher,
      toolSearch: this.#toolSearch,
      seen: this.#seen,
      answers: { registry, route: (method) => connections.questionRoute(method) },
      calls: this.#calls,
      waiters: this.#waiters,
      withRunTools: this.#results.routes,
    });
  }

  /** Reads the agent, connects its mounts, lists and compiles their tools, and freezes the snapshot (B1). */
  static async start(options: NativeRunOptions): Promise<NativeRun> {
    return NativeRun.#open(randomUUID(), options);
  }

  static async #open(id: string, given: NativeRunOptions): Promise<NativeRun> {
    const options = resolveRunOptions(given); // once for the run: a bad option fails before anything connects
    const agent = readAgent((await options.service.read({ kind: 'agent', reference: options.agent })).data);
    if (agent.kind === 'harness')
      throw new AgtError('forbidden', 'harness agents are driven by their harness; give them dynamic tools with HarnessToolSet');
    if (!agent.enabled) throw new AgtError('forbidden', `agent "${options.agent}" is disabled; enable its binding before dispatching work`);
    const registry = options.registry ?? options.pool?.registry ?? new ToolSchemaRegistry(); // pooled runs share compiled schemas
    const inFlight = new Map<string, Set<string>>();
    const parts: RunParts = {
      runId: id,
      registry,
      inFlight,
      connections: new RunConnections(options, { runId: id, agent: options.agent, inFlight }),
      stale: new Map(),
      toolSearch: new RunToolSearch(options.toolSearch, registry), // bad options fail before anything connects
    };
    const snapshot = await buildSnapshot(agent, { ...parts.connections.buildContext(parts), framework: frameworkToolsFor(agent) });
    return new NativeRun(snapshot, options, parts);
  }

  /** The snapshot as hosts see it, frozen: fingerprint, mounts with revisions, aliases (no connections or routes). */
  get snapshot(): RunSnapshot {
    return snapshotView(this.#refresher.snapshot);
  }

  /** Notices of unknown options (`strict: false`), from loading (skipped tools or mounts, unknown keys), of calls whose task's server ended. */
  get notices(): readonly string[] {
    const loading = this.#refresher.snapshot.notices;
    return this.#optionWarnings.length === 0 && this.#lost.length === 0 ? loading : [...this.#optionWarnings, ...loading, ...this.#lost];
  }

  /** Mounts whose server announced a list change since the last refresh (applied at the next boundary: a batch's start or end, or `refresh()`). */
  get staleMounts(): readonly string[] {
    return [...this.#stale.keys()];
  }

  /** What the model sees (U1): tools by alias or name; app-only tools only with `includeAppOnly`, deferred ones (tool search) with `includeDeferred`. */
  tools(options: { includeAppOnly?: boolean; includeDeferred?: boolean } = {}): ModelTool[] {
    const routes = this.#refresher.snapshot.routes;
    return this.#results.tools(this.#toolSearch.modelTools(routes, options, this.#batches.apps), routes);
  }

  /** The run's skills (K3): the agent's registry skills and its mounts', by name and description; read with `skill_read`. */
  skills(): SkillInfo[] {
    return this.#refresher.snapshot.skillSet.list();
  }

  /** Runs a batch: stage 1 for the whole batch (throws batch_rejected, B6), then each call; refreshes after it (F1). `signal` cancels this batch only. */
  executeBatch(batch: ToolBatch, options: { signal?: AbortSignal } = {}): Promise<BatchResult> {
    if (this.#closed) return Promise.reject(new AgtError('connection_closed', 'this run is closed'));
    return this.#batches.run(batch, options.signal, true); // no async frame of its own: the pipeline's cost per batch
  }

  /** executeBatch, with a batch stage 1 rejects given back as data (`rejected`: the reason, a message, every problem) instead of thrown. */
  runBatch(batch: ToolBatch, options: { signal?: AbortSignal } = {}): Promise<BatchResult | RejectedBatch> {
    if (this.#closed) return Promise.reject(new AgtError('connection_closed', 'this run is closed'));
    return this.#batches.run(batch, options.signal, false);
  }

  /**
   * Ends waiting calls of batch `batchId` with the host's decisions: an approval approved (run once its tool is checked
   * unchanged, else approval_stale) or rejected (permission_denied), a call's questions answered (`{ answers }`, checked:
   * invalid_input and it still waits) or declined. A stored run records the decision first (compare-and-set): of two
   * hosts deciding one call, one runs it and the other gets revision_conflict (docs/runtime.md).
   */
  async decide(batchId: string, decisions: Record<string, CallDecision>, options: { signal?: AbortSignal } = {}): Promise<BatchResult> {
    this.#live();
    return this.#batches.decide(batchId, decisions, options.signal);
  }

  /**
   * Collects the calls of batch `batchId` whose server's task ended (`tasks: 'defer'`, E6), each exactly once across
   * processes (compare-and-set, like decide), through the rest of the pipeline (output check, bound, after hooks,
   * budget). Waits up to `waitMs` for one (default 0: looks once). A task its server no longer knows ends task_lost.
   */
  async collect(batchId: string, options: { waitMs?: number; signal?: AbortSignal } = {}): Promise<BatchResult> {
    this.#live();
    const waitMs = options.waitMs ?? 0;
    if (!Number.isFinite(waitMs) || waitMs < 0)
      throw new AgtError('invalid_input', 'collect: waitMs must be a number of milliseconds, 0 or more', { details: { field: 'waitMs' } });
    return this.#batches.collect(batchId, waitMs, options.signal);
  }

  /** Cancels the task a waiting call `callId` of batch `batchId` runs as, on its server; the call ends cancelled (E6). */
  async cancel(batchId: string, callId: string, options: { signal?: AbortSignal } = {}): Promise<BatchResult> {
    this.#live();
    return this.#batches.cancel(batchId, callId, options.signal);
  }

  /**
   * Ends the decided calls of this stored run whose host died (their lease ran out): an `idempotentHint` tool runs
   * again here, any other ends `interrupted`. Of two hosts recovering one run, one does; the other gets revision_conflict.
   */
  async recover(options: { signal?: AbortSignal } = {}): Promise<RecoverResult> {
    this.#live();
    return this.#batches.recover(options.signal);
  }

  /** The decided calls running on a host (this one, or one that died), with their leases: a stored run's `inFlight`. */
  inFlightCalls(): InFlightView[] {
    return this.#calls.inFlight();
  }

  /**
   * The calls that wait (of one batch), in batch and call order, told apart by `waitingFor`: an approval (run.decide
   * approves or rejects it), a server's questions (run.decide answers them), a server's task (run.collect, run.cancel).
   */
  pending(batchId?: string): PendingCall[] {
    return this.#calls.pending(batchId);
  }

  /**
   * Applies now what changed since the last boundary — servers' list changes, the run's own changes (F1), pooled servers
   * that died — so `tools()` is current before the model is asked. Undefined when nothing changed or a batch runs.
   */
  async refresh(): Promise<BatchResult['refresh']> {
    this.#live();
    return this.#refresher.apply(true);
  }

  /** The connections of the run's mounts, by mount. */
  protected mountConnections(): ReadonlyMap<string, McpConnection> {
    return new Map(this.#closed ? [] : [...this.#refresher.snapshot.loaded].map(([mount, loaded]) => [mount, loaded.connection]));
  }

  /** What MCP Apps need of the run (app-run.ts). */
  protected appHost(): AppHost {
    return (this.#apps ??= {
      ...{ runId: this.id, agent: this.agent },
      open: () => this.#live(),
      routes: () => this.#refresher.snapshot.routes,
      connection: (mount) => this.mountConnection(mount),
      run: (batch, origin, signal) => this.#batches.run(batch, signal, true, origin),
      waits: (batchId, callId) =>
        [...this.#calls.waiting(), ...this.#calls.inFlight()].some((c) => c.batchId === batchId && c.callId === callId),
      wait: (batchId, callId, signal) => this.#waiters.wait(batchId, callId, signal),
    });
  }

  /** The connection of one of the run's own mounts (G3); not_found for anything else. */
  protected mountConnection(mount: string): McpConnection {
    const loaded = this.#refresher.snapshot.loaded.get(mount);
    if (this.#closed || loaded === undefined)
      throw new AgtError('not_found', `"${mount}" is not a mount of this run`, { details: { mount } });
    return loaded.connection;
  }

  /**
   * A JSON state to resume this run later; the run stays usable. With `store`, also written there, compare-and-set
   * against the revision this run last wrote or resumed from (revision_conflict when another host wrote it since).
   */
  suspend(options: { store?: RunStore } = {}): Promise<SuspendedRun> {
    return this.#calls.write(options.store);
  }

  /** Resumes a suspended run — its state, or its run id in `options.store` — if its configuration still has its fingerprint (F6, F7). */
  static async resume(target: SuspendedRun | string, options: Omit<NativeRunOptions, 'agent'> & { store?: RunStore }): Promise<NativeRun> {
    const { store, ...own } = options; // the store is resume's, not a run option
    const { state, revision } = await suspendedState(target, store);
    const run = await NativeRun.#open(state.runId, { ...own, agent: state.agent });
    const mismatch = fingerprintMismatch(state, run.#refresher.snapshot);
    if (mismatch !== undefined) {
      await run.close();
      throw mismatch;
    }
    for (const id of state.seenBatchIds) run.#seen.add(id);
    run.#calls.load(state, revision, typeof target === 'string' ? options.store : undefined);
    run.#toolSearch.restore(state.loadedTools ?? [], run.#refresher.snapshot.routes);
    run.#results.load(state.results); // B8: a resumed run reads on what was cut before
    // A JSON state's tasks on stdio servers of the run's own: a server started anew that does not know one ends its call now.
    if (typeof target !== 'string') run.#lost.push(...(await run.#batches.endLostTasks('resumed')));
    return run;
  }

  /**
   * Closes every connection of the run. A call waiting on a task of a stdio server of its own (not a pool's lease, not
   * one a resume from a store took over) ends task_lost (`server_ended`), written to its store and said in `notices`.
   */
  close(): Promise<void> {
    return (this.#closed ??= (async () => {
      try {
        this.#lost.push(...(await this.#batches.endLostTasks('closed')));
      } finally {
        this.#waiters.clear(new AgtError('connection_closed', 'the run closed before the call ended'));
        this.#calls.clear();
        await Promise.all([...this.#refresher.snapshot.loaded.values()].map((m) => m.release()));
      }
    })()); // a second close (at once, or later) settles as the first does
  }

  // Throws connection_closed once close() began.
  #live(): void {
    if (this.#closed) throw new AgtError('connection_closed', 'this run is closed');
  }

  /** `await using run = await NativeRun.start(…)` closes the run at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
