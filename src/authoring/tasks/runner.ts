/**
 * The tasks of one kit server: a handler started as a task runs on after the
 * `tools/call` that started it was answered with the task. Its record is in
 * the task store from before that answer (so a `tasks/get` right after it
 * finds the task), and follows it: working, input_required while a question
 * waits for `tasks/update` (2026-07-28), then completed, failed or cancelled.
 * `tasks/cancel` aborts the handler's `ctx.signal` and ends the task
 * cancelled at once (cancellation is cooperative: what the handler does after
 * is not its result). Only the caller that started a task reads or cancels it.
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { MAX_TASK_TTL_MS } from '../../bounds.js';
import { isPlainObject } from '../../json.js';
import { expired, MemoryTaskStore, type TaskRecord, type TaskStatus, type TaskStore } from './store.js';

/** How a kit server runs its tasks. */
export interface TaskServingOptions {
  /** Where tasks are kept. Default: memory (gone with the process). */
  store?: TaskStore;
  /** How long a task and its result are kept, in ms, unless a 2025 client asks for less. Default one hour. */
  ttlMs?: number;
  /** The poll interval the server asks of clients, in ms. Default 500. */
  pollIntervalMs?: number;
}

/** What a running task's handler may do beyond its result: say how it goes, and ask (2026-07-28). */
export interface TaskControl {
  signal: AbortSignal;
  /** Sets the task's statusMessage. */
  status(message: string): Promise<void>;
  /** Asks the client a question through the task (input_required, answered by tasks/update) and waits for its answer. */
  ask(request: { method: string; params?: Record<string, unknown> }): Promise<unknown>;
}

const DEFAULT_TTL_MS = 60 * 60_000;
const DEFAULT_POLL_MS = 500;
const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

interface Running {
  controller: AbortController;
  /** Questions asked and not answered, by key: each resolves with its answer. */
  waiting: Map<string, { request: { method: string; params?: Record<string, unknown> }; answer(value: unknown): void }>;
  asked: number;
  /** Told of every change of this task (tasks/result of the 2025 era waits on them). */
  changed: Set<() => void>;
  /** Tells the client of the task's changes (2025 `notifications/tasks/status`), best effort. */
  notify?: (record: TaskRecord) => void;
}

/** The unknown-task error both eras answer with (no task, an expired one, or another caller's). */
export const unknownTask = () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'unknown task: no task of this caller has that taskId');

/** The tasks of one kit server. */
export class KitTasks {
  readonly store: TaskStore;
  readonly #ttlMs: number;
  readonly #pollMs: number;
  readonly #running = new Map<string, Running>();

