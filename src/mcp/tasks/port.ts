/**
 * The session port ext-tasks drives a connection's tasks through, wrapped:
 * what a server says about its tasks is server data. A result is depth-checked
 * before anything reads it, and the poll interval a server asks for
 * (`pollInterval` in 2025, `pollIntervalMs` in 2026-07-28) is clamped to
 * [MIN_TASK_POLL_MS, MAX_TASK_POLL_MS] before ext-tasks waits on it — a server
 * can neither make a client poll in a busy loop nor sleep past its deadline.
 */
import type { ConnectedMcpSessionPort } from '@modelcontextprotocol/ext-tasks/client';
import { isPlainObject, jsonProblem } from '../../json.js';
import { MAX_JSON_DEPTH, MAX_TASK_POLL_MS, MIN_TASK_POLL_MS } from '../../bounds.js';

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
      const answer = await inner.dispatch(request, options);
      if (answer.kind !== 'result' || !isPlainObject(answer.result)) return answer;
      // Too deep to read: ext-tasks gets an error answer, never the value.
      if (jsonProblem(answer.result, { depth: MAX_JSON_DEPTH, bytes: Number.MAX_SAFE_INTEGER }) === 'too_deep')
        return { kind: 'error', error: { code: -32603, message: `the result nests deeper than ${MAX_JSON_DEPTH} levels` } };
      return { kind: 'result', result: clampedResult(answer.result) as typeof answer.result };
    },
    onServerRequest: (handler) => inner.onServerRequest(handler),
    onNotification: (listener) => inner.onNotification(listener),
    onInvalidated: (listener) => inner.onInvalidated(listener),
    [Symbol.dispose]: () => inner[Symbol.dispose](),
  };
}
