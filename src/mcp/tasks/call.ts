/**
 * A tool call the server runs as a task, waited for inline, through ext-tasks:
 * on 2025 (`tasks.requests.tools.call`, the tool's `execution.taskSupport`)
 * the session's `callTool` asks for the task and settles it; on 2026-07-28
 * the server decides, the `tools/call` went on the raw path, and a
 * `resultType: "task"` answer is followed here with the session's task
 * controller (`tasks/get`, `tasks/update` for the questions the connection
 * answers itself, the result). A cancel of the caller, or the deadline
 * (`totalMs`), sends `tasks/cancel` before the call rejects — a task never
 * keeps running on the server for a call that gave up on it.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { RawTool } from '../requests/lists.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { DEFAULT_TASK_POLL_MS, MAX_INPUT_ROUNDS, MAX_TASK_ID_LENGTH, TASK_CANCEL_TIMEOUT_MS } from '../../bounds.js';
import { roundsExceeded } from '../requests/input-rounds.js';
import { serverWords } from '../server-words.js';
import type { McpInputRequest } from '../connection-types.js';
import { clampPoll } from './port.js';
import { taskOf } from './task-of.js';
import { type ConnectionTasks, extJson, extTasks } from './session.js';
import { fromExt, outcomeResult } from './outcome.js';

export { fromExt, notFinal, outcomeResult } from './outcome.js';

/** How long a task-augmented call may take in all unless `maxTotalTimeoutMs` says otherwise: 30 minutes. */
export { DEFAULT_TASK_TOTAL_MS } from '../../bounds.js';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** How one task call is bounded and cancelled. */
export interface TaskCallOptions {
  signal: AbortSignal;
  requestMs: number;
  totalMs: number;
  /** Told of each new statusMessage of the task (as progress with that message), e.g. `agt mcp call` on a terminal. */
  onStatus?: (message: string) => void;
}

/** Answers the questions a 2026-07-28 task asks (the connection's own handlers); throws when one cannot be answered here. */
export type AnswerQuestions = (requests: Record<string, McpInputRequest>, signal: AbortSignal) => Promise<Record<string, unknown>>;

/** Reads the questions of an input_required task (as readInputRequired checks a round), or throws. */
export type ReadQuestions = (task: Record<string, unknown>) => Record<string, McpInputRequest>;

type LegacyParams = { arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };

// One 2025 tools/call through the session, asking for a task (the server's own TTL: one as short as the call's
// deadline would end the task as the cancel is sent).
async function legacyExecution(tasks: ConnectionTasks, tool: RawTool, params: LegacyParams, requestMs: number, signal: AbortSignal) {
  const [ext, session] = await Promise.all([extTasks(), tasks.session()]);
  return session
    .callTool(tool.name, extJson(params.arguments ?? {}), {
      declaration: ext.toolDeclarationFromMcpTool(tool as Tool),
      signal,
      task: { preference: 'prefer' },
      requestTimeoutMs: requestMs,
      ...(params._meta === undefined ? {} : { metadata: extJson(params._meta) }),
    })
    .catch((error: unknown) => Promise.reject(fromExt(error)));
}

/** Calls `tool` as a 2025 task through the ext-tasks session and returns its result as `tasks/result` gave it. */
export async function callLegacyTask(
  tasks: ConnectionTasks,
  tool: RawTool,
  params: LegacyParams,
  options: TaskCallOptions,
): Promise<Record<string, unknown>> {
  return bounded(tasks, options, async (signal, taskId) => {
    // The creating request is not cancelled with the call: a 2025 server may have created the task already, and only
    // its answer names it. A cancel while it is in flight ends the call at once; the task is cancelled when the answer comes.
    const creating = legacyExecution(tasks, tool, params, options.requestMs, new AbortController().signal);
    const execution = await untilAborted(creating, signal, (created) => {
      if (created.kind === 'task') void cancelOnServer(tasks, created.handle.taskId);
    });
    if (execution.kind !== 'task') {
      const { outcome } = await execution.settle({ signal }).catch((error: unknown) => Promise.reject(fromExt(error)));
      return outcomeResult(outcome, undefined);
    }
    // Followed by id, as a deferred task is collected: an ext-tasks execution keeps every new status it polls until the
    // task ends, so a server answering each tasks/get anew (a large statusMessage) would grow this process for as long
    // as the call waits (E6). Detached, it keeps none; the task runs on and is read with tasks/get, then tasks/result.
    await execution.detach();
    const id = execution.handle.taskId;
    taskId.current = taskIdOf(id); // refused before any request names it
    const session = await tasks.session();
    const outcome = await session
      .task(id, { requestTimeoutMs: options.requestMs })
      .result({ signal })
      .catch((error: unknown) => Promise.reject(fromExt(error)));
    return outcomeResult(outcome, id);
  });
}

