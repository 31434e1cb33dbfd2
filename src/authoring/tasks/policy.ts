/**
 * What a kit server's tasks may be and whom they belong to: its task options,
 * checked where the server is made (an invalid one is `invalid_input` naming
 * it, never a task that misbehaves later: issue 58 #13), the bounds on tasks
 * running at once (#4), and who starts a task (#3).
 */
import { ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import {
  DEFAULT_MAX_RUNNING_TASKS,
  DEFAULT_MAX_RUNNING_TASKS_PER_CALLER,
  DEFAULT_SERVED_TASK_POLL_MS,
  DEFAULT_SERVED_TASK_TTL_MS,
  DEFAULT_TASK_GRACE_MS,
  MAX_TASK_GRACE_MS,
  MAX_TASK_TTL_MS,
} from '../../bounds.js';
import { checkMs } from '../../check-ms.js';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import type { Caller } from '../define-tool.js';
import { MemoryTaskStore, type TaskStore } from './store.js';

/** How a kit server runs its tasks. */
export interface TaskServingOptions {
  /** Where tasks are kept. Default: memory (gone with the process). */
  store?: TaskStore;
  /** How long a task and its result are kept, in ms (whole, at least 1; cut to MAX_TASK_TTL_MS), unless a 2025 client asks for less. Default one hour. */
  ttlMs?: number;
  /** The poll interval the server asks of clients, in ms (whole, from 1 to `ttlMs`). Default 500. */
  pollIntervalMs?: number;
  /**
   * 2026-07-28 (where the server decides whether a call becomes a task): how long a call waits for its handler, in ms
   * (whole, 0 to MAX_TASK_GRACE_MS). A handler that ends within it answers the `tools/call` with its result, as a
   * plain call; a question it asks, or a longer run, answers with the task. 0: every call the client lets become a
   * task does. A 2025 client that asks for a task always gets one (its era says so). Default DEFAULT_TASK_GRACE_MS (50).
   */
  graceMs?: number;
  /** How many tasks the server runs at once, all callers together; one more is refused. Default DEFAULT_MAX_RUNNING_TASKS (1,000). */
  maxRunning?: number;
  /** How many tasks one caller may have running at once; one more is refused. Default DEFAULT_MAX_RUNNING_TASKS_PER_CALLER (100). */
  maxRunningPerCaller?: number;
}

/** A kit server's task options, checked, with their defaults. */
export interface TaskSettings {
  store: TaskStore;
  ttlMs: number;
  pollMs: number;
  graceMs: number;
  maxRunning: number;
  maxRunningPerCaller: number;
}

const OPTIONS = ['store', 'ttlMs', 'pollIntervalMs', 'graceMs', 'maxRunning', 'maxRunningPerCaller'];

const invalid = (field: string, message: string) => new AgtError('invalid_input', message, { details: { field } });

function count(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  throw invalid(field, `${field} must be a whole number of tasks, at least 1`);
}

/** The options of `tasks` given to createToolServer, checked: invalid_input naming the option that is wrong. */
export function taskSettings(given: unknown): TaskSettings {
  if (given === undefined) given = {};
  if (!isPlainObject(given)) throw invalid('tasks', `tasks must be an object of task options (${OPTIONS.join(', ')})`);
  for (const key of Object.keys(given)) {
    if (OPTIONS.includes(key)) continue;
    // The option's own name when it is one (the author's code, never outside text), else only that there is one.
    const field = /^[A-Za-z_$][\w$]{0,63}$/.test(key) ? `tasks.${key}` : 'tasks';
    throw invalid(field, `${field} is not a task option; the options are ${OPTIONS.join(', ')}`);
  }
  const { store, ttlMs, pollIntervalMs, graceMs } = given;
  checkMs(ttlMs, 'tasks.ttlMs', { whole: true, min: 1 });
  const ttl = Math.min((ttlMs as number | undefined) ?? DEFAULT_SERVED_TASK_TTL_MS, MAX_TASK_TTL_MS);
  // A poll interval past the TTL would have the client look again only after the task is gone.
  checkMs(pollIntervalMs, 'tasks.pollIntervalMs', { whole: true, min: 1, max: ttl });
  checkMs(graceMs, 'tasks.graceMs', { whole: true, min: 0, max: MAX_TASK_GRACE_MS });
  const isStore = isPlainObject(store) && ['get', 'put', 'list'].every((m) => typeof (store as Record<string, unknown>)[m] === 'function');
  if (store !== undefined && !isStore)
    throw invalid('tasks.store', 'tasks.store must be a TaskStore (get, put and list): MemoryTaskStore, SqliteTaskStore or your own');
  return {
    store: (store as TaskStore | undefined) ?? new MemoryTaskStore(),
    ttlMs: ttl,
    pollMs: Math.min((pollIntervalMs as number | undefined) ?? DEFAULT_SERVED_TASK_POLL_MS, ttl),
    graceMs: (graceMs as number | undefined) ?? DEFAULT_TASK_GRACE_MS,
    maxRunning: count(given.maxRunning, 'tasks.maxRunning', DEFAULT_MAX_RUNNING_TASKS),
    maxRunningPerCaller: count(given.maxRunningPerCaller, 'tasks.maxRunningPerCaller', DEFAULT_MAX_RUNNING_TASKS_PER_CALLER),
  };
}

/** Who starts a task: its owner, and for an anonymous caller the 2025 HTTP session it speaks in. */
export interface TaskCaller {
  /** The authenticated caller's id (the bearer's client id on HTTP, the process owner on stdio); null: anonymous. */
  owner: string | null;
  /** The 2025 session of an anonymous caller: what its tasks/list shows, and whose running tasks count as one caller's. */
  session?: string;
}

/**
 * Who starts a task (issue 58 #3). An owner's tasks are read, waited on, cancelled and listed by that owner only. An
 * anonymous caller's task is reached by its id, an unguessable UUID v4: whoever holds the id reads it — so a run
 * resumed in another process, on another session, collects it (E6) — but only the session that started it lists it,
 * so no other caller learns its id; a caller with neither identity nor session lists none.
 */
export function taskCaller(caller: Caller | undefined, ctx: Pick<ServerContext, 'sessionId'>): TaskCaller {
  if (caller !== undefined) return { owner: caller.id };
  return typeof ctx.sessionId === 'string' ? { owner: null, session: ctx.sessionId } : { owner: null };
}

/** The key one caller's running tasks are counted under (maxRunningPerCaller). */
export const callerKey = (caller: TaskCaller): string | null =>
  caller.owner ?? (caller.session === undefined ? null : `session ${caller.session}`);

// -32000 (a server error of the implementation's own): the server takes no more tasks now, as serveHttp answers a
// session past its bound. `data.limit` is the bound, for a client that reads it.
const tooMany = (message: string, limit: number) => new ProtocolError(-32000, message, { limit });

/**
 * Refuses a task past the bounds (issue 58 #4), before anything is stored or run: one caller cannot fill the server,
 * and the server holds a bounded number of handlers. `running`: the tasks this server runs now, each with its caller key.
 */
export function admitTask(running: readonly { caller: string | null }[], caller: string | null, settings: TaskSettings): void {
  const { maxRunning, maxRunningPerCaller } = settings;
  const mine = running.filter((r) => r.caller === caller).length;
  if (mine >= maxRunningPerCaller)
    throw tooMany(
      `too many running tasks: this caller has ${mine} running, the server's limit (maxRunningPerCaller); wait for one to end or cancel one`,
      maxRunningPerCaller,
    );
  if (running.length >= maxRunning)
    throw tooMany(
      `too many running tasks: the server runs ${running.length}, its limit (maxRunning); try again when one has ended`,
      maxRunning,
    );
}
