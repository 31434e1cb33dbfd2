/**
 * The requests of a connection beyond tools, resources and prompts: ping,
 * completion, the log level, resource subscriptions, and the roots-changed
 * notification. Each is sent only when the server declared what it needs;
 * its answer is masked like everything else a server sends.
 */
import { EmptyResultSchema, ResultSchema } from '@modelcontextprotocol/core';
import type { Client } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { defined, isPlainObject } from '../../json.js';
import type { Completion, CompletionRef, RequestOptions } from '../connection-types.js';
import type { ChangeListener } from './listen.js';
import { LOG_LEVELS, type LogLevel } from './notifications.js';
import { MAX_COMPLETIONS } from '../../bounds.js';

const LooseResult = ResultSchema.loose();

/** Sends one request through the connection (counted, mapped to AgtError codes). */
export type Send = <T>(what: string, run: (signal: AbortSignal) => Promise<T>, options?: RequestOptions) => Promise<T>;

/** A connection's requests beyond tools, resources and prompts: the part of McpConnection that {@link moreRequests} implements. */
export interface ConnectionMoreRequests {
  /** Pings the server (`ping`); resolves with the round trip in milliseconds. */
  ping(options?: RequestOptions): Promise<number>;
  /**
   * Completion values for an argument of a prompt or a resource template
   * (`completion/complete`); `context` holds the arguments already chosen.
   * No values when the server does not declare `completions`.
   */
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<Completion>;
  /** The least severe log level the server should send (`logging/setLevel`); protocol_error when it declares no `logging`. */
  setLogLevel(level: LogLevel, options?: RequestOptions): Promise<void>;
  /** Asks for `notifications/resources/updated` of `uri` (see onResourceUpdated); protocol_error unless it declares `resources.subscribe`. */
  subscribeResource(uri: string, options?: RequestOptions): Promise<void>;
  /** Ends a subscription of subscribeResource. */
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void>;
  /** Tells the server the roots changed (`notifications/roots/list_changed`); nothing without roots declared. */
  rootsChanged(): Promise<void>;
}

/** What the connection's more requests need from it. */
export interface MoreRequestParts {
  client: Client;
  send: Send;
  /** The SDK options of one request. */
  sdkOptions(options: RequestOptions, signal: AbortSignal): { signal?: AbortSignal; timeout: number };
  masked<T>(value: T): T;
  clientCapabilities: Record<string, unknown>;
  /** The subscription stream of a 2026-07-28 connection: resource subscriptions go through it. */
  listener?: ChangeListener;
  /** Sets the log level sent with each request of a 2026-07-28 connection. */
  setRequestLogLevel?(level: LogLevel): void;
}

/** ping, complete, setLogLevel, subscribeResource, unsubscribeResource and rootsChanged of a connection. */
export function moreRequests(parts: MoreRequestParts): ConnectionMoreRequests {
  const { client, send, sdkOptions, masked, clientCapabilities, listener, setRequestLogLevel } = parts;
  const modern = client.getProtocolEra() === 'modern';
  const capability = (name: string) => client.getServerCapabilities()?.[name as 'logging'];
  const notDeclared = (what: string, needs: string) =>
    new AgtError('protocol_error', `the server does not declare "${needs}", so it takes no ${what}`, {
      details: { reason: 'capability_not_declared', capability: needs },
    });
  // A request whose answer is empty.
  const empty = async (method: string, params: Record<string, unknown>, options: RequestOptions) => {
    await send(method, (signal) => client.request({ method, params }, EmptyResultSchema, sdkOptions(options, signal)), options);
  };
  const subscription = async (method: 'resources/subscribe' | 'resources/unsubscribe', uri: string, options: RequestOptions) => {
    const resources = capability('resources');
    if (!isPlainObject(resources) || resources.subscribe !== true) throw notDeclared('subscription', 'resources.subscribe');
    if (modern && listener !== undefined) {
      // 2026-07-28: no resources/subscribe; the subscription stream is opened again with the resource.
      await send(method, () => (method === 'resources/subscribe' ? listener.subscribe(uri) : listener.unsubscribe(uri)), options);
      return;
    }
    await empty(method, { uri }, options);
  };
  return {
    ping: (options = {}) =>
      send(
        'ping',
        async (signal) => {
          const started = performance.now();
          // 2026-07-28 has no ping: a server/discover round trip says the same (the server answers).
          if (modern) await client.request({ method: 'server/discover', params: {} }, LooseResult, sdkOptions(options, signal));
          else await client.ping(sdkOptions(options, signal));
          return performance.now() - started;
        },
        options,
      ),
    complete: async (ref, argument, context, options = {}) => {
      if (!isPlainObject(capability('completions'))) return { values: [] };
      return send(
        'completion/complete',
        async (signal) => {
          const params = { ref, argument, ...(context ? { context: { arguments: context } } : {}) };
          const { completion } = await client.request({ method: 'completion/complete', params }, sdkOptions(options, signal));
          const values = completion.values.slice(0, MAX_COMPLETIONS).map(String);
          return masked<Completion>({ values, ...defined({ total: completion.total, hasMore: completion.hasMore }) });
        },
        options,
      );
    },
    setLogLevel: async (level, options = {}) => {
      if (!LOG_LEVELS.includes(level))
        throw new AgtError('invalid_input', `level must be one of ${LOG_LEVELS.join(', ')}`, { details: { field: 'level' } });
      if (!isPlainObject(capability('logging'))) throw notDeclared('log level', 'logging');
      // 2026-07-28 has no logging/setLevel: the level goes with each later request (no level: no logs).
      if (modern) return void setRequestLogLevel?.(level);
      await empty('logging/setLevel', { level }, options);
    },
    subscribeResource: (uri, options = {}) => subscription('resources/subscribe', uri, options),
    unsubscribeResource: (uri, options = {}) => subscription('resources/unsubscribe', uri, options),
    rootsChanged: async () => {
      // 2026-07-28 has no roots list_changed: servers ask for roots with each request that needs them.
      if (clientCapabilities.roots === undefined || modern) return;
      await send('roots/list_changed', () => client.sendRootsListChanged());
    },
  };
}
