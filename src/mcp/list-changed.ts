/** List-change notifications of a server, fanned out to the connection's listeners. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ListChangedKind } from './connection.js';

/** Listeners of list changes, wired into a client before it connects. */
export class ListChangedHub {
  readonly #listeners = new Set<(kind: ListChangedKind) => void>();

  /** Installs the notification handlers on `client`. */
  attach(client: Client): void {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#emit('tools'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.#emit('resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.#emit('prompts'));
  }

  /** Adds a listener; returns its removal. */
  add(listener: (kind: ListChangedKind) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #emit(kind: ListChangedKind): void {
    for (const listener of this.#listeners) {
      try {
        listener(kind);
      } catch {
        // a listener's failure never reaches the protocol layer
      }
    }
  }
}
