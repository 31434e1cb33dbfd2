/**
 * NativeRun: one execution of an agent through the strict batch pipeline.
 * It connects the agent's own mounts only (G3), freezes them in a snapshot
 * (B1), runs each batch through stage 1 and stages 2–6, and refreshes at the
 * batch boundary when the run changed its own assembly (F1–F4).
 */
import { randomUUID } from 'node:crypto';
import { AgtError } from '../errors.js';
import { type FrameworkOutcome, frameworkToolsFor } from '../framework/tools.js';
import { McpProber } from '../mcp/prober.js';
import type { Timeouts } from '../mcp/timeouts.js';
import { readAgent } from '../resources/agent-data.js';
import { rejectRemovedOptions } from '../resources/removed-options.js';
import type { ResourceService } from '../resources/service.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { checkBatch } from './batch-check.js';
import { type CallContext, processCall, recordSafely } from './call.js';
import { buildSnapshot, closeUnused, refreshSnapshot } from './refresh.js';
import type { RunSnapshot, SnapshotState } from './snapshot.js';
import type { AfterHook, AuditSink, BatchResult, BeforeHook, DelegateTool, PermissionPolicy, ToolBatch } from './types.js';

/** Options of {@link NativeRun.start}. */
export interface NativeRunOptions {
  agent: string;
  service: ResourceService;
  policy: PermissionPolicy;
  hooks?: { before?: BeforeHook[]; after?: AfterHook[] };
  audit?: AuditSink;
  delegates?: DelegateTool[];
  registry?: ToolSchemaRegistry;
  timeouts?: Partial<Timeouts>;
  /** How many calls of a batch run at once. Default 4. */
  concurrency?: number;
  /** Start even if some mounts fail to load (each becomes a notice). Default false: strict. */
  skipBrokenMounts?: boolean;
}

/** What `suspend()` returns: JSON, to be passed to `NativeRun.resume`. */
export interface SuspendedRun {
  version: 1;
  runId: string;
  agent: string;
  fingerprint: string;
  settingsHash: string;
  mountsHash: string;
  seenBatchIds: string[];
}

/** A tool as the model sees it. */
export interface ModelTool {
  name: string;
  description?: string;
  inputSchema: object;
}

/** One native run of an agent. */
export class NativeRun {
  readonly id: string;
  readonly agent: string;
  #snapshot: SnapshotState;
  readonly #options: NativeRunOptions;
  readonly #registry: ToolSchemaRegistry;
  readonly #prober: McpProber;
  readonly #seen = new Set<string>();
  readonly #broken = new Set<string>();
  #refreshPending = false;
  #closed = false;

  private constructor(id: string, snapshot: SnapshotState, options: NativeRunOptions, registry: ToolSchemaRegistry) {
    this.id = id;
    this.agent = options.agent;
    this.#snapshot = snapshot;
    this.#options = options;
    this.#registry = registry;
    this.#prober = new McpProber({ service: options.service, registry, ...(options.timeouts ? { timeouts: options.timeouts } : {}) });
  }

  /** Reads the agent, connects its mounts, lists and compiles their tools, and freezes the snapshot (B1). */
  static async start(options: NativeRunOptions): Promise<NativeRun> {
    return NativeRun.#open(randomUUID(), options);
  }

