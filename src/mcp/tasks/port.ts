/**
 * The session port ext-tasks drives a connection's tasks through, wrapped:
 * what a server says about its tasks is server data. A result is depth-checked
 * before anything reads it, a 2025 `tasks/result` must be the result of the
 * task asked for, and the poll interval a server asks for (`pollInterval` in
 * 2025, `pollIntervalMs` in 2026-07-28) is clamped to [MIN_TASK_POLL_MS,
 * MAX_TASK_POLL_MS] before ext-tasks waits on it — a server can neither make a
 * client poll in a busy loop nor sleep past its deadline. What fails here is
 * this client's refusal (an AgtError naming the request), never told as the
 * server's word: a timeout of the client's own is call_timeout.
 */
import type { ConnectedMcpSessionPort } from '@modelcontextprotocol/ext-tasks/client';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { MAX_TASK_POLL_MS, MIN_TASK_POLL_MS } from '../../bounds.js';
import { readInputRequired } from '../requests/input-rounds.js';
import { boundedDepth } from '../requests/server-answers.js';
import { isRequestTimeout } from '../settings/timeouts.js';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A poll interval as asked, clamped; undefined stays undefined (ext-tasks then polls once a second). */
export function clampPoll(ms: unknown): number | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return undefined;
  return Math.min(MAX_TASK_POLL_MS, Math.max(MIN_TASK_POLL_MS, Math.round(ms)));
}

// The poll interval fields of a task, wherever the result carries one (the task itself, or `task` of a 2025 CreateTaskResult).
function clampTask(task: Record<string, unknown>): Record<string, unknown> {
  const out = { ...task };
  for (const key of ['pollInterval', 'pollIntervalMs'] as const) {
    if (!(key in out)) continue;
    const clamped = clampPoll(out[key]);
    if (clamped === undefined) delete out[key];
    else out[key] = clamped;
  }
  return out;
}

/** The result of a task request with its poll intervals clamped. */
export function clampedResult(result: Record<string, unknown>): Record<string, unknown> {
  const top = clampTask(result);
  if (isPlainObject(top.task)) top.task = clampTask(top.task);
  return top;
}

/** `inner`, with every result depth-checked and its poll intervals clamped. */
export function boundedPort(inner: ConnectedMcpSessionPort & Disposable): ConnectedMcpSessionPort & Disposable {
  return {
    get endpointId() {
      return inner.endpointId;
    },
    get taskCapabilities() {
      return inner.taskCapabilities;
    },
    get invalidated() {
      return inner.invalidated;
    },
    async dispatch(request, options) {
      const { method, taskId } = named(request);
      const answer = await inner.dispatch(request, options).catch((error: unknown) => {
        throw timedOut(error, method, taskId, options?.context?.requestTimeoutMs) ?? error;
      });
      if (answer.kind !== 'result' || !isPlainObject(answer.result)) return answer;
      // Too deep to read: refused before ext-tasks reads any of it (protocol_error result_too_deep).
      boundedDepth(answer.result, method);
      if (method === 'tasks/result' && taskId !== undefined) sameTask(answer.result, taskId);
      // 2026-07-28: a task's questions are read as a call's are, before any path polls past them (issue 58 #10).
      if (method === 'tasks/get' && inner.taskCapabilities.generation === 'v2') questionsOf(answer.result);
      return { kind: 'result', result: clampedResult(answer.result) as typeof answer.result };
    },
    onServerRequest: (handler) => inner.onServerRequest(handler),
    onNotification: (listener) => inner.onNotification(listener),
    onInvalidated: (listener) => inner.onInvalidated(listener),
    [Symbol.dispose]: () => inner[Symbol.dispose](),
  };
}

// The method of a request ext-tasks sends, and the task it names.
function named(request: unknown): { method: string; taskId?: string } {
  const { method, params } = (isPlainObject(request) ? request : {}) as { method?: unknown; params?: unknown };
  const taskId = isPlainObject(params) && typeof params.taskId === 'string' ? params.taskId : undefined;
  return { method: typeof method === 'string' ? method : 'task request', ...(taskId === undefined ? {} : { taskId }) };
}

// A request this client stopped waiting for (its timeout): call_timeout naming it — not the server's fault, and not
// the task's: it may still run. ext-tasks wraps the SDK's timeout (2025) in a DispatchError; the raw path's is bare.
function timedOut(error: unknown, method: string, taskId: string | undefined, timeoutMs: number | undefined): AgtError | undefined {
  const cause =
    (error as { name?: string; cause?: unknown } | null)?.name === 'DispatchError' ? (error as { cause?: unknown }).cause : error;
  if (!isRequestTimeout(cause)) return undefined;
  const within = timeoutMs === undefined ? '' : ` within ${timeoutMs} ms`;
  return new AgtError(
    'call_timeout',
    `the server did not answer ${method}${within}; this client stopped waiting (notifications/cancelled sent) — the task may still be running`,
    {
      details: {
        reason: 'request_timeout',
        method,
        ...(taskId === undefined ? {} : { taskId }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      },
    },
  );
}

// The questions of a 2026-07-28 task that waits for input, checked as a call's round is (MAX_INPUT_REQUESTS, known
// methods): protocol_error invalid_input_request — inline, deferred and collected alike — never polled past until a timeout.
function questionsOf(task: Record<string, unknown>): void {
  if (task.status === 'input_required' && task.inputRequests !== undefined)
    readInputRequired({ resultType: 'input_required', inputRequests: task.inputRequests });
}

// A 2025 tasks/result carries the task it is the result of (related-task metadata): one naming another task is
// refused, as ext-tasks refuses a tasks/get answer for another task. Left out, it is not required here.
function sameTask(result: Record<string, unknown>, taskId: string): void {
  const meta = result._meta;
  if (!isPlainObject(meta) || !(RELATED_TASK in meta)) return;
  const related = meta[RELATED_TASK];
  if (isPlainObject(related) && related.taskId === taskId) return;
  throw new AgtError('protocol_error', 'the server answered tasks/result with the result of another task; it was not read', {
    details: { reason: 'wrong_task', taskId },
  });
}