/** Starts `tool` as a 2025 task and hands it back (McpTaskStarted) without waiting; an immediate answer is the result. */
export async function startLegacyTask(
  tasks: ConnectionTasks,
  tool: RawTool,
  params: LegacyParams,
  options: TaskCallOptions,
): Promise<Record<string, unknown>> {
  const execution = await legacyExecution(tasks, tool, params, options.requestMs, options.signal);
  if (execution.kind !== 'task') {
    const { outcome } = await execution.settle({ signal: options.signal }).catch((error: unknown) => Promise.reject(fromExt(error)));
    return outcomeResult(outcome, undefined);
  }
  const taskId = execution.handle.taskId;
  const session = await tasks.session();
  await execution.detach(); // this process stops watching; the task runs on, to be collected by id, here or elsewhere
  const view = await session
    .task(taskId, { requestTimeoutMs: options.requestMs })
    .snapshot(options.signal)
    .catch((error: unknown) => {
      // The call fails without handing the task back: nobody could collect it, so it must not run on (best effort).
      void cancelOnServer(tasks, taskId);
      return Promise.reject(fromExt(error));
    });
  try {
    return startedOf({ ...view.raw, taskId });
  } catch (error) {
    void cancelOnServer(tasks, taskId);
    throw error;
  }
}

/** A task the server created, as a call hands it back (`tasks: 'defer'`). */
export function startedOf(created: Record<string, unknown>): Record<string, unknown> {
  const taskId = taskIdOf(created.taskId);
  return { resultType: 'task', task: taskOf(created, taskId) };
}

/**
 * The id of a task the server created — a string of 1 to MAX_TASK_ID_LENGTH characters — or protocol_error
 * invalid_task: waited for or handed back alike (it is sent back with every request about the task).
 */
export function taskIdOf(taskId: unknown): string {
  if (typeof taskId === 'string' && taskId !== '' && taskId.length <= MAX_TASK_ID_LENGTH) return taskId;
  throw new AgtError('protocol_error', 'the server answered the call with a task whose taskId is missing or too long', {
    details: { reason: 'invalid_task' },
  });
}