  static async #open(id: string, options: NativeRunOptions): Promise<NativeRun> {
    rejectRemovedOptions(options, 'NativeRun.start'); // A7: no allowMcp binding option
    if (options?.policy === undefined || typeof options.policy.review !== 'function') {
      throw new AgtError('invalid_input', 'NativeRun.start needs a permission policy (G4), e.g. policies.autoAllow([...]) or policies.human(ask)');
    }
    const agent = readAgent((await options.service.read({ kind: 'agent', reference: options.agent })).data);
    if (agent.kind === 'harness') throw new AgtError('forbidden', 'harness agents are driven by their harness; give them dynamic tools with HarnessToolSet');
    if (!agent.enabled) throw new AgtError('forbidden', `agent "${options.agent}" is disabled; enable its binding before dispatching work`);
    const registry = options.registry ?? new ToolSchemaRegistry();
    const snapshot = await buildSnapshot(agent, { ...context(options, registry), framework: frameworkToolsFor(agent) });
    return new NativeRun(id, snapshot, options, registry);
  }

  /** The frozen snapshot: fingerprint, mounts with revisions, aliases. */
  get snapshot(): RunSnapshot {
    return this.#snapshot;
  }

  /** Notices from loading (skipped tools or mounts). */
  get notices(): readonly string[] {
    return this.#snapshot.notices;
  }

  /** What the model sees: MCP tools by alias with their schema exactly as declared, framework and delegate tools by name. */
  tools(): ModelTool[] {
    return [...this.#snapshot.routes.values()].map((r) => ({ name: r.name, ...(r.description === undefined ? {} : { description: r.description }), inputSchema: r.inputSchema }));
  }

  /** Runs a batch: stage 1 for the whole batch (throws batch_rejected, B6), then each call; refreshes after the batch (F1). */
  async executeBatch(batch: ToolBatch): Promise<BatchResult> {
    if (this.#closed) throw new AgtError('connection_closed', 'this run is closed');
    const snapshot = this.#snapshot; // F2: the whole batch uses the snapshot it started with
    let routed;
    try {
      routed = checkBatch(batch, { runId: this.id, agent: this.agent, seenBatchIds: this.#seen, routes: snapshot.routes });
    } catch (error) {
      await recordSafely(this.#options.audit, { type: 'batch_rejected', at: new Date().toISOString(), runId: this.id, agent: this.agent, batchId: (batch as { batchId?: unknown })?.batchId ?? null, reason: (error as AgtError).details?.reason });
      throw error;
    }
    this.#seen.add(batch.batchId);
    const ctx = this.#callContext(batch.batchId, snapshot);
    const results = await mapLimit(routed, this.#options.concurrency ?? 4, ({ call, route }) => processCall(call, route, ctx));
    if (!this.#refreshPending) return { results };
    this.#refreshPending = false;
    return { results, refresh: await this.#refresh() };
  }

  #callContext(batchId: string, snapshot: SnapshotState): CallContext {
    const o = this.#options;
    return {
      runId: this.id, agent: this.agent, batchId, policy: o.policy,
      before: o.hooks?.before ?? [], after: o.hooks?.after ?? [], audit: o.audit,
      framework: { service: o.service, prober: this.#prober, agent: this.agent },
      brokenMounts: this.#broken,
      onFrameworkChange: (outcome) => {
        if (affects(outcome, this.agent, snapshot)) this.#refreshPending = true; // F1; other writes: F8
      },
    };
  }

  async #refresh(): Promise<BatchResult['refresh']> {
    const o = this.#options;
    const outcome = await refreshSnapshot(this.#snapshot, this.agent, { ...context(o, this.#registry), frameworkFor: frameworkToolsFor });
    if (outcome.ok) {
      const old = this.#snapshot;
      this.#snapshot = outcome.snapshot; // F3: switch only when everything is ready
      for (const mount of outcome.snapshot.loaded.keys()) this.#broken.delete(mount);
      await closeUnused(old, outcome.snapshot);
    }
    const message = outcome.ok ? `tools reloaded: ${outcome.snapshot.aliases.length} tools from ${outcome.snapshot.mounts.length} mounts` : `configuration saved, but loading failed: ${outcome.error.message}`;
    await recordSafely(o.audit, { type: 'refresh', at: new Date().toISOString(), runId: this.id, agent: this.agent, status: outcome.ok ? 'applied' : 'failed', message, ...(outcome.ok ? { fingerprint: outcome.snapshot.fingerprint } : { code: outcome.error.code }) });
    return { status: outcome.ok ? 'applied' : 'failed', message };
  }

  /** A JSON state to resume this run later; the run stays usable. */
  async suspend(): Promise<SuspendedRun> {
    const s = this.#snapshot;
    return { version: 1, runId: this.id, agent: this.agent, fingerprint: s.fingerprint, settingsHash: s.settingsHash, mountsHash: s.mountsHash, seenBatchIds: [...this.#seen] };
  }

  /** Resumes a suspended run if the stored configuration still has its fingerprint (F6, F7); else fingerprint_mismatch. */
  static async resume(state: SuspendedRun, options: Omit<NativeRunOptions, 'agent'>): Promise<NativeRun> {
    if (state?.version !== 1 || typeof state.runId !== 'string' || typeof state.agent !== 'string') {
      throw new AgtError('invalid_input', 'resume needs the object that suspend() returned');
    }
    const run = await NativeRun.#open(state.runId, { ...options, agent: state.agent });
    const now = run.#snapshot;
    const part = now.settingsHash !== state.settingsHash ? 'settings' : now.mountsHash !== state.mountsHash ? 'mounts' : undefined;
    if (part !== undefined) {
      await run.close();
      throw new AgtError('fingerprint_mismatch', `the run cannot resume: its ${part === 'settings' ? 'model, provider, base prompt, permissions or delegation' : 'mounted tools'} changed since it was suspended; start a new run`, {
        details: { part, expected: state.fingerprint, actual: now.fingerprint },
      });
    }
    for (const id of state.seenBatchIds) run.#seen.add(id);
    return run;
  }

  /** Closes every connection of the run. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#snapshot.loaded.values()].map((m) => m.connection.close()));
  }
}

function context(options: NativeRunOptions, registry: ToolSchemaRegistry) {
  return {
    service: options.service,
    registry,
    delegates: options.delegates ?? [],
    timeouts: options.timeouts,
    skipBrokenMounts: options.skipBrokenMounts ?? false,
  };
}

/** F1: a successful change of this agent, or of an mcp/skill it currently mounts. */
function affects(outcome: FrameworkOutcome, agent: string, snapshot: SnapshotState): boolean {
  const changed = outcome.changed;
  if (changed === undefined) return false;
  if (changed.kind === 'agent') return changed.reference === agent;
  if (changed.kind === 'mcp') return snapshot.loaded.has(changed.reference);
  return snapshot.skills.includes(changed.reference);
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  if (items.length === 1) return [await fn(items[0] as T)];
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

