/**
 * The task methods of a connection (getTask, getTaskResult, cancelTask,
 * answerTask): tasks by id, collected later here or in another process,
 * through the connection's ext-tasks session; each one request of the
 * connection (counted, its errors mapped, its answer masked).
 */
import type { Client } from '@modelcontextprotocol/client';
import type { McpCallResult, McpInputRequest, McpTaskStatus, RequestOptions } from '../connection-types.js';
import { answerInline } from '../requests/input-rounds.js';
import type { Send } from '../requests/more-requests.js';
import { ownSignal, readCallResult } from '../requests/server-answers.js';
import { answerTask, cancelTask, getTask, getTaskResult, noTasks } from './handles.js';
import type { ConnectionTasks } from './session.js';

/** What the task methods need from their connection. */
export interface TaskMethodParts {
  client: Client;
  send: Send;
  masked<T>(value: T): T;
  /** The connection's ext-tasks session; undefined when the server runs no tasks. */
  tasks: ConnectionTasks | undefined;
  /** The default wait for one request (the connection's `timeouts.callMs`). */
  requestMs: number;
}

/** A connection's tasks by id: the part of McpConnection that {@link taskMethods} implements. */
export interface ConnectionTaskMethods {
  /** A task's status (`tasks/get`); a task the server no longer knows (expired, or the server restarted) is task_lost. */
  getTask(taskId: string, options?: RequestOptions): Promise<McpTaskStatus>;
  /**
   * The result of a task that ended (read, masked); one that failed is protocol_error task_failed, one cancelled is
   * cancelled. `timeoutMs` bounds the whole wait (each poll too): a task not ended by then is call_timeout task_timeout.
   */
  getTaskResult(taskId: string, options?: RequestOptions): Promise<McpCallResult>;
  /** Asks the server to cancel a task (`tasks/cancel`; cooperative: it may still end otherwise). */
  cancelTask(taskId: string, options?: RequestOptions): Promise<void>;
  /** Answers the questions a 2026-07-28 task waits on (`tasks/update`): `responses` by key, or `'inline'`: this connection's own handlers answer `requests`. */
  answerTask(
    taskId: string,
    responses: Record<string, unknown> | 'inline',
    options?: RequestOptions & { requests?: Record<string, McpInputRequest> },
  ): Promise<void>;
}

/** getTask, getTaskResult, cancelTask and answerTask of a connection. */
export function taskMethods(parts: TaskMethodParts): ConnectionTaskMethods {
  const { client, send, masked, requestMs } = parts;
  const tasksOf = (): ConnectionTasks => {
    if (parts.tasks === undefined) throw noTasks();
    return parts.tasks;
  };
  return {
    getTask: (taskId, options = {}) =>
      send('tasks/get', async (signal) => masked(await getTask(tasksOf(), taskId, signal, options.timeoutMs ?? requestMs)), options),
    getTaskResult: (taskId, options = {}) =>
      send(
        'tasks/result',
        async (signal) => masked(readCallResult(await getTaskResult(tasksOf(), taskId, signal, options.timeoutMs ?? requestMs))),
        options,
      ),
    cancelTask: (taskId, options = {}) =>
      send('tasks/cancel', (signal) => cancelTask(tasksOf(), taskId, signal, options.timeoutMs ?? requestMs), options),
    answerTask: (taskId, responses, options = {}) =>
      send(
        'tasks/update',
        async (signal) => {
          const given = responses === 'inline' ? await answerInline(options.requests ?? {}, client, ownSignal(signal)) : responses;
          await answerTask(tasksOf(), taskId, given, signal, options.timeoutMs ?? requestMs);
        },
        options,
      ),
  };
}
