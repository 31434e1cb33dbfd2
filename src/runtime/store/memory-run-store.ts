/**
 * MemoryRunStore: suspended runs in this process (tests and single-host use),
 * announcing its writes to watchers in this process.
 */
import { checkExpectedRevision } from '../../resources/conflict.js';
import {
  announcementOf,
  checkRunId,
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
import { checkRunWatch, type RunWatchOptions } from './run-watch.js';

const copy = <T>(value: T): T => structuredClone(value);

/**
 * Orders two strings by code point, as SQLite and PostgreSQL (`COLLATE "C"`) order UTF-8 (E8; issue 58 #22). JS `<`
 * compares UTF-16 units, which puts U+10000 and up (surrogates, 0xD800–0xDFFF) before U+E000–U+FFFF; at the first unit
 * that differs, surrogates are moved above 0xFFFF's units so that one comparison settles it.
 */
function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) return unitRank(x) - unitRank(y);
    return x - y;
  }
  return a.length - b.length;
}

// A unit of 0xD800 or more, ranked in code-point order: surrogates (astral code points) after 0xE000–0xFFFF.
const unitRank = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

/** A RunStore in memory (one process; tests and single-host use); `watch` announces its writes in this process. */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();
  readonly #watchers = new Set<(announcement: RunAnnouncement) => void>();

  /** {@inheritDoc RunStore.get} */
  async get(runId: string): Promise<StoredRun | undefined> {
    checkRunId(runId, 'RunStore.get');
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
          (cursor === undefined || compareCodePoints(r.runId, cursor) > 0),
      )
      .sort((a, b) => compareCodePoints(a.runId, b.runId))
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

  /** {@inheritDoc RunStore.watch} (In memory nothing is lost between a write and its watchers: `onGap` is never called.) */
  async watch(listener: (announcement: RunAnnouncement) => void, options?: RunWatchOptions): Promise<RunWatch> {
    checkRunWatch(listener, options, 'MemoryRunStore.watch');
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
    checkRunId(runId, 'RunStore.delete');
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
