/**
 * What is left of a message too large to read: its JSON-RPC id, found in the
 * first or last few hundred bytes (servers write `"id"` first or last), and
 * the JSON-RPC error that stands in for it, so that only the request it
 * answers fails and the connection lives on. Used for stdio lines and for
 * remote bodies and events alike.
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';

/** The default limit of one message (a stdio line, an HTTP body, an SSE event): 4 MiB. */
export { DEFAULT_MAX_MESSAGE_BYTES } from '../bounds.js';

/** The JSON-RPC error code of a message dropped for its size (the data says why). */
export const OVERSIZED_RPC_CODE = -32600;

/** How much of an oversized message's head and tail is kept to find its id. */
export const OVERSIZED_EDGE = 512;

const HEAD_ID = /^\s*(?:data:\s*)?\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,16}|"[^"\\]{0,200}")/m;
const TAIL_ID = /"id"\s*:\s*(-?\d{1,16}|"[^"\\]{0,200}")\s*\}\s*$/;
// A request or notification names its method among its first top-level keys, before any nested value.
const HEAD_METHOD = /^\s*(?:data:\s*)?\{[^{}[\]]*?"method"\s*:/m;

/**
 * The id (as JSON text) of the response an oversized message was, from its
 * head and tail; undefined when none can be read or when it is a request or
 * notification of the server (an error for its id would fail one of ours).
 */
export function oversizedResponseId(head: string, tail: string): string | undefined {
  if (HEAD_METHOD.test(head)) return undefined;
  return TAIL_ID.exec(tail.trimEnd())?.[1] ?? HEAD_ID.exec(head)?.[1];
}

/**
 * What the head of an oversized message already tells: the id of the response
 * it is (`string`), that it cannot be a response of the server (`false`: a
 * request, a notification, or not a JSON object at all), or not yet (`undefined`).
 */
export function oversizedHead(head: string): string | false | undefined {
  if (!/^\s*(?:data:\s*)?\{/.test(head) || HEAD_METHOD.test(head)) return false;
  return HEAD_ID.exec(head)?.[1];
}

/** The JSON-RPC error response (as JSON text) that stands in for the oversized answer to request `id`. */
export function oversizedError(id: string, maxBytes: number): string {
  return `{"jsonrpc":"2.0","id":${id},"error":{"code":${OVERSIZED_RPC_CODE},"message":"the message is larger than ${maxBytes} bytes; it was not read","data":{"agtReason":"oversized_message","limitBytes":${maxBytes}}}}`;
}

/** The AgtError for the SDK's error of a request whose answer was oversized (protocol_error oversized_message), else undefined. */
export function oversizedAnswer(error: unknown, what: string): AgtError | undefined {
  if (!(error instanceof ProtocolError) || error.code !== OVERSIZED_RPC_CODE || !isPlainObject(error.data)) return undefined;
  if (error.data.agtReason !== 'oversized_message') return undefined;
  const limitBytes = Number(error.data.limitBytes);
  return new AgtError('protocol_error', `the server's answer to the ${what} is larger than ${limitBytes} bytes; it was not read`, {
    details: { reason: 'oversized_message', limitBytes },
  });
}
