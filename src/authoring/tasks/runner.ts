/**
 * The tasks of one kit server: a handler started as a task runs on after the `tools/call` that started it was answered
 * with the task. Its record is in the task store from before that answer (so a `tasks/get` right after it finds the
 * task), and follows it: working, input_required while a question waits for `tasks/update` (2026-07-28), then
 * completed, failed or cancelled. `tasks/cancel` aborts the handler's `ctx.signal` and ends the task cancelled at once
 * (cancellation is cooperative: what the handler does after is not its result). Only the caller that started a task
 * reads or cancels it (policy.ts), a bounded number run at once, and a task whose process ended before it did ends
 * failed when next read (orphans.ts). A young task's wait is kept short by the server's grace (grace.ts).
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { MAX_TASK_STATUS_MESSAGE, MIN_TASK_STORE_READ_MS } from '../../bounds.js';
import { isPlainObject } from '../../json.js';
import { answerProblem, expectedOf, invalidAnswer } from '../questions/answers.js';
import { listTasks, settledTask, thisRunner } from './orphans.js';
import { admitTask, callerKey, type TaskCaller, type TaskServingOptions, type TaskSettings, taskSettings } from './policy.js';
import { expired, type TaskRecord, type TaskStore } from './store.js';
import { ownedTask, wholeTask } from './stored.js';
import { changeOf, SharedPolls } from './waits.js';
import { endWithin, heldLook, paced } from './grace.js';
import { TaskWrites } from './writes.js';
import { TaskRecords } from './provisional.js';
import { type Running, type TaskControl, TERMINAL, unknownTask } from './running.js';

export type { TaskServingOptions } from './policy.js';
export { type TaskControl, unknownTask } from './running.js';

/** The tasks of one kit server (every instance serveHttp builds of one service shares one). */
export class KitTasks {
  readonly store: TaskStore;
  readonly #settings: TaskSettings;
  readonly #running = new Map<string, Running>();
  readonly #polls: SharedPolls;
  readonly #writes = new TaskWrites();
  readonly #records: TaskRecords; // the store, with the tasks still in their grace held here (provisional.ts)

  /** Checks `options` (invalid_input naming the option that is wrong). */
  constructor(options?: TaskServingOptions) {
    this.#settings = taskSettings(options);
    this.store = this.#settings.store;
    this.#records = new TaskRecords(this.store);
    this.#polls = new SharedPolls(this.store, Math.max(this.#settings.pollMs, MIN_TASK_STORE_READ_MS));
  }

