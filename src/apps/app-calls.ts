/**
 * An app's `tools/call`: a call of the run (U3) — a batch of one through
 * run.callFromApp, with the app's tool as `from`. A call deferred for
 * approval waits (run.awaitCall) until it is decided, here or in another
 * process; meanwhile the app is sent progress so that its request does not
 * time out. Any failure is a result the app reads, never a thrown error.
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { isAgtError } from '../errors.js';
import { outsideText } from '../outside-text.js';
import type { ToolResult } from '../runtime/types.js';
import { errorResult, toCallToolResult } from './call-result.js';
import type { AppHostRun } from './host-run.js';

/** What the bridge knows of one `tools/call` request of the app. */
export interface AppCallRequest {
  name: string;
  arguments?: Record<string, unknown>;
  /** The request's progress token, if the app asked for progress. */
  progressToken?: string | number;
  /** Sends a notification to the app (progress). */
  notify(notification: { method: 'notifications/progress'; params: Record<string, unknown> }): Promise<void>;
}

/** The run's answer to an app's tool call, as the app reads it. `signal`: the bridge closed or the app cancelled. */
export async function appToolCall(
  run: AppHostRun,
  from: string,
  request: AppCallRequest,
  options: { signal: AbortSignal; progressIntervalMs: number },
): Promise<CallToolResult> {
  const { signal } = options;
  try {
    const batchId = randomUUID();
    const outcome = await run.callFromApp(request.name, request.arguments ?? {}, { from, batchId, signal });
    const ended = outcome.results[0];
    if (ended !== undefined) return toCallToolResult(ended);
    const waiting = outcome.pending?.[0];
    if (waiting === undefined) return errorResult('tool_failed: the run gave no result for the call');
    const wait = () => run.awaitCall(batchId, waiting.callId, { signal });
    const message = `waiting for ${waiting.waitingFor}`;
    return toCallToolResult(await whileWaiting(request, { ...options, message }, wait));
  } catch (error) {
    // A refused batch's message is for the model (it names the run's other tools, of other servers too): not for the app.
    if (isAgtError(error) && error.code === 'batch_rejected')
      return errorResult(
        `batch_rejected: "${outsideText(request.name, { max: 128 })}" is no tool this app may call, or the call is malformed`,
      );
    if (isAgtError(error)) return errorResult(`${error.code}: ${outsideText(error.message, { max: 500 })}`);
    return errorResult(signal.aborted ? 'cancelled: the app bridge closed' : 'tool_failed: the host could not run the call');
  }
}

// Runs `wait`, sending the app progress every `progressIntervalMs` while it waits (when the app gave a token); no timer
// outlives the wait or the signal.
async function whileWaiting(
  request: AppCallRequest,
  options: { signal: AbortSignal; progressIntervalMs: number; message: string },
  wait: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const { signal, progressIntervalMs, message } = options;
  const token = request.progressToken;
  if (token === undefined || !(progressIntervalMs > 0) || signal.aborted) return wait();
  let progress = 0;
  const timer = setInterval(() => {
    progress += 1;
    request.notify({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
  }, progressIntervalMs);
  const stop = () => clearInterval(timer);
  signal.addEventListener('abort', stop, { once: true });
  try {
    return await wait();
  } finally {
    stop();
    signal.removeEventListener('abort', stop);
  }
}
