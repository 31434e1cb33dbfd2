/**
 * The tool's own call, delivered to its app (U4): its input only once the call
 * was permitted, its result only as the run gives it (after the output check
 * and the bound). A call still waiting for approval sends nothing until
 * run.awaitCall ends it; approved and ok, the app gets the input then the
 * result; denied or failed, it is told the call was cancelled, and why. The
 * wait starts when the bridge is made, so a call decided while the app loads
 * is not missed; what it ends with is sent once the app is initialized.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { isAgtError } from '../errors.js';
import { outsideText } from '../outside-text.js';
import type { ToolResult } from '../runtime/types.js';
import { resultReason, toCallToolResult } from './call-result.js';
import type { AppHostRun } from './host-run.js';

/** The tool call that rendered the app, as the host knows it. */
export interface RenderedCall {
  batchId?: string;
  callId?: string;
  arguments?: Record<string, unknown>;
  /** The call's result, when it already ended. */
  result?: ToolResult;
}

/** What delivery sends through (the AppBridge's notifications). */
export interface DeliveryTarget {
  sendToolInput(params: { arguments?: Record<string, unknown> }): Promise<void>;
  sendToolResult(params: CallToolResult): Promise<void>;
  sendToolCancelled(params: { reason?: string }): Promise<void>;
}

/** A rendered call as watched from the bridge's making: its arguments, whether it was permitted, how it ends. */
export interface WatchedCall {
  args: Record<string, unknown> | undefined;
  /** True when the app may have the input before the end (the call ran, and waits for input or a task). */
  permitted: boolean;
  /** The result; a reason when the wait failed; undefined when the bridge closed first. */
  end: Promise<{ result: ToolResult } | { reason: string } | undefined>;
}

/**
 * Watches the rendered call: at once when its result is known; through run.awaitCall when it waits (started now).
 * Undefined for a call that neither ended nor waits (nothing is ever sent of it).
 */
export function watchRenderedCall(run: AppHostRun, call: RenderedCall, signal: AbortSignal): WatchedCall | undefined {
  if (call.result !== undefined) return { args: call.arguments, permitted: false, end: Promise.resolve({ result: call.result }) };
  if (call.batchId === undefined || call.callId === undefined) return undefined;
  const { batchId, callId } = call;
  const waiting = run.pending(batchId).find((p) => p.callId === callId);
  if (waiting === undefined) return undefined;
  const end = run.awaitCall(batchId, callId, { signal }).then(
    (result) => (signal.aborted ? undefined : { result }),
    (error: unknown) =>
      signal.aborted
        ? undefined
        : {
            reason: isAgtError(error)
              ? `${error.code}: ${outsideText(error.message, { max: 500 })}`
              : 'tool_failed: the call ended with no result',
          },
  );
  return { args: call.arguments ?? { ...waiting.arguments }, permitted: waiting.waitingFor !== 'approval', end };
}

/** Sends the app what it may have of the watched call, in order; nothing once `signal` aborted (the bridge closed). */
export async function deliverWatchedCall(target: DeliveryTarget, watched: WatchedCall, signal: AbortSignal): Promise<void> {
  const { args, permitted } = watched;
  if (permitted && args !== undefined) await target.sendToolInput({ arguments: args });
  const end = await watched.end;
  if (end === undefined || signal.aborted) return;
  if ('reason' in end) return target.sendToolCancelled({ reason: end.reason });
  const { result } = end;
  // An ended call: input (unless sent) and result when the tool answered (ok, or its own error); else cancelled, with the reason.
  if (result.status !== 'ok' && result.status !== 'tool_error') return target.sendToolCancelled({ reason: resultReason(result) });
  if (!permitted && args !== undefined) await target.sendToolInput({ arguments: args });
  await target.sendToolResult(toCallToolResult(result));
}
