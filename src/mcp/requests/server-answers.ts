/**
 * What a connection makes of a server's answers, and of one request's
 * lifetime: results are depth-bounded before anything recurses on them, a
 * server's JSON-RPC error text is escaped and bounded, a call's result is read
 * loosely, and each request gets its own AbortSignal.
 */
import type { ProtocolError } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { defined, isPlainObject, jsonProblem } from '../../json.js';
import type { CallOptions, McpCallResult } from '../connection-types.js';
import { MAX_JSON_DEPTH, MAX_SERVER_TEXT } from '../../bounds.js';
import { outsideText } from '../../outside-text.js';
import { serverWords } from '../server-words.js';

/** Nesting of a server's result beyond which it is not read (protocol_error, reason result_too_deep). */

/** Throws protocol_error result_too_deep when a server's result nests deeper than {@link MAX_JSON_DEPTH}; nothing recurses on it before. */
export function boundedDepth<T>(result: T, what: string): T {
  if (jsonProblem(result, { depth: MAX_JSON_DEPTH, bytes: Number.MAX_SAFE_INTEGER }) === 'too_deep') {
    throw new AgtError('protocol_error', `the server's answer to the ${what} nests deeper than ${MAX_JSON_DEPTH} levels; it was not read`, {
      details: { reason: 'result_too_deep', limit: MAX_JSON_DEPTH },
    });
  }
  return result;
}

// A JSON-RPC error's message as the server wrote it, without the SDK's prefix, control characters escaped, bounded.
export function serverText(error: ProtocolError): string {
  return serverWords(error.message.replace(/^MCP error -?\d+: /, ''));
}

/**
 * The signal of a request no caller can cancel: never aborted, shared by such
 * requests. It is not handed to the SDK (`sdkSignal`), and what may hook a
 * listener to it and keep it (a host's question handler) gets a signal of its
 * own (`ownSignal`), so nothing piles up on it.
 */
export const NO_SIGNAL: AbortSignal = new AbortController().signal;
const NO_REQUEST_SIGNAL = Object.freeze({ signal: NO_SIGNAL, release: () => undefined });

/** The signal to hand the SDK for a request: none for one nothing can cancel. */
export const sdkSignal = (signal: AbortSignal): { signal?: AbortSignal } => (signal === NO_SIGNAL ? {} : { signal });

/** A signal a listener may be hooked to and kept: a fresh one in place of the shared NO_SIGNAL. */
export const ownSignal = (signal: AbortSignal): AbortSignal => (signal === NO_SIGNAL ? new AbortController().signal : signal);

/**
 * A signal for one request, aborted when the caller's `signal` aborts while the
 * request is in flight. The SDK adds a listener to the signal it is given and
 * never removes it; that listener holds the request and its result, so handing
 * it a long-lived host signal would keep every result alive. `release()` (on
 * every exit) unhooks from the caller's signal: an abort after the request
 * settled cancels nothing (MCP cancels only requests in progress).
 */
export function requestSignal(signal: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
  if (signal === undefined) return NO_REQUEST_SIGNAL; // nothing can cancel it: no controller per request
  const controller = new AbortController();
  if (signal.aborted) {
    controller.abort(signal.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', onAbort) };
}

/** A call's progress listener, guarded: its messages through outsideText, its failure never the call's. */
export function progressOf(onProgress: NonNullable<CallOptions['onProgress']>) {
  return (p: { progress: number; total?: number; message?: string }) => {
    try {
      // A server's progress message is outside text a listener may print: one line, no controls, bounded.
      const message = typeof p.message === 'string' ? outsideText(p.message, { max: MAX_SERVER_TEXT }) : undefined;
      onProgress({ progress: p.progress, ...defined({ total: p.total }), ...defined({ message }) });
    } catch {
      // a progress hook's failure never breaks the call
    }
  };
}

/** A call's result, loosely: a malformed structuredContent is the caller's per-call error, not a transport failure. */
export function readCallResult(result: Record<string, unknown>): McpCallResult {
  boundedDepth(result, 'call');
  if (result.content !== undefined && !Array.isArray(result.content)) {
    throw new AgtError('protocol_error', 'the server answered the call with a "content" that is not an array', {
      details: { reason: 'invalid_call_result' },
    });
  }
  return {
    content: (result.content as McpCallResult['content'] | undefined) ?? [], // parts as sent: the caller reads them as unknown
    ...defined({ structuredContent: result.structuredContent }),
    isError: result.isError === true,
    ...(isPlainObject(result._meta) ? { _meta: result._meta } : {}),
  };
}
