/**
 * A fetch whose response bodies are bounded before the SDK parses them, as
 * stdio lines are. A JSON body, or one Server-Sent Event, longer than the
 * limit is never held: its bytes are dropped as they arrive, its JSON-RPC id
 * is read from its head or tail, and the SDK gets a JSON-RPC error for that
 * id instead (data.agtReason `oversized_message`), so only that request
 * fails and the connection lives on. Without a readable id the body errors.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { AgtError } from '../errors.js';
import { OVERSIZED_EDGE, oversizedError, oversizedResponseId } from './oversized.js';

const EDGE = OVERSIZED_EDGE;
const BOUNDARY = /\r?\n\r?\n/g;

function replacement(head: string, tail: string, maxBytes: number, sse: boolean): string | undefined {
  const id = oversizedResponseId(head, tail);
  if (id === undefined) return undefined;
  const json = oversizedError(id, maxBytes);
  return sse ? `event: message\ndata: ${json}\n\n` : json;
}

/** `base` (default: the global fetch) with every response body bounded to `maxBytes` (per event for event streams). */
export function boundedFetch(maxBytes: number, base: FetchLike = (url, init) => fetch(url, init)): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.body === null) return response;
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let pending = ''; // the message (event) so far, while within the limit
    let pendingBytes = 0;
    let overflow: { head: string; tail: string } | undefined;
    const tooLarge = () =>
      new AgtError('protocol_error', `the server sent a message larger than ${maxBytes} bytes without a readable id`, {
        details: { reason: 'oversized_message', limitBytes: maxBytes },
      });

    const take = (text: string, controller: TransformStreamDefaultController<Uint8Array>): void => {
      let rest = text;
      while (rest !== '') {
        if (overflow !== undefined) {
          const joined = overflow.tail + rest;
          BOUNDARY.lastIndex = 0;
          const end = sse ? BOUNDARY.exec(joined) : null;
          if (end === null) {
            overflow.tail = joined.slice(-EDGE);
            return;
          }
          const swap = replacement(overflow.head, joined.slice(0, end.index).slice(-EDGE), maxBytes, sse);
          if (swap === undefined) throw tooLarge();
          controller.enqueue(encoder.encode(swap));
          overflow = undefined;
          rest = joined.slice(end.index + end[0].length);
          continue;
        }
        const searched = Math.max(0, pending.length - 3); // a boundary may straddle chunks; never rescan the rest
        pending += rest;
        pendingBytes += Buffer.byteLength(rest);
        rest = '';
        BOUNDARY.lastIndex = searched;
        for (let end = sse ? BOUNDARY.exec(pending) : null; end !== null; end = BOUNDARY.exec(pending)) {
          const event = pending.slice(0, end.index + end[0].length);
          controller.enqueue(encoder.encode(event));
          pending = pending.slice(event.length);
          pendingBytes = Buffer.byteLength(pending);
          BOUNDARY.lastIndex = 0;
        }
        if (pendingBytes > maxBytes) {
          overflow = { head: pending.slice(0, EDGE), tail: pending.slice(-EDGE) };
          pending = '';
          pendingBytes = 0;
        }
      }
    };

    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        take(decoder.decode(chunk, { stream: true }), controller);
      },
      flush(controller) {
        take(decoder.decode(), controller);
        if (overflow !== undefined) {
          const swap = replacement(overflow.head, overflow.tail, maxBytes, sse);
          if (swap === undefined) throw tooLarge();
          controller.enqueue(encoder.encode(swap));
        } else if (pending !== '') controller.enqueue(encoder.encode(pending));
      },
    });
    return new Response(response.body.pipeThrough(limit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
