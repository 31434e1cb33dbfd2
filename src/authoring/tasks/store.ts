/**
 * Where a kit server keeps its tasks: their status, and their result or error
 * once they end, for the task's TTL. The default keeps them in memory, so a
 * task is gone with the process; a store of its own (a database, a file) keeps
 * ended tasks readable after a restart — a task still running when its
 * process ends is never finished by another: the kit ends it failed when it
 * next reads it (orphans.ts). Records are plain JSON; expired ones are dropped
 * as the store is read, with no timer of its own.
 */

/** A task's status, as both eras name it. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** One task as a kit server keeps it. */
export interface TaskRecord {
  taskId: string;
  /** The tool it runs, and who started it (a task is read and cancelled by its caller only; null: anonymous). */
  tool: string;
  owner: string | null;
  /** The 2025 session of the anonymous caller that started it: tasks/list shows it to that session only. */
  session?: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long after createdAt the task is kept, in ms (null: as long as the process). */
  ttlMs: number | null;
  pollIntervalMs: number;
  /** The tool's result (completed). */
  result?: Record<string, unknown>;
  /** The JSON-RPC error it ended with (failed). */
  error?: { code: number; message: string; data?: unknown };
  /** The questions it waits on (input_required), by key, as the 2026-07-28 era carries them. */
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  /**
   * The process that runs it (its machine, pid and, on Linux, start): a task read as running whose process ended is
   * ended failed ("the server restarted…"), not left `working` until its TTL.
   */
  runner?: { host: string; pid: number; since?: string };
}

/** A kit server's task store: the memory one by default; give one of your own to keep results past a restart. */
export interface TaskStore {
  get(taskId: string): Promise<TaskRecord | undefined>;
  put(record: TaskRecord): Promise<void>;
  /** The tasks of one owner, newest first (`tasks/list` of the 2025 era). */
  list(owner: string | null): Promise<TaskRecord[]>;
}

/** True when a task's TTL ran out at `now`. */
export const expired = (record: TaskRecord, now = Date.now()): boolean =>
  record.ttlMs !== null && Date.parse(record.createdAt) + record.ttlMs <= now;

/** The most tasks the memory store keeps; beyond it the oldest ended ones go first. */
export const MAX_MEMORY_TASKS = 10_000;

/** Tasks in this process's memory, each kept until its TTL ends. */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();

  /** The task, unless it expired. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = this.#tasks.get(taskId);
    if (record === undefined || !expired(record)) return record;
    this.#tasks.delete(taskId);
    return undefined;
  }

  /** Stores the task as given (a copy). */
  async put(record: TaskRecord): Promise<void> {
    this.#tasks.delete(record.taskId); // re-inserted last: the map keeps the most recently written last
    this.#tasks.set(record.taskId, structuredClone(record));
    if (this.#tasks.size > MAX_MEMORY_TASKS) this.#sweep();
  }

  /** The tasks of `owner` that have not expired, newest first. */
  async list(owner: string | null): Promise<TaskRecord[]> {
    this.#sweep();
    return [...this.#tasks.values()].filter((r) => r.owner === owner).reverse();
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, record] of this.#tasks) if (expired(record, now)) this.#tasks.delete(id);
    for (const [id, record] of this.#tasks) {
      if (this.#tasks.size <= MAX_MEMORY_TASKS) break;
      if (record.status === 'completed' || record.status === 'failed' || record.status === 'cancelled') this.#tasks.delete(id);
    }
  }
}
