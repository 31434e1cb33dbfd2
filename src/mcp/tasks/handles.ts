/**
 * A connection's view of tasks by id — the ones it handed back (`tasks:
 * 'defer'`), or any a caller names: their status (`tasks/get`), their result,
 * a cancel, and (2026-07-28) the answers to their questions. All through the
 * ext-tasks session's task controller. A task the server answers as unknown
 * (-32602 on a task request: its TTL ran out, or the server restarted) is
 * task_lost. What the server says is bounded here and masked by the caller.
 */
import { outsideText } from '../../outside-text.js';
import { ProtocolError } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { readInputRequired } from '../requests/input-rounds.js';
import type { McpTaskStatus } from '../connection-types.js';
import { taskOf } from './task-of.js';
import { fromExt, outcomeResult } from './outcome.js';
import { serverWords } from '../server-words.js';
import type { ConnectionTasks } from './session.js';

// A server's "unknown task" (its TTL ran out, it restarted) is task_lost; anything else is the connection's to map.
// A -32602 that says an answer was wrong (`data.reason: "invalid_answer"`, a kit server's refusal of a tasks/update)
// is not a lost task: the task still waits, and the answers are the caller's to fix.
function lostOrExt(error: unknown, taskId: string): unknown {
  const e = fromExt(error);
  if (e instanceof ProtocolError && e.code === -32602 && isPlainObject(e.data) && e.data.reason === 'invalid_answer')
    return new AgtError('invalid_input', `the server refused the answers to the task's questions: ${serverWords(e.message)}`, {
      details: { taskId, reason: 'invalid_answer' },
    });
  if (e instanceof ProtocolError && e.code === -32602)
    return new AgtError(
      'task_lost',
      `the server no longer knows task "${outsideText(taskId, { max: 128 })}" (its TTL ran out, or the server restarted); its result is gone`,
      {
        details: { taskId, reason: 'unknown_to_server' },
      },
    );
  return e;
}

/** The status of task `taskId`, with the questions of one that waits for input. */
export async function getTask(tasks: ConnectionTasks, taskId: string, signal: AbortSignal, requestMs: number): Promise<McpTaskStatus> {
  const controller = await tasks.task(taskId, { requestTimeoutMs: requestMs });
  const view = await controller.snapshot(signal).catch((error: unknown) => Promise.reject(lostOrExt(error, taskId)));
  const raw = { ...view.raw };
  const task = taskOf(raw, taskId);
  // Questions are a 2026-07-28 task's (2025 asks with requests of its own while tasks/result is awaited).
  if (tasks.era !== 'modern' || task.status !== 'input_required' || !isPlainObject(raw.inputRequests)) return task;
  const asked = readInputRequired({ resultType: 'input_required', inputRequests: raw.inputRequests });
  return asked === undefined ? task : { ...task, inputRequests: asked.inputRequests };
}

/**
 * The result of task `taskId` once it ended (its error, if it failed or was cancelled), waited for `timeoutMs` in all —
 * each poll and the whole wait (issue 58 #9): a task that never ends is call_timeout `task_timeout`, and runs on (a
 * read gave up; cancelTask stops it).
 */
export async function getTaskResult(tasks: ConnectionTasks, taskId: string, signal: AbortSignal, timeoutMs: number) {
  const task = await tasks.task(taskId, { requestTimeoutMs: timeoutMs });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('the wait for the task ended')), timeoutMs);
  try {
    const outcome = await task
      .result({ signal: AbortSignal.any([signal, deadline.signal]) })
      .catch((error: unknown) => Promise.reject(lostOrExt(error, taskId)));
    return outcomeResult(outcome, taskId);
  } catch (error) {
    if (!deadline.signal.aborted || signal.aborted) throw error;
    throw new AgtError(
      'call_timeout',
      `the task did not end within ${timeoutMs} ms (timeoutMs); it still runs on the server: ask again later, or cancel it`,
      {
        details: { reason: 'task_timeout', taskId, timeoutMs },
      },
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks the server to cancel task `taskId`. A task that already ended needs no cancel: a server that refuses the cancel
 * of an ended task with -32602 (as the 2025-11-25 specification asks) is asked for its status before task_lost is said.
 */
export async function cancelTask(tasks: ConnectionTasks, taskId: string, signal: AbortSignal, requestMs: number): Promise<void> {
  const task = await tasks.task(taskId, { requestTimeoutMs: requestMs });
  try {
    await task.cancel(signal).catch((error: unknown) => Promise.reject(lostOrExt(error, taskId)));
  } catch (error) {
    if (!(error instanceof AgtError) || error.code !== 'task_lost') throw error;
    const task = await getTask(tasks, taskId, signal, requestMs); // task_lost again when the server does not know it
    if (!['completed', 'failed', 'cancelled'].includes(task.status)) throw error;
  }
}

/** Answers questions of a 2026-07-28 task (`tasks/update`). */
export async function answerTask(
  tasks: ConnectionTasks,
  taskId: string,
  responses: Record<string, unknown>,
  signal: AbortSignal,
  requestMs: number,
): Promise<void> {
  const controller = await tasks.task(taskId, { requestTimeoutMs: requestMs });
  await controller.updateJson(responses, signal).catch((error: unknown) => Promise.reject(lostOrExt(error, taskId)));
}

/** The error of a task request on a connection whose server runs no tasks (or that never asks for them). */
export function noTasks(): AgtError {
  return new AgtError('invalid_input', 'this connection has no tasks: its server declares none, or its "tasks" setting is false', {
    details: { reason: 'no_tasks' },
  });
}
