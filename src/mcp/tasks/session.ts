/**
 * A connection's task session: ext-tasks (`@modelcontextprotocol/ext-tasks`,
 * the official requester library) on the connection's client, made the first
 * time a call may run as a task and closed with the connection. On a
 * 2026-07-28 connection ext-tasks gets the raw request path (raw-dispatch.ts)
 * and the request framing the SDK keeps to itself; on 2025 it goes through the
 * SDK client. Either way its port is bounded (port.ts). ext-tasks is ESM only:
 * it is loaded with `import()`, once.
 */
import type { Client, Transport } from '@modelcontextprotocol/client';
import type * as ExtTasksClient from '@modelcontextprotocol/ext-tasks/client';
import type { TaskController, TaskControllerOptions, TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client';
import type * as ExtTasksCore from '@modelcontextprotocol/ext-tasks/core';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { boundedPort } from './port.js';
import { TASKS_EXTENSION } from './capabilities.js';
import { type RawAnswer, type RawDispatch, rawDispatcher } from './raw-dispatch.js';

type ExtTasks = typeof ExtTasksClient;
let loaded: Promise<ExtTasks> | undefined;
let core: Promise<typeof ExtTasksCore> | undefined;

/** The ext-tasks client module, loaded once. */
export function extTasks(): Promise<ExtTasks> {
  loaded ??= import('@modelcontextprotocol/ext-tasks/client');
  return loaded;
}

/** A JSON object the connection sends through ext-tasks (arguments, `_meta`, capabilities), in ext-tasks' JsonValue. */
export function extJson(value: Readonly<Record<string, unknown>>): Readonly<Record<string, JsonValue>> {
  // What the connection sends is JSON (parsed from JSON, or built of JSON here); TypeScript cannot tell that of a Record<string, unknown>.
  return value as Readonly<Record<string, JsonValue>>;
}

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/** What a connection's task session is made of. */
export interface TaskSessionParts {
  client: Client;
  transport: Transport;
  era: 'legacy' | 'modern';
  /** Names the server for ext-tasks' task references (a reference resumes only on its endpoint). */
  endpointId: string;
  clientInfo: { name: string; version: string };
  clientCapabilities: Record<string, unknown>;
  /** The timeout of one raw request unless it says otherwise. */
  requestMs: number;
}

/** The task session of one connection, and its raw request path on 2026-07-28. */
export class ConnectionTasks {
  readonly #parts: TaskSessionParts;
  #session: Promise<TaskEnabledSession> | undefined;
  #raw: { dispatch: RawDispatch; close(): void } | undefined;
  #closed = false;

  constructor(parts: TaskSessionParts) {
    this.#parts = parts;
  }

  /** The era of the connection: a 2025 task carries no questions (they come as requests of its own). */
  get era(): 'legacy' | 'modern' {
    return this.#parts.era;
  }

  /** The endpoint a task reference of this connection names. */
  get endpointId(): string {
    return this.#parts.endpointId;
  }

  /** The ext-tasks session, made on first use. */
  session(): Promise<TaskEnabledSession> {
    this.#session ??= this.#open();
    return this.#session;
  }

  /** The controller of task `taskId` (ext-tasks names a task by its TaskId brand, which its own `taskId()` gives). */
  async task(taskId: string, options?: TaskControllerOptions): Promise<TaskController> {
    core ??= import('@modelcontextprotocol/ext-tasks/core');
    const [session, ext] = await Promise.all([this.session(), core]);
    return session.task(ext.taskId(taskId), options);
  }

  /** A 2026-07-28 request on the raw path, framed as the Tasks extension asks: the client declares the extension with it. */
  raw(
    method: string,
    params: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      requestMs?: number;
      onProgress?: (params: Record<string, unknown>) => void;
      onLate?: (answer: RawAnswer) => void;
    } = {},
  ) {
    return this.#rawPath().dispatch(
      { method, params: this.frame(params) },
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.onLate ? { onLate: options.onLate } : {}),
        context: { requestTimeoutMs: options.requestMs ?? this.#parts.requestMs },
      },
    );
  }

  /** `params` with the per-request metadata of 2026-07-28 and the Tasks extension declared. */
  frame(params: Record<string, unknown>): Record<string, unknown> {
    const { clientInfo, clientCapabilities } = this.#parts;
    const extensions = (clientCapabilities.extensions ?? {}) as Record<string, unknown>;
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    return {
      ...params,
      _meta: {
        ...meta,
        [PROTOCOL_VERSION_META]: '2026-07-28',
        [CLIENT_INFO_META]: clientInfo,
        [CLIENT_CAPABILITIES_META]: { ...clientCapabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } },
      },
    };
  }

  #rawPath() {
    this.#raw ??= rawDispatcher(this.#parts.transport, this.#parts.requestMs);
    return this.#raw;
  }

  async #open(): Promise<TaskEnabledSession> {
    const ext = await extTasks();
    const { client, era, endpointId, clientInfo, clientCapabilities } = this.#parts;
    const modern = era === 'modern';
    const inner = ext.createSessionPortFromClient(
      client,
      endpointId,
      modern
        ? {
            // ext-tasks types the answer as its JsonRpcResponse (results as JsonValue); ours are the objects the transport parsed from JSON.
            rawDispatch: this.#rawPath().dispatch as never,
            v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo, clientCapabilities: extJson(clientCapabilities) },
          }
        : {},
    );
    const port = boundedPort(inner);
    try {
      const session = ext.withTasks(port);
      const close = session.close.bind(session);
      // The session leaves the port to its owner: closing one closes the other.
      return Object.assign(session, {
        close: async () => {
          try {
            await close();
          } finally {
            port[Symbol.dispose]();
          }
        },
      });
    } catch (error) {
      port[Symbol.dispose]();
      throw error;
    }
  }

  /** Closes the session (tasks on the server go on: only this process stops watching them). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const session = await this.#session?.catch(() => undefined);
    await session?.close().catch(() => undefined);
    this.#raw?.close();
  }
}
