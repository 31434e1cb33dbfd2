/**
 * A run's snapshot and its refreshes at batch boundaries (F1–F4): what
 * changed since the last boundary — the run's own configuration (F1), list
 * changes its servers announced, pooled servers that died — is applied at
 * most once at a time and never while calls of a batch run (F2); the snapshot
 * switches only when everything is ready (F3); a failure keeps the old one
 * and is told (F4), but a restart failing again for the same reason is not
 * news.
 */
import type { AgtErrorCode } from '../../errors.js';
import { frameworkToolsFor } from '../../framework/tools.js';
import type { ListChangedKind } from '../../mcp/connection.js';
import type { ToolSchemaRegistry } from '../../schema/registry.js';
import { closeUnused, refreshSnapshot, relistSnapshot } from './refresh.js';
import type { RefreshCause, RunAudit } from '../audit/run-audit.js';
import type { RunConnections } from './run-connections.js';
import type { ResolvedRunOptions } from '../run-options.js';
import type { SnapshotState } from './snapshot.js';
import type { BatchResult } from '../types.js';

/** What refreshing a run needs from it. */
export interface RefresherParts {
  agent: string;
  options: ResolvedRunOptions;
  registry: ToolSchemaRegistry;
  connections: RunConnections;
  /** Mounts whose server announced a list change, with what changed. */
  stale: Map<string, Set<ListChangedKind>>;
  /** Mounts whose server died, with the code their calls fail with. */
  broken: Map<string, AgtErrorCode>;
  audit: RunAudit;
}

/** The snapshot of a run and its boundary refreshes. */
export class RunRefresher {
  snapshot: SnapshotState;
  /** The run changed its own mounts (F1): reload at the next boundary. */
  frameworkChanged = false;
  /** Batches whose calls are running: no refresh swaps connections from under them. */
  running = 0;
  readonly #parts: RefresherParts;
  #refreshing: Promise<BatchResult['refresh']> | undefined;

  constructor(snapshot: SnapshotState, parts: RefresherParts) {
    this.snapshot = snapshot;
    this.#parts = parts;
  }

  /**
   * Applies what changed, once (concurrent callers share it); nothing while a
   * batch runs. `reopen`: also lease again pooled mounts whose server died
   * (at the start of a batch, not at its end: once per batch).
   */
  apply(reopen: boolean): Promise<BatchResult['refresh']> | undefined {
    if (this.running > 0 || (this.#refreshing === undefined && !this.#pending(reopen))) return undefined; // the usual case: no promise
    this.#refreshing ??= this.#changed(reopen).finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  #pending(reopen: boolean): boolean {
    if (this.frameworkChanged || this.#parts.stale.size > 0) return true;
    if (!reopen || this.#parts.options.pool === undefined) return false;
    for (const mount of this.snapshot.loaded.values()) if (mount.connection.closed) return true;
    return false;
  }

  // A pooled mount whose server died is leased again (the pool starts it once for all its runs).
  #dead(reopen: boolean): string[] {
    if (!reopen || this.#parts.options.pool === undefined) return [];
    return [...this.snapshot.loaded.values()].filter((m) => m.connection.closed).map((m) => m.reference);
  }

  async #changed(reopen: boolean): Promise<BatchResult['refresh']> {
    const { stale, broken } = this.#parts;
    const framework = this.frameworkChanged;
    const dead = this.#dead(reopen);
    if (!framework && stale.size === 0 && dead.length === 0) return undefined;
    const announced = new Map(stale);
    stale.clear();
    this.frameworkChanged = false;
    const before = dead.map((m) => broken.get(m));
    const refresh = await this.#refresh({ framework, stale: announced, reopen: dead });
    const repeated = !framework && announced.size === 0 && refresh.status === 'failed' && dead.every((m, i) => broken.get(m) === before[i]);
    return repeated ? undefined : refresh;
  }

  async #refresh(cause: RefreshCause): Promise<NonNullable<BatchResult['refresh']>> {
    const { agent, registry, connections, stale, broken, audit } = this.#parts;
    const ctx = connections.buildContext({ registry, stale });
    const relist = new Set(cause.stale.keys());
    const started = performance.now();
    const outcome = cause.framework
      ? await refreshSnapshot(this.snapshot, agent, { ...ctx, frameworkFor: frameworkToolsFor }, relist)
      : await relistSnapshot(this.snapshot, relist, ctx, new Set(cause.reopen)); // F8: never reads the stored configuration
    if (!outcome.ok) for (const mount of cause.reopen) broken.set(mount, outcome.error.code); // their calls fail with why
    if (outcome.ok) {
      const old = this.snapshot;
      this.snapshot = outcome.snapshot; // F3: switch only when everything is ready
      for (const mount of outcome.snapshot.loaded.keys()) broken.delete(mount);
      await closeUnused(old, outcome.snapshot);
    }
    return audit.refresh(cause, outcome, started);
  }
}
