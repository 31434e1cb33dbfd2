/**
 * The task methods of a connection (getTask, getTaskResult, cancelTask,
 * answerTask): tasks by id, collected later here or in another process,
 * through the connection's ext-tasks session; each one request of the
 * connection (counted, its errors mapped, its answer masked).
 */
import type { Client } from '@modelcontextprotocol/client';
import type { McpConnection } from '../connection-types.js';
import { answerInline } from '../input-rounds.js';
import type { Send } from '../more-requests.js';
import { ownSignal, readCallResult } from '../server-answers.js';
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

/** getTask, getTaskResult, cancelTask and answerTask of a connection. */
export function taskMethods(parts: TaskMethodParts): Pick<McpConnection, 'getTask' | 'getTaskResult' | 'cancelTask' | 'answerTask'> {
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
