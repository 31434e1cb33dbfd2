/**
 * MemoryRunStore: suspended runs in this process (tests and single-host use),
 * announcing its writes to watchers in this process.
 */
import { checkExpectedRevision } from '../resources/conflict.js';
import {
  announcementOf,
  checkRunListFilter,
  checkRunWrite,
  readableRun,
  type RunAnnouncement,
  type RunListFilter,
  type RunStore,
  type RunWatch,
  type RunWrite,
  type StoredRun,
  WAITING_FORMAT,
} from './run-store.js';

const copy = <T>(value: T): T => structuredClone(value);

/** A RunStore in memory (one process; tests and single-host use); `watch` announces its writes in this process. */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();
  readonly #watchers = new Set<(announcement: RunAnnouncement) => void>();

  /** {@inheritDoc RunStore.get} */
  async get(runId: string): Promise<StoredRun | undefined> {
    const run = this.#runs.get(runId);
    return run === undefined ? undefined : readableRun(copy(run));
  }

  /** {@inheritDoc RunStore.list} */
  async list(filter?: RunListFilter): Promise<StoredRun[]> {
    const { agent, waiting, limit, cursor } = checkRunListFilter(filter);
    return [...this.#runs.values()]
      .filter(
        (r) =>
          (agent === undefined || r.agent === agent) &&
          (waiting !== true || r.state.version >= WAITING_FORMAT) &&
          (cursor === undefined || r.runId > cursor),
      )
      .sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
      .slice(0, limit)
      .map(copy);
  }

  /** {@inheritDoc RunStore.put} */
  async put(run: RunWrite, options: { expectedRevision: number | null }): Promise<StoredRun> {
    const expected = checkRunWrite(run, options);
    const current = this.#runs.get(run.runId);
    checkExpectedRevision({ runId: run.runId }, expected, current?.revision ?? null);
    const now = new Date().toISOString();
    const stored: StoredRun = {
      runId: run.runId,
      agent: run.agent,
      revision: (current?.revision ?? 0) + 1,
      state: copy(run.state),
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    this.#runs.set(run.runId, stored);
    const announcement = this.#watchers.size > 0 ? announcementOf(run, stored.revision) : undefined;
    if (announcement !== undefined) for (const listener of this.#watchers) queueMicrotask(() => listener(structuredClone(announcement))); // after the write returns
    return copy(stored);
  }

  /** {@inheritDoc RunStore.watch} */
  async watch(listener: (announcement: RunAnnouncement) => void): Promise<RunWatch> {
    // One entry per watch, even for the same listener; a listener that throws is its own concern, not the writer's.
    const own = (announcement: RunAnnouncement) => {
      try {
        listener(announcement);
      } catch {
        // ignored: the write landed, and other watchers are still told
      }
    };
    this.#watchers.add(own);
    const stop = async () => void this.#watchers.delete(own);
    return { stop, close: stop };
  }

  /** {@inheritDoc RunStore.delete} */
  async delete(runId: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    checkExpectedRevision({ runId }, options.expectedRevision, this.#runs.get(runId)?.revision ?? null);
    return this.#runs.delete(runId);
  }

  /** Ends every watch; nothing else to release (here so that `await using` works for every store). */
  async close(): Promise<void> {
    this.#watchers.clear();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
