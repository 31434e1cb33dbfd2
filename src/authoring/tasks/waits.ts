/**
 * Waiting on a kit task another server runs (a 2025 `tasks/result` of a task
 * in a store shared by several processes): the store is read once per task
 * and poll interval, that read shared by every request waiting on the task
 * (issue 58 #12). A request whose client went away stays until its session
 * closes (the SDK keeps it: a 2025 client may resume its stream), so one read
 * each would let a client multiply the store's load by the requests it
 * abandons.
 */
import type { TaskRecord, TaskStore } from './store.js';

interface Waiter {
  settle(read: { record: unknown } | { error: unknown }): void;
}

interface Poll {
  waiters: Set<Waiter>;
  timer: NodeJS.Timeout;
}

/** One shared read of the store per waited-on task and interval. */
export class SharedPolls {
  readonly #polls = new Map<string, Poll>();
  readonly #store: TaskStore;
  readonly #intervalMs: number;

  constructor(store: TaskStore, intervalMs: number) {
    this.#store = store;
    this.#intervalMs = intervalMs;
  }

  /** What the store holds for `taskId` at its next read (shared with every other waiter), or `signal`'s reason. */
  next(taskId: string, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) return Promise.reject(signal.reason);
    let poll = this.#polls.get(taskId);
    if (poll === undefined) {
      const started: Poll = { waiters: new Set(), timer: setTimeout(() => void this.#read(taskId, started), this.#intervalMs) };
      this.#polls.set(taskId, started);
      poll = started;
    }
    const current = poll;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        settle(read) {
          signal.removeEventListener('abort', aborted);
          if ('error' in read) reject(read.error);
          else resolve(read.record);
        },
      };
      const aborted = () => {
        current.waiters.delete(waiter);
        // The last waiter gone: nobody needs the read.
        if (current.waiters.size === 0 && this.#polls.get(taskId) === current) {
          clearTimeout(current.timer);
          this.#polls.delete(taskId);
        }
        reject(signal.reason);
      };
      current.waiters.add(waiter);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  async #read(taskId: string, poll: Poll): Promise<void> {
    this.#polls.delete(taskId); // a waiter arriving from now on waits for the next read
    let read: { record: unknown } | { error: unknown };
    try {
      read = { record: await this.#store.get(taskId) };
    } catch (error) {
      read = { error };
    }
    for (const waiter of poll.waiters) waiter.settle(read);
  }
}

/** The next change of a task this server runs, from its `changed` listeners (its record; undefined: read it again), or `signal`'s reason. */
export function changeOf(changed: Set<(record?: TaskRecord) => void>, signal: AbortSignal): Promise<TaskRecord | undefined> {
  return new Promise((resolve, reject) => {
    const done = (record?: TaskRecord) => {
      changed.delete(done);
      signal.removeEventListener('abort', aborted);
      resolve(record);
    };
    const aborted = () => {
      changed.delete(done);
      reject(signal.reason);
    };
    changed.add(done);
    signal.addEventListener('abort', aborted, { once: true });
  });
}
