/**
 * The bound of a server's `requestState` (2026-07-28 multi round-trip
 * requests): an opaque string the client echoes on every retry, so an
 * oversized one would be sent back again and again. Every message a
 * connection receives passes through {@link guardRequestState}: an
 * `input_required` result whose state is over MAX_REQUEST_STATE_BYTES becomes
 * an error answer to that request alone (the state dropped unread, never
 * echoed, never shown), and so does one whose state is not a string (which
 * the SDK's decoder would drop, so a retry would go out without it); the
 * connection and its other requests go on. A cacheable result's cache fields
 * are made lenient here too (lists.ts, lenientCacheFields): the one seam
 * before the SDK's strict wire schema.
 */
import { type JSONRPCMessage, ProtocolError, ProtocolErrorCode, type Transport } from '@modelcontextprotocol/client';
import { MAX_REQUEST_STATE_BYTES } from '../../bounds.js';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { lenientCacheFields } from './lists.js';
import { serverText } from './server-answers.js';

/** The marker of the error answer that stands in for a refused state. */
const REFUSED = 'agt-mcp:request_state_too_large';

/**
 * `transport`, with every message it delivers from now on checked: its `onmessage` becomes an accessor on the object
 * itself, so whatever handler is set (the SDK's) receives checked messages. No proxy: every other property is the
 * transport's own, read at no extra cost (a proxy bound a fresh function on each read of `send`, once per request).
 */
export function guardRequestState<T extends Transport>(transport: T): T {
  let handler = transport.onmessage;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set(value: unknown) {
      if (typeof value !== 'function') {
        handler = value as T['onmessage'];
        return;
      }
      const deliver = value as (message: JSONRPCMessage, extra?: unknown) => void;
      handler = ((message: JSONRPCMessage, extra?: unknown) => deliver(checked(message), extra)) as T['onmessage'];
    },
  });
  return transport;
}

/** The marker of the error answer that stands in for a state that is not a string (the SDK's decoder would drop it silently). */
const NOT_A_STRING = 'agt-mcp:request_state_not_a_string';

function checked(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: unknown }).result;
  if (!isPlainObject(result)) return message;
  if (result.resultType === 'complete') {
    const lenient = lenientCacheFields(result);
    return lenient === result ? message : { ...message, result: lenient };
  }
  if (result.resultType !== 'input_required' || result.requestState === undefined) return message;
  const id = (message as { id: string | number }).id;
  if (typeof result.requestState !== 'string') return { jsonrpc: '2.0', id, error: { code: -32603, message: NOT_A_STRING } };
  if (result.requestState.length * 3 <= MAX_REQUEST_STATE_BYTES || Buffer.byteLength(result.requestState) <= MAX_REQUEST_STATE_BYTES)
    return message;
  return { jsonrpc: '2.0', id, error: { code: -32603, message: REFUSED, data: { limitBytes: MAX_REQUEST_STATE_BYTES } } };
}

/**
 * The AgtError of a request whose answer carried a refused state, or whose retry's state the server refused (its
 * `-32602`, reason `invalid_request_state`: expired, replayed, or sealed under another key); undefined for any other
 * failure.
 */
export function refusedRequestState(error: unknown, what: string): AgtError | undefined {
  if (!(error instanceof Error)) return undefined;
  if (
    error instanceof ProtocolError &&
    error.code === ProtocolErrorCode.InvalidParams &&
    isPlainObject(error.data) &&
    error.data.reason === 'invalid_request_state'
  )
    return new AgtError(
      'protocol_error',
      `the server refused the state of the ${what}'s question (JSON-RPC ${error.code}: ${serverText(error)}): it expired, was ` +
        'used before, or reached a server process that did not seal it — a kit server seals it with its requestStateKey, ' +
        'which every process of the service must share (docs/authoring.md); ask again with a new call',
      { details: { reason: 'server_error', rpcCode: error.code } },
    );
  if (error.message.includes(NOT_A_STRING))
    return new AgtError(
      'protocol_error',
      `the server asked for input during the ${what} with a requestState that is not a string (MCP defines it as an opaque string); the call was stopped, nothing was retried`,
      { details: { reason: 'invalid_input_request' } },
    );
  if (!error.message.includes(REFUSED)) return undefined;
  return new AgtError(
    'protocol_error',
    `the server's requestState for the ${what} is over ${MAX_REQUEST_STATE_BYTES} bytes; it was not sent back and the call was stopped`,
    { details: { reason: 'request_state_too_large', limitBytes: MAX_REQUEST_STATE_BYTES } },
  );
}
