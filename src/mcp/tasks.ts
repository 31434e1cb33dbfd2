/**
 * Task-augmented tool calls (MCP 2025-11-25, experimental), behind the
 * `tasks` setting: a `tools/call` with `task` is answered at once with a task;
 * the client polls `tasks/get` (at the server's pollInterval, bounded) until
 * the task ends, then reads `tasks/result`. A cancel of the caller, or the
 * deadline, sends `tasks/cancel` before the call rejects — a task never keeps
 * running on the server for a call that gave up on it.
 */
import { CancelTaskResultSchema, CreateTaskResultSchema, GetTaskResultSchema, ResultSchema } from '@modelcontextprotocol/core';
import { SdkErrorCode, SdkError } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';

/** How long a task-augmented call may take in all unless `maxTotalTimeoutMs` says otherwise: 30 minutes. */
export { DEFAULT_TASK_TOTAL_MS } from '../bounds.js';

const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;
const CANCEL_TIMEOUT_MS = 2_000;
const LooseResult = ResultSchema.loose();

/** True when the server takes task-augmented `tools/call` (it declares `tasks.requests.tools.call`). */
export function serverRunsToolTasks(capabilities: Record<string, unknown> | undefined): boolean {
  const tasks = capabilities?.tasks;
  const requests = isPlainObject(tasks) ? tasks.requests : undefined;
  const tools = isPlainObject(requests) ? requests.tools : undefined;
  return isPlainObject(tools) && isPlainObject(tools.call);
}

/** True for a tool whose `execution.taskSupport` lets it run as a task. */
export function runsAsTask(tool: { execution?: unknown }): boolean {
  const support = isPlainObject(tool.execution) ? tool.execution.taskSupport : undefined;
  return support === 'required' || support === 'optional';
}

/**
 * Calls a tool as a task and returns its result (as `tasks/result` gave it).
 * Each request is bounded by `requestMs`, the whole by `totalMs`; `signal`
 * cancels. A failed task is protocol_error `task_failed`; one the server
 * cancelled is `cancelled`.
 */
export async function callAsTask(
  client: Client,
  params: Record<string, unknown>,
  options: { signal: AbortSignal; requestMs: number; totalMs: number },
): Promise<Record<string, unknown>> {
  const deadline = performance.now() + options.totalMs;
  const sdk = () => ({ signal: options.signal, timeout: Math.max(1, Math.min(options.requestMs, deadline - performance.now())) });
  // Tasks are 2025-11-25 wire vocabulary the v2 SDK keeps importable only: the task is asked for in the params.
  const created = await client.request(
    { method: 'tools/call', params: { ...params, task: { ttl: options.totalMs } } },
    CreateTaskResultSchema,
    sdk(),
  );
  const taskId = created.task.taskId;
  try {
    let pollMs = created.task.pollInterval;
    for (;;) {
      if (performance.now() >= deadline) throw taskTimeout(taskId, options.totalMs);
      await sleep(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollMs ?? 1000)), undefined, { signal: options.signal });
      const task = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, sdk());
      pollMs = task.pollInterval ?? pollMs;
      if (task.status === 'failed')
        throw new AgtError('protocol_error', 'the server says the task of this call failed', {
          details: { reason: 'task_failed', taskId },
        });
      if (task.status === 'cancelled')
        throw new AgtError('cancelled', 'the server cancelled the task of this call', { details: { reason: 'task_cancelled', taskId } });
      // completed: the result is there; input_required: tasks/result carries the server's questions, then the result.
      if (task.status === 'completed' || task.status === 'input_required') {
        const timeout = Math.max(1, deadline - performance.now());
        return (await client.request({ method: 'tasks/result', params: { taskId } }, LooseResult, {
          signal: options.signal,
          timeout,
        })) as Record<string, unknown>;
      }
    }
  } catch (error) {
    await cancelTask(client, taskId);
    // A request cut short by the whole task's deadline is the task's timeout, not that request's.
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && performance.now() >= deadline - 5)
      throw taskTimeout(taskId, options.totalMs);
    throw error;
  }
}

// Best effort: the server is told to stop the task; its own failure to answer changes nothing for the caller.
async function cancelTask(client: Client, taskId: string): Promise<void> {
  await client
    .request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, { timeout: CANCEL_TIMEOUT_MS })
    .catch(() => undefined);
}

function taskTimeout(taskId: string, totalMs: number): AgtError {
  return new AgtError('call_timeout', `the task of this call did not end within ${totalMs} ms; it was cancelled (tasks/cancel sent)`, {
    details: { reason: 'task_timeout', taskId, timeoutMs: totalMs },
  });
}
