/**
 * The writes of each task, one after another (issue 60): a task's record is
 * read, changed and written back, and a store may take its time over each
 * (a database over the network). Two writes of one task that overlap could
 * land out of order — a progress message a tool did not await landing after
 * the task's end would set it `working` again, its result never served. So
 * each task's writes run in the order they were asked for, each after the
 * one before settled; a write that fails is its caller's error, and the ones
 * after it still run. A task with no write queued or under way holds nothing
 * here: a long-lived host keeps no entry per ended task.
 */
import type { TaskRecord } from './store.js';

/** One write not yet begun, that a mergeable change queued right after it joins. */
interface Queued {
  change: Partial<TaskRecord>;
  done: Promise<void>;
}

interface Chain {
  /** Settles (never rejects) when the last write queued has settled. */
  tail: Promise<void>;
  /** The last write queued, while it has not begun and was queued mergeable. */
  open?: Queued;
}

const settled = () => undefined;

/** The writes of each task, in order (see the module's doc). */
export class TaskWrites {
  readonly #chains = new Map<string, Chain>();

  /**
   * Runs `write(change)` once every write queued before it for task `taskId` settled, and settles as it does. A
   * `mergeable` change queued right behind another mergeable one that has not begun joins it (its fields win): a tool
   * that says how it goes faster than the store writes queues one write, not one per message.
   */
  queue(
    taskId: string,
    change: Partial<TaskRecord>,
    write: (change: Partial<TaskRecord>) => Promise<void>,
    mergeable = false,
  ): Promise<void> {
    const chain = this.#chains.get(taskId) ?? { tail: Promise.resolve() };
    if (mergeable && chain.open !== undefined) {
      Object.assign(chain.open.change, change);
      return chain.open.done;
    }
    const queued: Queued = { change: { ...change }, done: Promise.resolve() };
    queued.done = chain.tail.then(() => {
      if (chain.open === queued) delete chain.open;
      return write(queued.change);
    });
    chain.open = mergeable ? queued : undefined;
    // The chain goes on past a failed write; its failure stays with the caller of the write that failed.
    const tail = queued.done.then(settled, settled);
    chain.tail = tail;
    this.#chains.set(taskId, chain);
    void tail.then(() => {
      if (chain.tail === tail && this.#chains.get(taskId) === chain) this.#chains.delete(taskId);
    });
    return queued.done;
  }

  /** Forgets task `taskId`'s writes (its TTL ended): a write its store never settles holds nothing here past that. */
  forget(taskId: string): void {
    this.#chains.delete(taskId);
  }

  /** How many tasks have a write queued or under way (none once every write settled). */
  get size(): number {
    return this.#chains.size;
  }
}