/** Follows a 2026-07-28 task (`created` is the server's `resultType: "task"` answer) to its result. */
export async function followModernTask(
  tasks: ConnectionTasks,
  created: Record<string, unknown>,
  questions: { read: ReadQuestions; answer: AnswerQuestions },
  options: TaskCallOptions,
): Promise<Record<string, unknown>> {
  const taskId = taskIdOf(created.taskId);
  const controller = await tasks.task(taskId, { requestTimeoutMs: options.requestMs });
  return bounded(tasks, options, async (signal, id) => {
    id.current = taskId;
    let task = created;
    let told: string | undefined; // the last status message told (each new one is told once)
    // The CreateTaskResult is the server's first word on the task, a Task, never a DetailedTask: one that ended or asks
    // is looked at at once (its result or questions come with tasks/get); a working one when the server's interval
    // allows after that word, not sooner (a look at once would read it working again). Then the questions are answered,
    // or the next look waits the server's pace.
    for (let round = 0, first = true; first || !TERMINAL.has(String(task.status)); first = false) {
      if (!first && task.status === 'input_required') {
        // E7: one bound on rounds whoever answers (a deferred task's collect counts the same): input_rounds_exceeded.
        if (++round > MAX_INPUT_ROUNDS) throw roundsExceeded('task');
        const answers = await questions.answer(questions.read(task), signal);
        // ext-tasks types the answers as its InputResponsesV2; ours are what the connection's handlers gave (ElicitResult …), sent as they are.
        await controller.update(answers as never, signal).catch((error: unknown) => Promise.reject(fromExt(error)));
      } else if (!first || task.status === 'working')
        await sleep(clampPoll(task.pollIntervalMs) ?? DEFAULT_TASK_POLL_MS, undefined, { signal });
      const view = await controller.snapshot(signal).catch((error: unknown) => Promise.reject(fromExt(error)));
      if (view.statusMessage !== undefined && view.statusMessage !== told) options.onStatus?.(serverWords((told = view.statusMessage)));
      task = { ...view.raw };
    }
    // The ended task carries its result or error (a DetailedTask): no further request.
    return outcomeResult(detailedOutcome(task), taskId);
  });
}

// The outcome a 2026-07-28 DetailedTask that ended carries.
function detailedOutcome(task: Record<string, unknown>): Parameters<typeof outcomeResult>[0] {
  if (task.status === 'completed') return { status: 'completed', result: task.result };
  if (task.status === 'cancelled') return { status: 'cancelled' };
  const error = isPlainObject(task.error) ? task.error : {};
  const failure = Object.assign(new Error(typeof error.message === 'string' ? error.message : 'the task failed'), {
    ...(typeof error.code === 'number' ? { code: error.code } : {}),
  });
  return { status: 'failed', error: failure };
}

// Runs `work` under the caller's signal and the task's deadline; on either, the task is cancelled on its server.
async function bounded<T>(
  tasks: ConnectionTasks,
  options: TaskCallOptions,
  work: (signal: AbortSignal, taskId: { current?: string }) => Promise<T>,
): Promise<T> {
  const limit = new AbortController();
  const taskId: { current?: string } = {};
  const timedOut = new Error('deadline');
  const timer = setTimeout(() => limit.abort(timedOut), options.totalMs);
  const onAbort = () => limit.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(limit.signal, taskId);
  } catch (error) {
    if (!limit.signal.aborted) throw error;
    if (taskId.current !== undefined) await cancelOnServer(tasks, taskId.current);
    if (limit.signal.reason === timedOut) throw taskTimeout(taskId.current, options.totalMs);
    throw new AgtError('cancelled', 'the call was cancelled; its task was cancelled on the server (tasks/cancel sent)', {
      details: { reason: 'cancelled', ...(taskId.current === undefined ? {} : { taskId: taskId.current }) },
    });
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

// `work`, or a rejection as soon as `signal` aborts; what `work` gives after that goes to `late`.
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, late: (value: T) => void): Promise<T> {
  if (signal.aborted) {
    void work.then(late, () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      void work.then(late, () => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}

/**
 * Tells the server to stop a task, best effort: never rejects. A server that does not answer, or a session closed
 * meanwhile (the connection closed as a late answer came in: ext-tasks then throws at once), changes nothing for the
 * caller — and nothing here may become an unhandled rejection, as its callers do not wait for it.
 */
export async function cancelOnServer(tasks: ConnectionTasks, taskId: string): Promise<void> {
  try {
    const controller = await tasks.task(taskId);
    await controller.cancel(AbortSignal.timeout(TASK_CANCEL_TIMEOUT_MS));
  } catch {
    // best effort (above)
  }
}

function taskTimeout(taskId: string | undefined, totalMs: number): AgtError {
  return new AgtError('call_timeout', `the task of this call did not end within ${totalMs} ms; it was cancelled (tasks/cancel sent)`, {
    details: { reason: 'task_timeout', ...(taskId === undefined ? {} : { taskId }), timeoutMs: totalMs },
  });
}
