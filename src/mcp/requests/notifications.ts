/**
 * What a server announces without being asked — list changes, log messages,
 * resource updates, finished URL elicitations — fanned out to the
 * connection's listeners. A listener's failure never reaches the protocol
 * layer; a connection masks and bounds what it hands on (connectionEvents).
 */
import type { Client } from '@modelcontextprotocol/client';
import { MAX_JSON_DEPTH } from '../../bounds.js';
import { defined, jsonProblem } from '../../json.js';

/** What a server announced has changed. */
export type ListChangedKind = 'tools' | 'resources' | 'prompts';

/** The log levels of MCP (syslog's), least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A server's `notifications/message`: never part of a tool result. */
export interface McpLogMessage {
  level: LogLevel;
  /** The server's name for the part that logged. */
  logger?: string;
  /** Any JSON, as sent (secrets masked, nesting bounded). */
  data: unknown;
}

/** The notifications a connection hands on, by kind. */
export interface ServerNotifications {
  listChanged: ListChangedKind;
  log: McpLogMessage;
  resourceUpdated: { uri: string };
  elicitationComplete: { elicitationId: string };
}

type Listeners = { [K in keyof ServerNotifications]: Set<(value: ServerNotifications[K]) => void> };

/** Listeners of a server's notifications, wired into a client before it connects (nothing sent during the handshake is missed). */
export class NotificationHub {
  readonly #listeners: Listeners = {
    listChanged: new Set(),
    log: new Set(),
    resourceUpdated: new Set(),
    elicitationComplete: new Set(),
  };
  /** Log messages received so far (the prober reports whether a server logs). */
  logged = 0;

  /** Installs the notification handlers on `client`. */
  attach(client: Client): void {
    client.setNotificationHandler('notifications/tools/list_changed', () => this.#emit('listChanged', 'tools'));
    client.setNotificationHandler('notifications/resources/list_changed', () => this.#emit('listChanged', 'resources'));
    client.setNotificationHandler('notifications/prompts/list_changed', () => this.#emit('listChanged', 'prompts'));
    client.setNotificationHandler('notifications/message', ({ params }) => {
      this.logged += 1;
      this.#emit('log', {
        level: params.level,
        ...(typeof params.logger === 'string' ? { logger: params.logger } : {}),
        data: params.data,
      });
    });
    client.setNotificationHandler('notifications/resources/updated', ({ params }) => this.#emit('resourceUpdated', { uri: params.uri }));
    client.setNotificationHandler('notifications/elicitation/complete', ({ params }) =>
      this.#emit('elicitationComplete', { elicitationId: params.elicitationId }),
    );
  }

  /** Adds a listener of one kind; returns its removal. */
  add<K extends keyof ServerNotifications>(kind: K, listener: (value: ServerNotifications[K]) => void): () => void {
    const set = this.#listeners[kind] as Set<(value: ServerNotifications[K]) => void>;
    set.add(listener);
    return () => void set.delete(listener);
  }

  #emit<K extends keyof ServerNotifications>(kind: K, value: ServerNotifications[K]): void {
    for (const listener of this.#listeners[kind] as Set<(value: ServerNotifications[K]) => void>) {
      try {
        listener(value);
      } catch {
        // a listener's failure never reaches the protocol layer
      }
    }
  }
}

/** What a server announces, heard on a connection: the part of McpConnection that {@link connectionEvents} implements. */
export interface ConnectionEvents {
  /** Calls `listener` on each list_changed notification of the server; returns the unsubscribe. */
  onListChanged(listener: (kind: ListChangedKind) => void): () => void;
  /** Calls `listener` on each log message of the server (masked; never part of a result); returns the unsubscribe. */
  onLog(listener: (message: McpLogMessage) => void): () => void;
  /** Calls `listener` when a subscribed resource changed; returns the unsubscribe. */
  onResourceUpdated(listener: (update: { uri: string }) => void): () => void;
  /** Calls `listener` when the server says a URL-mode elicitation finished; returns the unsubscribe. */
  onElicitationComplete(listener: (notice: { elicitationId: string }) => void): () => void;
}

/** The listeners of a connection on `hub`: what they are handed is masked, and a log message nested too deep is not read. */
export function connectionEvents(hub: NotificationHub, masked: <T>(value: T) => T): ConnectionEvents {
  // A log message's data is server data: masked, and dropped when it nests too deep to read safely.
  const logged = (message: McpLogMessage): McpLogMessage =>
    jsonProblem(message.data, { depth: MAX_JSON_DEPTH, bytes: Number.MAX_SAFE_INTEGER }) === 'too_deep'
      ? { ...masked({ level: message.level, ...defined({ logger: message.logger }) }), data: '(not read: nested too deep)' }
      : masked(message);
  return {
    onListChanged: (listener) => hub.add('listChanged', listener),
    onLog: (listener) => hub.add('log', (message) => listener(logged(message))),
    onResourceUpdated: (listener) => hub.add('resourceUpdated', (update) => listener(masked(update))),
    onElicitationComplete: (listener) => hub.add('elicitationComplete', (notice) => listener(masked(notice))),
  };
}
