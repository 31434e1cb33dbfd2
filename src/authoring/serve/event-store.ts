/**
 * A bounded in-memory EventStore for serveHttp: what an SSE stream sent is
 * kept so a client that reconnects with Last-Event-ID (after the server closed
 * the stream mid-call, SEP-1699, or the network dropped it) gets the rest.
 * At most `maxEvents` events are kept across all streams, oldest dropped first.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { DEFAULT_RESUMABLE_EVENTS } from '../../bounds.js';

/** Events in memory, bounded. */
export class BoundedEventStore implements EventStore {
  readonly #events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  readonly #max: number;
  #next = 0;

  constructor(maxEvents = DEFAULT_RESUMABLE_EVENTS) {
    this.#max = maxEvents;
  }

  /** Keeps one event; its id sorts after every earlier one of this store. */
  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${String(this.#next++).padStart(12, '0')}`;
    this.#events.set(id, { streamId, message });
    if (this.#events.size > this.#max) this.#events.delete(this.#events.keys().next().value as string);
    return id;
  }

  /** The stream an event belongs to. */
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  /** Sends the events of `lastEventId`'s stream that came after it, in order. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = this.#events.get(lastEventId)?.streamId ?? '';
    let after = false;
    for (const [id, event] of this.#events) {
      if (id === lastEventId) after = true;
      else if (after && event.streamId === streamId) await send(id, event.message);
    }
    return streamId;
  }
}
