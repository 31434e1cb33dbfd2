/**
 * The requests of a connection beyond tools, resources and prompts: ping,
 * completion, the log level, resource subscriptions, and the roots-changed
 * notification. Each is sent only when the server declared what it needs;
 * its answer is masked like everything else a server sends.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CompleteResultSchema, EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AgtError } from '../errors.js';
import { defined, isPlainObject } from '../json.js';
import type { Completion, McpConnection, RequestOptions } from './connection-types.js';
import { LOG_LEVELS } from './notifications.js';

/** Sends one request through the connection (counted, mapped to AgtError codes). */
export type Send = <T>(what: string, run: (signal: AbortSignal) => Promise<T>, options?: RequestOptions) => Promise<T>;

type MoreRequests = Pick<McpConnection, 'ping' | 'complete' | 'setLogLevel' | 'subscribeResource' | 'unsubscribeResource' | 'rootsChanged'>;

/** What the connection's more requests need from it. */
export interface MoreRequestParts {
  client: Client;
  send: Send;
  /** The SDK options of one request. */
  sdkOptions(options: RequestOptions, signal: AbortSignal): { signal: AbortSignal; timeout: number };
  masked<T>(value: T): T;
  clientCapabilities: Record<string, unknown>;
}

const MAX_COMPLETIONS = 100; // MCP's own bound on completion values

/** ping, complete, setLogLevel, subscribeResource, unsubscribeResource and rootsChanged of a connection. */
export function moreRequests({ client, send, sdkOptions, masked, clientCapabilities }: MoreRequestParts): MoreRequests {
  const capability = (name: string) => client.getServerCapabilities()?.[name as 'logging'];
  const notDeclared = (what: string, needs: string) =>
    new AgtError('protocol_error', `the server does not declare "${needs}", so it takes no ${what}`, {
      details: { reason: 'capability_not_declared', capability: needs },
    });
  // A request whose answer is empty.
  const empty = async (method: string, params: Record<string, unknown>, options: RequestOptions) => {
    await send(method, (signal) => client.request({ method, params } as never, EmptyResultSchema, sdkOptions(options, signal)), options);
  };
  const subscription = async (method: 'resources/subscribe' | 'resources/unsubscribe', uri: string, options: RequestOptions) => {
    const resources = capability('resources');
    if (!isPlainObject(resources) || resources.subscribe !== true) throw notDeclared('subscription', 'resources.subscribe');
    await empty(method, { uri }, options);
  };
  return {
    ping: (options = {}) =>
      send(
        'ping',
        async (signal) => {
          const started = performance.now();
          await client.ping(sdkOptions(options, signal));
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
          const { completion } = await client.request(
            { method: 'completion/complete', params },
            CompleteResultSchema,
            sdkOptions(options, signal),
          );
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
      await empty('logging/setLevel', { level }, options);
    },
    subscribeResource: (uri, options = {}) => subscription('resources/subscribe', uri, options),
    unsubscribeResource: (uri, options = {}) => subscription('resources/unsubscribe', uri, options),
    rootsChanged: async () => {
      if (clientCapabilities.roots === undefined) return;
      await send('roots/list_changed', () => client.sendRootsListChanged());
    },
  };
}