  /** Starts `run` as a task of `caller` and returns its first record (already stored); refused past the running bounds. */
  async start(
    tool: string,
    caller: TaskCaller,
    requestedTtlMs: number | undefined,
    run: (control: TaskControl) => Promise<Record<string, unknown>>,
    notify?: (record: TaskRecord) => void,
    provisional = false, // 2026-07-28 with a grace: held unstored until its call is answered with it (commit)
  ): Promise<TaskRecord> {
    admitTask([...this.#running.values()], callerKey(caller), this.#settings);
    const now = new Date().toISOString();
    const { ttlMs: most, pollMs } = this.#settings;
    const ttlMs = requestedTtlMs !== undefined && requestedTtlMs >= 0 ? Math.min(requestedTtlMs, most) : most;
    const record: TaskRecord = {
      taskId: randomUUID(),
      tool,
      owner: caller.owner,
      ...(caller.owner === null && caller.session !== undefined ? { session: caller.session } : {}),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: pollMs,
      runner: thisRunner(),
    };
    const running: Running = {
      caller: callerKey(caller),
      controller: new AbortController(),
      waiting: new Map(),
      asked: 0,
      changed: new Set(),
      ...(notify ? { notify } : {}),
    };
    // Counted as running from here: tasks started at once are all held to the bounds while their records are written.
    this.#running.set(record.taskId, running);
    try {
      if (provisional && this.#settings.graceMs > 0) this.#records.hold(record);
      else await this.store.put(record);
    } catch (error) {
      this.#running.delete(record.taskId);
      throw error;
    }
    // A handler still running when its TTL ends is stopped (nobody can read its result); its waiters read it again (gone).
    const expiry = setTimeout(() => {
      running.controller.abort(new Error('the task outlived its TTL'));
      this.#writes.forget(record.taskId); // a write its store never settled keeps no chain past the task
      // A handler that returned, its end's write never settled, runs no more: it no longer counts against the bounds.
      if (running.returned === true && this.#running.get(record.taskId) === running) this.#running.delete(record.taskId);
      for (const tell of running.changed) tell();
    }, ttlMs);
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
      // A message said after the task ended (and its end written) changes nothing; those queued before its end land first.
      status: (message) =>
        this.#running.get(taskId) === running
          ? this.#change(taskId, { statusMessage: message.slice(0, MAX_TASK_STATUS_MESSAGE) }, true)
          : Promise.resolve(),
      ask: (request) =>
        new Promise((resolve) => {
          const key = `t${++running.asked}`; // unique over the task's life, as the extension asks
          running.waiting.set(key, { request, answer: resolve });
          this.#change(taskId, { status: 'input_required', inputRequests: this.#questions(running) }).catch(() => undefined);
        }),
    };
    let end: Partial<TaskRecord>;
    // A result the store refuses (too large, say) ends the task failed (its client need not wait for its TTL).
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
      // An ended task's statusMessage is not its last progress (a client would show "writing…" for a finished task).
      end = { status: 'completed', result: await run(control), statusMessage: undefined };
    } catch (error) {
      const failure = error instanceof ProtocolError ? error : new ProtocolError(ProtocolErrorCode.InternalError, 'the task failed');
      // A failed task's statusMessage says why (2025-11-25: clients show it), not what its last progress said.
      end = { status: 'failed', error: { code: failure.code, message: failure.message }, statusMessage: failure.message };
    }
    running.returned = true;
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

  // Writes a change of a task that has not ended (an ended task never changes again), after the task's writes queued
  // before it (writes.ts): a status queued behind the task's end reads it ended and is dropped. `mergeable`: a status.
  #change(taskId: string, change: Partial<TaskRecord>, mergeable = false): Promise<void> {
    return this.#writes.queue(taskId, change, (queued) => this.#write(taskId, queued), mergeable);
  }

  async #write(taskId: string, change: Partial<TaskRecord>): Promise<void> {
    const record = wholeTask(await this.#records.get(taskId), taskId);
    if (record === undefined || TERMINAL.has(record.status)) return;
    const next: TaskRecord = { ...record, ...change, lastUpdatedAt: new Date().toISOString() };
    for (const key of Object.keys(next) as (keyof TaskRecord)[]) if (next[key] === undefined) delete next[key];
    await this.#records.put(next);
    const running = this.#running.get(taskId);
    for (const tell of running?.changed ?? []) tell(next);
    try {
      running?.notify?.(next);
    } catch {
      // a client that cannot be told polls
    }
  }

  /** The task as its owner sees it; an unknown, expired or foreign one is the unknown-task error. */
  async get(taskId: unknown, owner: string | null): Promise<TaskRecord> {
    if (typeof taskId !== 'string') throw unknownTask();
    return this.#visible(await this.#records.get(taskId), taskId, owner);
  }

  // What the store holds for task `taskId` (`read`) as `owner` sees it; never a record edited by hand (issue 58 #12).
  async #visible(read: unknown, taskId: string, owner: string | null): Promise<TaskRecord> {
    const record = ownedTask(read, taskId, owner);
    if (record === undefined || expired(record)) throw unknownTask();
    return settledTask(this.store, record);
  }

  /** A caller's tasks, newest first (2025 `tasks/list`; orphans.ts). */
  list(owner: string | null, session: string | undefined): Promise<TaskRecord[]> {
    return listTasks(this.store, owner, session);
  }

  /** Cancels a task that has not ended: its handler's signal aborts, and it ends cancelled. */
  async cancel(taskId: unknown, owner: string | null): Promise<TaskRecord> {
    const record = await this.get(taskId, owner);
    if (TERMINAL.has(record.status)) return record;
    const running = this.#running.get(record.taskId);
    running?.controller.abort(new Error('the task was cancelled'));
    await this.#change(record.taskId, { status: 'cancelled', inputRequests: undefined, statusMessage: undefined });
    return this.get(record.taskId, owner);
  }

  /** Answers questions a task waits on (2026-07-28 tasks/update; `dropped`: keys whose answers were no objects). */
  async update(taskId: unknown, owner: string | null, responses: unknown, dropped: readonly string[] = []): Promise<void> {
    const record = await this.get(taskId, owner);
    const running = this.#running.get(record.taskId);
    if (running === undefined || !isPlainObject(responses)) return;
    // E4: each answer is checked against its question before the handler sees any; a wrong one refuses the update.
    for (const [key, waiting] of running.waiting) {
      const given = dropped.includes(key) ? { answer: null } : Object.hasOwn(responses, key) ? { answer: responses[key] } : undefined;
      const problem = given === undefined ? undefined : answerProblem(expectedOf(waiting.request), given.answer);
      if (problem !== undefined) throw invalidAnswer(key, problem, 'answer it again with tasks/update (the task still waits)');
    }
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

  /**
   * Waits until the task ends (or `signal` aborts, or its TTL ends it) and returns its last record: told of each change
   * of a task this server runs, and for one another process runs, reading the store at the poll interval — one read
   * for all the requests that wait on it (issue 58 #12).
   */
  async ended(taskId: unknown, owner: string | null, signal: AbortSignal): Promise<TaskRecord> {
    let record = await this.get(taskId, owner);
    for (;;) {
      if (TERMINAL.has(record.status)) return record;
      if (signal.aborted) throw signal.reason;
      const id = record.taskId;
      const running = this.#running.get(id);
      if (running === undefined) {
        record = await this.#visible(await this.#polls.next(id, signal), id, owner);
        continue;
      }
      const told = await changeOf(running.changed, signal);
      record = told === undefined ? await this.get(id, owner) : await this.#visible(told, id, owner);
    }
  }

  /** The task's ended record if its handler ends within the server's grace (`tasks.graceMs`), else undefined (grace.ts). */
  endedInGrace(taskId: string, signal: AbortSignal): Promise<TaskRecord | undefined> {
    const forget = (record: TaskRecord) => this.#records.forget(record);
    return endWithin(this.#running.get(taskId)?.changed, this.#records, taskId, this.#settings.graceMs, signal, forget);
  }

  /** Stores a task held in its grace, as its call is answered with it; a failed write stops its handler, and throws. */
  async commit(taskId: string): Promise<void> {
    await this.#writes
      .queue(taskId, {}, () => this.#records.commit(taskId))
      .catch((error: unknown) => {
        this.#running.get(taskId)?.controller.abort(error);
        this.#records.drop(taskId);
        throw error;
      });
  }

  /** A `tasks/get`: the task as its owner sees it, paced; a working one this server runs once it changes or after the grace. */
  async look(taskId: unknown, owner: string | null, signal: AbortSignal): Promise<TaskRecord> {
    const changed = typeof taskId === 'string' ? this.#running.get(taskId)?.changed : undefined;
    return this.paced(await heldLook(() => this.get(taskId, owner), changed, this.#settings.graceMs, signal));
  }

  /** The record as a client is shown it: a young task's poll interval paced by its age (grace.ts). */
  readonly paced = (record: TaskRecord): TaskRecord => paced(record, this.#settings.graceMs);

  /** How many tasks have a store write queued or under way (none once their writes settled: nothing kept per ended task). */
  get writing(): number {
    return this.#writes.size;
  }

  /** Aborts every running task (the server closes). */
  close(): void {
    for (const running of this.#running.values()) running.controller.abort(new Error('the server closed'));
    this.#running.clear();
    this.#records.clear();
  }
}
