/**
 * The raw request path a 2026-07-28 task session needs (ext-tasks'
 * `rawDispatch`): the SDK client's result decoder refuses `resultType: "task"`
 * before any caller sees it, so task-eligible requests (`tools/call`,
 * `tasks/*`) go on the connection's own transport with ids of their own, and
 * their responses are taken off the transport before the SDK's protocol reads
 * them. Everything else the transport delivers reaches the SDK as before. Each
 * request is bounded by its timeout and its signal (either sends
 * `notifications/cancelled`, as the SDK does); nothing is kept after it
 * settles.
 */
import { SdkError, SdkErrorCode, type Transport } from '@modelcontextprotocol/client';
import { isPlainObject } from '../../json.js';

/** A JSON-RPC answer as ext-tasks reads it. */
export type RawAnswer =
  { kind: 'result'; result: Record<string, unknown> } | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

/** Sends one request and resolves with its answer (rejects on timeout, abort or a closed transport). */
export type RawDispatch = (
  request: unknown,
  options?: {
    signal?: AbortSignal;
    context?: { requestTimeoutMs?: number };
    onProgress?: (params: Record<string, unknown>) => void;
    /** An answer that comes after the caller gave up (its signal aborted), within the timeout: a task to cancel. */
    onLate?: (answer: RawAnswer) => void;
  },
) => Promise<RawAnswer>;

interface Waiting {
  resolve(answer: RawAnswer): void;
  reject(error: Error): void;
}

/** Raw requests on `transport`, each within `defaultTimeoutMs` unless the request says otherwise. */
export function rawDispatcher(transport: Transport, defaultTimeoutMs: number): { dispatch: RawDispatch; close(): void } {
  const waiting = new Map<string, Waiting>();
  const progress = new Map<string, (params: Record<string, unknown>) => void>();
  let next = 0;
  const inner = transport.onmessage;
  // Our ids are strings the SDK never uses (its own are numbers): a response to one is ours alone.
  transport.onmessage = (message, extra) => {
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (method === 'notifications/progress' && isPlainObject(params) && typeof params.progressToken === 'string') {
      const listener = progress.get(params.progressToken);
      if (listener !== undefined) return listener(params);
    }
    const mine = typeof id === 'string' ? waiting.get(id) : undefined;
    if (mine === undefined || 'method' in message) return inner?.(message, extra);
    waiting.delete(id as string);
    const answer = answerOf(message);
    if (answer === undefined) mine.reject(new Error('the server answered a request with neither a result nor an error'));
    else mine.resolve(answer);
  };

  const dispatch: RawDispatch = (request, options = {}) => {
    const { method, params: given } = request as { method: string; params?: Record<string, unknown> };
    const id = `agt-raw-${++next}`;
    const onProgress = options.onProgress;
    // Progress of this request is asked for with its own id as the token, and goes to this request's listener alone.
    const params = onProgress === undefined ? given : { ...given, _meta: { ...(given?._meta as object), progressToken: id } };
    const timeoutMs = options.context?.requestTimeoutMs ?? defaultTimeoutMs;
    return new Promise<RawAnswer>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        waiting.delete(id);
        progress.delete(id);
      };
      const fail = (error: Error) => {
        done();
        reject(error);
      };
      // Given up (the caller's abort, or the timeout): the server is told (notifications/cancelled), and an answer
      // that still comes within the timeout goes to onLate (a task to cancel), never to the SDK.
      const giveUp = (error: Error, reason: string) => {
        const late = options.onLate;
        fail(error);
        if (late !== undefined) {
          const until = setTimeout(() => waiting.delete(id), timeoutMs);
          const settle = () => {
            clearTimeout(until);
            waiting.delete(id);
          };
          waiting.set(id, { resolve: (answer) => (settle(), late(answer)), reject: settle });
        }
        void transport
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } })
          .catch(() => undefined);
      };
      const onAbort = () =>
        giveUp(
          options.signal?.reason instanceof Error ? options.signal.reason : new Error('the request was cancelled'),
          'cancelled by the caller',
        );
      // A timeout as the SDK's own (SdkError RequestTimeout): the connection maps it to call_timeout, never to the server.
      const timer = setTimeout(
        () =>
          giveUp(
            new SdkError(SdkErrorCode.RequestTimeout, `the server did not answer ${method} within ${timeoutMs} ms`, { timeout: timeoutMs }),
            'timed out',
          ),
        timeoutMs,
      );
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (onProgress !== undefined) progress.set(id, onProgress);
      waiting.set(id, {
        resolve: (answer) => {
          done();
          resolve(answer);
        },
        reject: fail,
      });
      transport.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }).catch(fail);
    });
  };

  return {
    dispatch,
    close() {
      if (transport.onmessage !== undefined) transport.onmessage = inner;
      for (const w of [...waiting.values()]) w.reject(new Error('the connection to the server is closed'));
      waiting.clear();
      progress.clear();
    },
  };
}

// A response as ext-tasks reads it: its result object, or its error (code and message as sent, bounded later).
function answerOf(message: unknown): RawAnswer | undefined {
  const answer = message as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (isPlainObject(answer.error))
    return {
      kind: 'error',
      error: {
        code: typeof answer.error.code === 'number' ? answer.error.code : -32603,
        message: typeof answer.error.message === 'string' ? answer.error.message : '',
        ...(answer.error.data === undefined ? {} : { data: answer.error.data }),
      },
    };
  return isPlainObject(answer.result) ? { kind: 'result', result: answer.result } : undefined;
}
