/**
 * Where a kit server keeps its tasks: their status, and their result or error
 * once they end, for the task's TTL. The default keeps them in memory, so a
 * task is gone with the process; a store of its own (a database, a file) keeps
 * ended tasks readable after a restart — a task still running when its
 * process ends is never finished by another: the kit ends it failed when it
 * next reads it (orphans.ts). Records are plain JSON; expired ones are dropped
 * as the store is read, with no timer of its own.
 */
import { MAX_MEMORY_TASK_CHARS, MAX_MEMORY_TASKS } from '../../bounds.js';
import { AgtError } from '../../errors.js';

/** A task's status, as both eras name it. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

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

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /** The most it holds, in characters of its records' JSON (results included). Default MAX_MEMORY_TASK_CHARS (64 Mi). */
  maxChars?: number;
}

/**
 * Tasks in this process's memory, each kept until its TTL ends, bounded in count (MAX_MEMORY_TASKS) and in size
 * (`maxChars`): past either the oldest ended tasks go first, so results a caller sizes cannot fill the server's memory
 * (issue 58 #4); a record larger than `maxChars` on its own is refused (its task ends failed, not kept).
 */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, { record: TaskRecord; chars: number }>();
  readonly #maxChars: number;
  #chars = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    const max = options.maxChars ?? MAX_MEMORY_TASK_CHARS;
    if (!Number.isSafeInteger(max) || max < 1)
      throw new AgtError('invalid_input', 'MemoryTaskStore: maxChars must be a whole number of characters, at least 1', {
        details: { field: 'maxChars' },
      });
    this.#maxChars = max;
  }

  /** The task, unless it expired. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const held = this.#tasks.get(taskId);
    if (held === undefined || !expired(held.record)) return held?.record;
    this.#drop(taskId);
    return undefined;
  }

  /** Stores the task as given (a copy); refused when it alone is larger than `maxChars`. */
  async put(record: TaskRecord): Promise<void> {
    const chars = JSON.stringify(record).length;
    if (chars > this.#maxChars)
      throw new AgtError(
        'store_unavailable',
        `the task is larger than the memory task store holds (maxChars ${this.#maxChars}); nothing was written`,
        {
          details: { reason: 'too_large' },
        },
      );
    this.#drop(record.taskId); // re-inserted last: the map keeps the most recently written last
    this.#tasks.set(record.taskId, { record: structuredClone(record), chars });
    this.#chars += chars;
    if (this.#tasks.size > MAX_MEMORY_TASKS || this.#chars > this.#maxChars) this.#sweep();
  }

  /** The tasks of `owner` that have not expired, newest first. */
  async list(owner: string | null): Promise<TaskRecord[]> {
    this.#sweep();
    return [...this.#tasks.values()].flatMap((held) => (held.record.owner === owner ? [held.record] : [])).reverse();
  }

  #drop(taskId: string): void {
    this.#chars -= this.#tasks.get(taskId)?.chars ?? 0;
    this.#tasks.delete(taskId);
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, held] of this.#tasks) if (expired(held.record, now)) this.#drop(id);
    for (const [id, held] of this.#tasks) {
      if (this.#tasks.size <= MAX_MEMORY_TASKS && this.#chars <= this.#maxChars) break;
      if (TERMINAL_STATUSES.has(held.record.status)) this.#drop(id);
    }
  }
}