  constructor(options: TaskServingOptions = {}) {
    this.store = options.store ?? new MemoryTaskStore();
    this.#ttlMs = Math.min(options.ttlMs ?? DEFAULT_TTL_MS, MAX_TASK_TTL_MS);
    this.#pollMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  }

  /** Starts `run` as a task of `owner` and returns its first record (already stored). */
  async start(
    tool: string,
    owner: string | null,
    requestedTtlMs: number | undefined,
    run: (control: TaskControl) => Promise<Record<string, unknown>>,
    notify?: (record: TaskRecord) => void,
  ): Promise<TaskRecord> {
    const now = new Date().toISOString();
    const ttlMs = requestedTtlMs !== undefined && requestedTtlMs >= 0 ? Math.min(requestedTtlMs, this.#ttlMs) : this.#ttlMs;
    const record: TaskRecord = {
      taskId: randomUUID(),
      tool,
      owner,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.#pollMs,
    };
    await this.store.put(record);
    const running: Running = {
      controller: new AbortController(),
      waiting: new Map(),
      asked: 0,
      changed: new Set(),
      ...(notify ? { notify } : {}),
    };
    this.#running.set(record.taskId, running);
    // A handler still running when its task's TTL ends is stopped: nobody can read what it would return.
    const expiry = setTimeout(() => running.controller.abort(new Error('the task outlived its TTL')), ttlMs);
    expiry.unref();
    // A store that cannot write the task's end leaves it as last stored (its TTL ends it); the process goes on.
    void this.#drive(record.taskId, running, run)
      .catch(() => undefined)
      .finally(() => clearTimeout(expiry));
    return record;
  }

  async #drive(taskId: string, running: Running, run: (control: TaskControl) => Promise<Record<string, unknown>>): Promise<void> {
    const control: TaskControl = {
      signal: running.controller.signal,
      status: (message) => this.#change(taskId, { statusMessage: message.slice(0, 500) }),
      ask: (request) =>
        new Promise((resolve) => {
          const key = `t${++running.asked}`; // unique over the task's life, as the extension asks
          running.waiting.set(key, { request, answer: resolve });
          this.#change(taskId, { status: 'input_required', inputRequests: this.#questions(running) }).catch(() => undefined);
        }),
    };
    let end: Partial<TaskRecord>;
    // A result the store refuses (too large for it, say) ends the task failed, so its client does not wait for its
    // TTL; a store that refuses that too leaves the task as last stored.
    const unstored = (error: unknown) => {
      if (end.status !== 'completed') throw error;
      const message = 'the task completed, but its result could not be stored';
      return this.#change(taskId, {
        status: 'failed',
        error: { code: ProtocolErrorCode.InternalError, message },
        statusMessage: message,
        inputRequests: undefined,
      });
    };
    try {
      end = { status: 'completed', result: await run(control) };
    } catch (error) {
      const failure = error instanceof ProtocolError ? error : new ProtocolError(ProtocolErrorCode.InternalError, 'the task failed');
      // A failed task's statusMessage says why (2025-11-25: clients show it), not what its last progress said.
      end = { status: 'failed', error: { code: failure.code, message: failure.message }, statusMessage: failure.message };
    }
    try {
      if (!running.controller.signal.aborted) await this.#change(taskId, { ...end, inputRequests: undefined }).catch(unstored);
    } finally {
      this.#running.delete(taskId);
      for (const tell of running.changed) tell();
    }
  }

  #questions(running: Running): TaskRecord['inputRequests'] {
    return Object.fromEntries([...running.waiting].map(([key, w]) => [key, w.request]));
  }

  // Writes a change of a task that has not ended (an ended task never changes again).
  async #change(taskId: string, change: Partial<TaskRecord>): Promise<void> {
    const record = await this.store.get(taskId);
    if (record === undefined || TERMINAL.has(record.status)) return;
    const next: TaskRecord = { ...record, ...change, lastUpdatedAt: new Date().toISOString() };
    for (const key of Object.keys(next) as (keyof TaskRecord)[]) if (next[key] === undefined) delete next[key];
    await this.store.put(next);
    const running = this.#running.get(taskId);
    for (const tell of running?.changed ?? []) tell();
    try {
      running?.notify?.(next);
    } catch {
      // a client that cannot be told polls
    }
  }

  /** The task as its owner sees it; an unknown, expired or foreign one is the unknown-task error. */
  async get(taskId: unknown, owner: string | null): Promise<TaskRecord> {
    const record = typeof taskId === 'string' ? await this.store.get(taskId) : undefined;
    if (record === undefined || record.owner !== owner || expired(record)) throw unknownTask();
    return record;
  }

  /** Cancels a task that has not ended: its handler's signal aborts, and it ends cancelled. */
  async cancel(taskId: unknown, owner: string | null): Promise<TaskRecord> {
    const record = await this.get(taskId, owner);
    if (TERMINAL.has(record.status)) return record;
    const running = this.#running.get(record.taskId);
    running?.controller.abort(new Error('the task was cancelled'));
    await this.#change(record.taskId, { status: 'cancelled', inputRequests: undefined });
    return this.get(record.taskId, owner);
  }

  /** Answers questions a task waits on (2026-07-28 tasks/update); answers to keys not outstanding are ignored. */
  async update(taskId: unknown, owner: string | null, responses: unknown): Promise<void> {
    const record = await this.get(taskId, owner);
    const running = this.#running.get(record.taskId);
    if (running === undefined || !isPlainObject(responses)) return;
    for (const key of Object.keys(responses)) {
      const waiting = running.waiting.get(key);
      if (waiting === undefined) continue;
      running.waiting.delete(key);
      waiting.answer(responses[key]);
    }
    const left = this.#questions(running);
    await this.#change(
      record.taskId,
      Object.keys(left ?? {}).length > 0 ? { inputRequests: left } : { status: 'working', inputRequests: undefined },
    );
  }

  /** Waits until the task ends (or `signal` aborts) and returns its last record. */
  async ended(taskId: unknown, owner: string | null, signal: AbortSignal): Promise<TaskRecord> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const record = await this.get(taskId, owner);
      const running = this.#running.get(record.taskId);
      if (TERMINAL.has(record.status) || running === undefined) return record;
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          running.changed.delete(done);
          signal.removeEventListener('abort', done);
          if (signal.aborted) reject(signal.reason);
          else resolve();
        };
        running.changed.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Aborts every running task (the server closes). */
  close(): void {
    for (const running of this.#running.values()) running.controller.abort(new Error('the server closed'));
    this.#running.clear();
  }
}

// The tasks of each server name in this process: every instance of one service shares them (serveHttp builds a
// server per request, and a task outlives the request that started it). The first instance's options hold.
const byName = new Map<string, KitTasks>();

/** The tasks of the kit server `name` in this process (made with `options` the first time). */
export function kitTasksFor(name: string, options?: TaskServingOptions): KitTasks {
  let tasks = byName.get(name);
  if (tasks === undefined) byName.set(name, (tasks = new KitTasks(options)));
  return tasks;
}
