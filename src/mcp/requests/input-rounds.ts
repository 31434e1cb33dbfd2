/**
 * Calls whose server asks questions (MCP 2026-07-28, multi round-trip
 * requests): every tool call goes in the SDK's manual mode
 * (`allowInputRequired`), so a server's `input_required` result always comes
 * back here and one bound holds for every round, whoever answers it. Each
 * question method has one route ({@link questionRoute}): answered inline by
 * the connection's handler, deferred to the caller, or unanswerable (no
 * handler: the call fails with `input_unanswerable`, naming the method). A
 * round whose every question is inline is answered and retried at once, up
 * to MAX_INPUT_ROUNDS; a round with a deferred question goes back to the
 * caller as McpInputRequired — the questions masked and bounded, the
 * server's state verbatim (never parsed, never shown). Question keys are own
 * properties (`__proto__` is a key like any other). Nothing here lives
 * between rounds: a retry names the questions, the answers and the state again.
 */
import type { Client } from '@modelcontextprotocol/client';
import { AgtError, isAgtError } from '../../errors.js';
import { defined, isPlainObject, setOwn } from '../../json.js';
import { MAX_INPUT_REQUESTS, MAX_INPUT_ROUNDS } from '../../bounds.js';
import { type ClientHandlers, type InputMethod, isInputMethod } from './client-handlers.js';
import type { InputRetry, McpInputRequest, McpInputRequired } from '../connection-types.js';

const KEY = /^[A-Za-z0-9_.:-]{1,128}$/;

/** What happens to a question of one method: answered by a handler at once, left to the caller, or not answerable at all. */
export type QuestionRoute = 'inline' | 'defer' | 'unanswerable';

/** The one decision per question method: `defer` when the method is deferred, `inline` when a handler is given, else `unanswerable`. */
export function questionRoute(handlers: ClientHandlers, method: InputMethod): QuestionRoute {
  if (handlers.deferred?.includes(method)) return 'defer';
  const handler =
    method === 'elicitation/create' ? handlers.elicitation : method === 'sampling/createMessage' ? handlers.sampling : handlers.roots;
  return handler === undefined ? 'unanswerable' : 'inline';
}

/** The questions of an `input_required` result, checked (undefined for any other result). */
export function readInputRequired(result: Record<string, unknown>): McpInputRequired | undefined {
  if (result.resultType !== 'input_required') return undefined;
  const invalid = (why: string) =>
    new AgtError('protocol_error', `the server asked for input in a way MCP does not define: ${why}`, {
      details: { reason: 'invalid_input_request' },
    });
  const requests = result.inputRequests;
  // A round with no question would be retried as it is: a loop, not a question.
  if (!isPlainObject(requests) || Object.keys(requests).length === 0) throw invalid('no inputRequests');
  const keys = Object.keys(requests);
  if (keys.length > MAX_INPUT_REQUESTS) throw invalid(`more than ${MAX_INPUT_REQUESTS} questions in one round`);
  const out: Record<string, McpInputRequest> = {};
  for (const key of keys) {
    const request = requests[key];
    if (!KEY.test(key)) throw invalid('a question key that is not a short name');
    const { method, params } = isPlainObject(request) ? request : {};
    if (!isInputMethod(method)) throw invalid(`question "${key}" is not an elicitation, sampling or roots request`);
    if (params !== undefined && !isPlainObject(params)) throw invalid(`question "${key}" has params that are not an object`);
    setOwn(out, key, { method, params: params ?? {} });
  }
  const state = result.requestState;
  if (state !== undefined && typeof state !== 'string') throw invalid('a requestState that is not a string');
  return { resultType: 'input_required', inputRequests: out, ...defined({ requestState: state }) };
}

/** The error of a question no handler was given for (the protocol forbids the server to ask it): names the method and the fix. */
export function unanswerable(method: string, what: string): AgtError {
  const handler = method === 'elicitation/create' ? 'an `elicitation`' : method === 'sampling/createMessage' ? 'a `sampling`' : 'a `roots`';
  return new AgtError(
    'protocol_error',
    `the server asked for ${method} during the ${what}, which this connection did not declare; give the connection ${handler} handler to answer it`,
    { details: { reason: 'input_unanswerable', method } },
  );
}

/** Throws input_unanswerable for the first question of `requests` that nobody can answer. */
export function checkAnswerable(requests: Readonly<Record<string, McpInputRequest>>, handlers: ClientHandlers, what: string): void {
  for (const key of Object.keys(requests)) {
    const { method } = requests[key] as McpInputRequest;
    if (questionRoute(handlers, method) === 'unanswerable') throw unanswerable(method, what);
  }
}

/**
 * Answers one question through the handler registered on `client` — the
 * SDK's own chain around ours (the request and the result checked, a form's
 * defaults applied: SEP-1034), exactly as the SDK answers a round it
 * fulfils itself, and as a 2025 connection answers a pushed request.
 */
function viaClient(
  client: Client,
  key: string,
  method: InputMethod,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  // The SDK keeps a client's registered handlers (its own checks around ours) behind a protected method: read as unknown.
  const lookup: unknown = Reflect.get(client, '_getRequestHandler');
  const registered: unknown = typeof lookup === 'function' ? lookup.call(client, method) : undefined;
  if (typeof registered !== 'function') throw unanswerable(method, 'call');
  const answer: unknown = registered(
    { jsonrpc: '2.0', id: key, method, params },
    { mcpReq: { id: key, method, _meta: params._meta, signal } },
  );
  return Promise.resolve(answer);
}

/** Answers the questions the connection answers itself, each through the client's handler; `only`: those keys (the rest are the caller's). */
export async function answerInline(
  requests: Readonly<Record<string, McpInputRequest>>,
  client: Client,
  signal: AbortSignal,
  only?: readonly string[],
): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const key of only ?? Object.keys(requests)) {
    const { method, params } = requests[key] as McpInputRequest;
    try {
      setOwn(answers, key, await viaClient(client, key, method, params, signal));
    } catch (error) {
      if (isAgtError(error)) throw error;
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
  client: Client,
  signal: AbortSignal,
): Promise<{ inputResponses: Record<string, unknown>; requestState?: string }> {
  const missing = Object.keys(retry.requests).filter((key) => !Object.hasOwn(retry.responses, key));
  const unanswered = missing.filter((key) => questionRoute(handlers, (retry.requests[key] as McpInputRequest).method) !== 'inline');
  if (unanswered.length > 0)
    throw new AgtError('invalid_input', `the retry has no answer to the server's question(s) ${unanswered.join(', ')}`, {
      details: { keys: unanswered },
    });
  const own = await answerInline(retry.requests, client, signal, missing);
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

/** The error of a question the connection defers, asked inside a task it waits for inline (deferring tasks lets it wait). */
export function deferredInTask(): AgtError {
  return new AgtError(
    'protocol_error',
    'the task of this call asked a question this connection defers; a task waited for inline is answered by the handlers only (set "tasks": "defer" to let the call wait)',
    { details: { reason: 'input_deferred_in_task' } },
  );
}

/** The error of a call whose server kept asking questions past MAX_INPUT_ROUNDS (whoever answered them). */
export function roundsExceeded(what = 'call'): AgtError {
  return new AgtError(
    'input_rounds_exceeded',
    `the server kept asking for input during the ${what} (more than ${MAX_INPUT_ROUNDS} rounds); the call was stopped`,
    { details: { rounds: MAX_INPUT_ROUNDS } },
  );
}
