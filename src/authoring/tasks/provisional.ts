/**
 * Tasks not yet stored (issue 64). On 2026-07-28 a kit task tool's call waits
 * up to the server's grace for its handler; a handler that ends within it is
 * answered as a plain call, so nobody can ever name its task. Such a task is
 * held here, in this process, while the grace runs: its record and every
 * change of it stay out of the task store, and only a task the call is
 * answered with is stored (`commit`) — a quick call costs no store write.
 * Everything else reads and writes through here as through the store.
 */
import type { TaskRecord, TaskStore } from './store.js';

/** The task store, with the records of tasks still in their grace held in memory. */
export class TaskRecords {
  readonly #held = new Map<string, TaskRecord>();
  readonly #store: TaskStore;

  constructor(store: TaskStore) {
    this.#store = store;
  }

  /** Holds a new task's record here instead of storing it (until `commit` or `forget`). */
  hold(record: TaskRecord): void {
    this.#held.set(record.taskId, record);
  }

  /** The held record, else what the store holds. */
  get(taskId: string): Promise<TaskRecord | undefined> {
    const held = this.#held.get(taskId);
    return held === undefined ? this.#store.get(taskId) : Promise.resolve(held);
  }

  /** Writes a record: a held one stays held (changed), any other is stored. */
  put(record: TaskRecord): Promise<void> {
    if (!this.#held.has(record.taskId)) return this.#store.put(record);
    this.#held.set(record.taskId, record);
    return Promise.resolve();
  }

  /** Stores a held task as it is now (its call is answered with it); nothing for a task not held. */
  async commit(taskId: string): Promise<void> {
    const held = this.#held.get(taskId);
    if (held === undefined) return;
    await this.#store.put(held);
    this.#held.delete(taskId); // after the write: a read meanwhile still finds it
  }

  /** A task answered as a plain call: a held one is dropped; a stored one is stored again expired (best effort). */
  forget(record: TaskRecord): void {
    if (this.#held.delete(record.taskId)) return;
    void this.#store.put({ ...record, ttlMs: 0 }).catch(() => undefined);
  }

  /** Drops a held task (its commit failed: its handler was stopped). */
  drop(taskId: string): void {
    this.#held.delete(taskId);
  }

  /** Drops every held task (the server closes). */
  clear(): void {
    this.#held.clear();
  }
}
