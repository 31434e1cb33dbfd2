/**
 * What a failed request of a connection is, as a stable AgtError: the
 * caller's cancel, a timeout, the server gone (or its stream broken), an
 * auth failure, an unknown resource or prompt, an oversized answer, or the
 * server's own JSON-RPC error in its own (escaped, bounded) words.
 */
import { ProtocolError, ProtocolErrorCode, SdkErrorCode, SdkError } from '@modelcontextprotocol/client';
import { AgtError, isAgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { authRequired, isAuthFailure, isOAuthFlowError, type McpAuth } from '../auth/auth.js';
import { transportFailure } from './transport-failure.js';
import type { RequestOptions } from '../connection-types.js';
import { oversizedAnswer } from '../oversized.js';
import { isInputMethod } from './client-handlers.js';
import { roundsExceeded, unanswerable } from './input-rounds.js';
import { refusedRequestState } from './request-state.js';
import { serverText } from './server-answers.js';
import type { ProcessGroupStdioTransport } from '../process/stdio-transport.js';
import { isRequestTimeout, type Timeouts } from '../settings/timeouts.js';

/** Adds the stderr tail of a stdio server to an error's details. */
export function withStderr(error: AgtError, stdio: ProcessGroupStdioTransport | undefined): AgtError {
  const stderrTail = stdio?.stderr.text(2000) ?? '';
  if (stderrTail === '' || error.details?.stderrTail !== undefined) return error;
  return new AgtError(error.code, error.message, { details: { ...error.details, stderrTail }, cause: error.cause });
}

/** Where a request failed: the connection's parts that tell what happened. */
export interface RequestScene {
  stdio: ProcessGroupStdioTransport | undefined;
  timeouts: Timeouts;
  auth: McpAuth | undefined;
  /** The config sends its own Authorization header. */
  authHeader: boolean;
  /** True once the connection is gone. */
  gone(): boolean;
}

/** The AgtError of a request `what` that failed with `error`. */
export function requestError(what: string, error: unknown, options: RequestOptions, on: RequestScene): AgtError {
  const { stdio, timeouts, auth, authHeader, gone } = on;
  if (isAgtError(error)) return withStderr(error, stdio);
  if (options.signal?.aborted) {
    const reason: unknown = options.signal.reason; // a deadline of the caller's (a run's batchTimeoutMs) says so
    if (isAgtError(reason) && reason.code === 'call_timeout') return reason;
    return new AgtError('cancelled', `the ${what} was cancelled; the server was sent notifications/cancelled`);
  }
  const timeoutMs = options.timeoutMs ?? timeouts.callMs;
  if (isRequestTimeout(error)) {
    return new AgtError(
      'call_timeout',
      `the server did not answer the ${what} within ${timeoutMs} ms; it was cancelled (notifications/cancelled sent)`,
      { details: { timeoutMs } },
    );
  }
  if (gone())
    return withStderr(
      stdio?.fatal ?? new AgtError('connection_closed', `the server went away during the ${what}`, { cause: error }),
      stdio,
    );
  if (isAuthFailure(error) || isOAuthFlowError(error)) return authRequired(error, auth, false, authHeader);
  if (
    error instanceof ProtocolError &&
    (what === 'resources/read' || what === 'prompts/get') &&
    (error.code === -32002 || error.code === ProtocolErrorCode.InvalidParams)
  ) {
    return new AgtError(
      'not_found',
      `the server has no such ${what === 'prompts/get' ? 'prompt' : 'resource'} (${what}): ${serverText(error)}`,
      { details: { rpcCode: error.code } },
    );
  }
  const refused = refusedRequestState(error, what);
  if (refused !== undefined) return refused;
  const unanswerable = unanswerableInput(error, what);
  if (unanswerable !== undefined) return unanswerable;
  const oversized = oversizedAnswer(error, what);
  if (oversized !== undefined) return oversized;
  const transport = transportFailure(error, what);
  if (transport !== undefined) return transport;
  if (error instanceof ProtocolError) {
    // The server's own words, escaped and bounded (and masked by send): what the model and the host need to act.
    return new AgtError('protocol_error', `the server answered the ${what} with an error (JSON-RPC ${error.code}): ${serverText(error)}`, {
      details: { reason: 'server_error', rpcCode: error.code },
    });
  }
  return new AgtError('protocol_error', `the server's answer to the ${what} is not a valid MCP result`, {
    details: { reason: 'invalid_result' },
    cause: error,
  });
}

/**
 * A 2026-07-28 server's question the SDK could not answer (input_required on a request the SDK answers itself): one
 * the connection declared no handler for (which the protocol forbids the server to ask), or more rounds than the bound.
 */
function unanswerableInput(error: unknown, what: string): AgtError | undefined {
  if (!(error instanceof SdkError)) return undefined;
  const method = isPlainObject(error.data) ? error.data.method : undefined;
  if (error.code === SdkErrorCode.CapabilityNotSupported && isInputMethod(method)) return unanswerable(method, what);
  if (error.code === SdkErrorCode.InputRequiredRoundsExceeded) return roundsExceeded(what);
  return undefined;
}
