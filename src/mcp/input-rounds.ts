/**
 * Calls whose questions may wait (MCP 2026-07-28, multi round-trip requests):
 * a tool call of a connection that defers some questions (`'defer'`), or that
 * retries with answers, goes in the SDK's manual mode (`allowInputRequired`),
 * so a server's `input_required` result comes back here. A round whose every
 * question the connection answers itself (a handler given, not deferred) is
 * answered and retried at once, up to MAX_INPUT_ROUNDS; a round with a
 * deferred question goes back to the caller as McpInputRequired — the
 * questions masked and bounded, the server's state verbatim (never parsed,
 * never shown). Nothing here lives between rounds: a retry names the
 * questions, the answers and the state again.
 */
import { AgtError } from '../errors.js';
import { defined, isPlainObject } from '../json.js';
import { type ClientHandlers, INPUT_METHODS, type InputMethod } from './client-handlers.js';
import type { InputRetry, McpInputRequest, McpInputRequired } from './connection-types.js';

/** The most rounds one call answers by itself (the SDK's own default bound). */
export const MAX_INPUT_ROUNDS = 10;

/** The most questions one round may ask. */
export const MAX_INPUT_REQUESTS = 32;

const KEY = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The questions of an `input_required` result, checked (undefined for any other result). */
export function readInputRequired(result: Record<string, unknown>): McpInputRequired | undefined {
  if (result.resultType !== 'input_required') return undefined;
  const invalid = (why: string) =>
    new AgtError('protocol_error', `the server asked for input in a way MCP does not define: ${why}`, {
      details: { reason: 'invalid_input_request' },
    });
  const requests = result.inputRequests;
  if (!isPlainObject(requests) || Object.keys(requests).length === 0) throw invalid('no inputRequests');
  const keys = Object.keys(requests);
  if (keys.length > MAX_INPUT_REQUESTS) throw invalid(`more than ${MAX_INPUT_REQUESTS} questions in one round`);
  const out: Record<string, McpInputRequest> = {};
  for (const key of keys) {
    const request = requests[key];
    if (!KEY.test(key)) throw invalid('a question key that is not a short name');
    if (!isPlainObject(request) || !INPUT_METHODS.includes(request.method as InputMethod))
      throw invalid(`question "${key}" is not an elicitation, sampling or roots request`);
    if (request.params !== undefined && !isPlainObject(request.params))
      throw invalid(`question "${key}" has params that are not an object`);
    out[key] = { method: request.method as InputMethod, params: (request.params ?? {}) as Record<string, unknown> };
  }
  const state = result.requestState;
  if (state !== undefined && typeof state !== 'string') throw invalid('a requestState that is not a string');
  return { resultType: 'input_required', inputRequests: out, ...defined({ requestState: state }) };
}

/** True when the connection answers `method` itself: a handler is given and the question is not deferred. */
export function answersInline(handlers: ClientHandlers, method: InputMethod): boolean {
  if (handlers.deferred?.includes(method)) return false;
  return method === 'elicitation/create'
    ? handlers.elicitation !== undefined
    : method === 'sampling/createMessage'
      ? handlers.sampling !== undefined
      : handlers.roots !== undefined;
}

/** Answers the questions the connection answers itself; `only`: those keys (the rest are the caller's). */
export async function answerInline(
  requests: Readonly<Record<string, McpInputRequest>>,
  handlers: ClientHandlers,
  signal: AbortSignal,
  only?: readonly string[],
): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const key of only ?? Object.keys(requests)) {
    const { method, params } = requests[key] as McpInputRequest;
    try {
      if (method === 'elicitation/create') answers[key] = await handlers.elicitation!(params as never, { signal });
      else if (method === 'sampling/createMessage') answers[key] = await handlers.sampling!(params as never, { signal });
      else answers[key] = { roots: (await handlers.roots!({ signal })).map((r) => ({ ...r })) };
    } catch {
      throw new AgtError('protocol_error', `the client's ${method} handler failed, so the server's question "${key}" has no answer`, {
        details: { reason: 'input_handler_failed', method },
      });
    }
  }
  return answers;
}

/** The params a retry adds: every answer (the caller's, and the connection's own for the rest) and the state, echoed. */
export async function retryParams(
  retry: InputRetry,
  handlers: ClientHandlers,
  signal: AbortSignal,
): Promise<{ inputResponses: Record<string, unknown>; requestState?: string }> {
  const missing = Object.keys(retry.requests).filter((key) => !Object.hasOwn(retry.responses, key));
  const unanswered = missing.filter((key) => !answersInline(handlers, (retry.requests[key] as McpInputRequest).method));
  if (unanswered.length > 0)
    throw new AgtError('invalid_input', `the retry has no answer to the server's question(s) ${unanswered.join(', ')}`, {
      details: { keys: unanswered },
    });
  const own = await answerInline(retry.requests, handlers, signal, missing);
  return { inputResponses: { ...retry.responses, ...own }, ...defined({ requestState: retry.requestState }) };
}

/** The error of a round that asks a deferred question of a caller that cannot wait (callTool). */
export function deferredQuestion(asked: McpInputRequired): AgtError {
  const methods = [...new Set(Object.values(asked.inputRequests).map((r) => r.method))];
  return new AgtError(
    'protocol_error',
    `the server asked for ${methods.join(', ')}, which this connection defers; call the tool with callToolOrInput (a run leaves the call pending)`,
    { details: { reason: 'input_deferred', methods } },
  );
}

/** The error of a call whose server kept asking questions the connection answers itself. */
export function roundsExceeded(): AgtError {
  return new AgtError(
    'input_rounds_exceeded',
    `the server kept asking for input (more than ${MAX_INPUT_ROUNDS} rounds); the call was stopped`,
    { details: { rounds: MAX_INPUT_ROUNDS } },
  );
}
