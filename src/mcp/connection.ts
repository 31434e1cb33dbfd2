/**
 * An open MCP connection: what probes and runs do with a connected SDK client.
 * Every request maps the SDK's failures to stable AgtError codes; calls can be
 * cancelled (the SDK sends `notifications/cancelled`) and time out; list
 * changes announced by the server reach listeners.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, GetPromptResultSchema, McpError, ReadResourceResultSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AgtError, isAgtError, maskError } from '../errors.js';
import { type SecretMasker, secretMasker } from '../resources/secrets.js';
import { defined, isPlainObject } from '../json.js';
import type { McpTransport } from '../resources/mcp-config.js';
import { OVERSIZED_RPC_CODE } from './bounded-fetch.js';
import { authRequired, finishAuthorization, isAuthFailure, isOAuthFlowError, type McpAuth } from './auth.js';
import {
  listAll,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  PROMPTS_LIST,
  type RawTool,
  RESOURCES_LIST,
  TEMPLATES_LIST,
  TOOLS_LIST,
} from './lists.js';
import type { ListChangedHub } from './list-changed.js';
import { boundedDepth, callResult, progressOf, requestSignal, serverText } from './server-answers.js';
import type { ProcessGroupStdioTransport } from './stdio-transport.js';
import { DEFAULT_TIMEOUTS, type Timeouts } from './timeouts.js';

/** How long a call, a resource read or a prompt get may take by default (`DEFAULT_TIMEOUTS.callMs`). */
export const DEFAULT_CALL_TIMEOUT_MS = DEFAULT_TIMEOUTS.callMs;

/** Options of one request that the server answers (a tool call, a read, a prompt). */
export interface RequestOptions {
  /** Aborting cancels the request: the server is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Longest wait for the answer; then the request is cancelled. Default: the connection's `timeouts.callMs`. */
  timeoutMs?: number;
}

/** Options of {@link McpConnection.callTool}. */
export interface CallOptions extends RequestOptions {
  /** Progress the server reports for this call (asking for it sets a progress token). */
  onProgress?(progress: { progress: number; total?: number; message?: string }): void;
  /** `_meta` sent with the call. */
  meta?: Record<string, unknown>;
}

/** A tool call's result as the server sent it (content defaults to []). */
export interface McpCallResult {
  content: unknown[];
  /** As sent: judged by the caller (an object, valid for the tool's outputSchema). */
  structuredContent?: unknown;
  isError: boolean;
  /** The result's `_meta` as sent (MCP Apps and other extensions read it). */
  _meta?: Record<string, unknown>;
}

/** The contents of one resource. */
export interface ResourceContents {
  contents: ({ uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string })[];
}

/** A prompt, rendered by the server. */
export interface PromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: Record<string, unknown> }[];
}

/** What a server announced has changed. */
export type ListChangedKind = 'tools' | 'resources' | 'prompts';

/** An open connection to one MCP server. */
export interface McpConnection {
  readonly serverInfo: { name: string; version: string };
  readonly protocolVersion: string;
  /** The server's declared capabilities. */
  readonly capabilities: Record<string, unknown>;
  /** The capabilities this client declared (from its handlers). */
  readonly clientCapabilities: Record<string, unknown>;
  readonly transport: McpTransport;
  readonly timings: { spawnMs: number; initializeMs: number };
  /** Things noticed but tolerated, e.g. non-JSON lines skipped on stdout. */
  readonly warnings: string[];
  /** The last part of the server's stderr (stdio only). */
  stderrTail(): string;
  /** All pages of tools/list, tolerant of bad entries (each judged later). */
  listTools(): Promise<RawTool[]>;
  /** All pages of resources/list ([] when the server declares no resources). */
  listResources(): Promise<McpResource[]>;
  /** All pages of resources/templates/list ([] when the server declares no resources). */
  listResourceTemplates(): Promise<McpResourceTemplate[]>;
  /** Reads one resource; an unknown URI rejects with not_found. */
  readResource(uri: string, options?: RequestOptions): Promise<ResourceContents>;
  /** All pages of prompts/list ([] when the server declares no prompts). */
  listPrompts(): Promise<McpPrompt[]>;
  /** Gets one prompt rendered with `args`. */
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<PromptResult>;
  /**
   * Calls a tool. Tool errors come back as results with isError. Rejects with
   * cancelled, call_timeout (both after notifications/cancelled), connection_closed,
   * auth_required or protocol_error.
   */
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<McpCallResult>;
  /** Calls `listener` on each list_changed notification of the server; returns the unsubscribe. */
  onListChanged(listener: (kind: ListChangedKind) => void): () => void;
  /** Requests sent and not yet answered, failed or cancelled. */
  readonly inFlight: number;
  /** True once the connection is gone (closed, or the server died). */
  readonly closed: boolean;
  /** Ends the connection; for stdio, the whole process group. Idempotent. */
  close(): Promise<void>;
  /** `await using connection = await connectMcp(…)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The parts of a connected client. */
export interface ConnectedParts {
  client: Client;
  transport: Transport;
  kind: McpTransport;
  timeouts: Timeouts;
  timings: { spawnMs: number; initializeMs: number };
  warnings: string[];
  hub: ListChangedHub;
  clientCapabilities: Record<string, unknown>;
  auth?: McpAuth;
  stdio?: ProcessGroupStdioTransport;
  /** Masks the config's secrets in everything the server sends back (none when absent). */
  masker?: SecretMasker;
}

const LooseResult = ResultSchema.loose();

/** Adds the stderr tail of a stdio server to an error's details. */
export function withStderr(error: AgtError, stdio: ProcessGroupStdioTransport | undefined): AgtError {
  const stderrTail = stdio?.stderr.text(2000) ?? '';
  if (stderrTail === '' || error.details?.stderrTail !== undefined) return error;
  return new AgtError(error.code, error.message, { details: { ...error.details, stderrTail }, cause: error.cause });
}

/** Wraps a connected client as an McpConnection. */
export function openConnection(parts: ConnectedParts): McpConnection {
  const { client, transport, kind, timeouts, warnings, stdio, auth } = parts;
  const masker = parts.masker ?? secretMasker([]);
  const masked = <T>(value: T): T => masker.value(value);
  let closed = false;
  let ended = false; // close() ran (closed is also set when the server goes away)
  let inFlight = 0;
  const previous = transport.onclose;
  transport.onclose = () => {
    closed = true;
    previous?.();
  };
  const gone = () => closed || stdio?.exit !== undefined;
  const declares = (capability: 'resources' | 'prompts') => isPlainObject(client.getServerCapabilities()?.[capability]);

  // One request: counted while in flight; an interactive OAuth step-up is finished and retried once.
  // The SDK is given a signal of this request alone (see requestSignal), released when it settles.
  async function send<T>(what: string, run: (signal: AbortSignal) => Promise<T>, options: RequestOptions = {}): Promise<T> {
    if (closed) throw new AgtError('connection_closed', 'the connection to the server is closed');
    inFlight += 1;
    const request = requestSignal(options.signal);
    let authorized = false;
    try {
      try {
        return await run(request.signal);
      } catch (error) {
        if (!(error instanceof UnauthorizedError) || options.signal?.aborted || !(await finishAuthorization(transport, auth))) throw error;
        authorized = true;
        return await run(request.signal);
      }
    } catch (error) {
      throw maskError(
        authorized && isAuthFailure(error) ? authRequired(error, auth, true) : requestError(what, error, options),
        masker.text,
      );
    } finally {
      request.release();
      inFlight -= 1;
    }
  }

  function requestError(what: string, error: unknown, options: RequestOptions): AgtError {
    if (isAgtError(error)) return withStderr(error, stdio);
    if (options.signal?.aborted) return new AgtError('cancelled', `the ${what} was cancelled; the server was sent notifications/cancelled`);
    const timeoutMs = options.timeoutMs ?? timeouts.callMs;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return new AgtError(
        'call_timeout',
        `the server did not answer the ${what} within ${timeoutMs} ms; it was cancelled (notifications/cancelled sent)`,
        { details: { timeoutMs } },
      );
    }
    if (gone()) return withStderr(new AgtError('connection_closed', `the server went away during the ${what}`, { cause: error }), stdio);
    if (isAuthFailure(error) || isOAuthFlowError(error)) return authRequired(error, auth);
    if (error instanceof McpError && (error.code === -32002 || (error.code === ErrorCode.InvalidParams && what !== 'call'))) {
      return new AgtError(
        'not_found',
        `the server has no such ${what === 'prompts/get' ? 'prompt' : 'resource'} (${what}): ${serverText(error)}`,
        { details: { rpcCode: error.code } },
      );
    }
    if (
      error instanceof McpError &&
      error.code === OVERSIZED_RPC_CODE &&
      isPlainObject(error.data) &&
      error.data.agtReason === 'oversized_message'
    ) {
      return new AgtError(
        'protocol_error',
        `the server's answer to the ${what} is larger than ${String(error.data.limitBytes)} bytes; it was not read`,
        { details: { reason: 'oversized_message', limitBytes: error.data.limitBytes } },
      );
    }
    if (error instanceof McpError) {
      // The server's own words, escaped and bounded (and masked by send): what the model and the host need to act.
      return new AgtError(
        'protocol_error',
        `the server answered the ${what} with an error (JSON-RPC ${error.code}): ${serverText(error)}`,
        { details: { reason: 'server_error', rpcCode: error.code } },
      );
    }
    return new AgtError('protocol_error', `the server's answer to the ${what} is not a valid MCP result`, {
      details: { reason: 'invalid_result' },
      cause: error,
    });
  }

  const list = async <T>(spec: Parameters<typeof listAll<T>>[1]) =>
    masked(await send(spec.method, () => listAll(client, spec, timeouts.listMs, gone, warnings)));
  const sdkOptions = (options: RequestOptions, signal: AbortSignal) => ({ signal, timeout: options.timeoutMs ?? timeouts.callMs });
  const version = client.getServerVersion();

  const connection: McpConnection = {
    serverInfo: { name: masker.text(String(version?.name ?? '')), version: masker.text(String(version?.version ?? '')) },
    protocolVersion: (transport as { protocolVersion?: string }).protocolVersion ?? '',
    capabilities: masked({ ...(client.getServerCapabilities() ?? {}) }),
    clientCapabilities: parts.clientCapabilities,
    transport: kind,
    timings: parts.timings,
    warnings,
    stderrTail: () => masker.text(stdio?.stderr.text() ?? ''),
    listTools: () => list(TOOLS_LIST),
    listResources: async () => (declares('resources') ? list(RESOURCES_LIST) : []),
    listResourceTemplates: async () => (declares('resources') ? list(TEMPLATES_LIST) : []),
    listPrompts: async () => (declares('prompts') ? list(PROMPTS_LIST) : []),
    readResource: (uri, options = {}) =>
      send(
        'resources/read',
        async (signal) =>
          masked(
            boundedDepth(
              (await client.request(
                { method: 'resources/read', params: { uri } },
                ReadResourceResultSchema,
                sdkOptions(options, signal),
              )) as ResourceContents,
              'resources/read',
            ),
          ),
        options,
      ),
    getPrompt: (name, args, options = {}) =>
      send(
        'prompts/get',
        async (signal) =>
          masked(
            boundedDepth(
              (await client.request(
                { method: 'prompts/get', params: { name, ...(args ? { arguments: args } : {}) } },
                GetPromptResultSchema,
                sdkOptions(options, signal),
              )) as PromptResult,
              'prompts/get',
            ),
          ),
        options,
      ),
    callTool: (name, args, options = {}) =>
      send(
        'call',
        async (signal) => {
          const result = (await client.request(
            { method: 'tools/call', params: { name, arguments: args, ...defined({ _meta: options.meta }) } },
            LooseResult,
            { ...sdkOptions(options, signal), ...(options.onProgress ? { onprogress: progressOf(options.onProgress) } : {}) },
          )) as Record<string, unknown>;
          return masked(callResult(result));
        },
        options,
      ),
    onListChanged: (listener) => parts.hub.add(listener),
    get inFlight() {
      return inFlight;
    },
    get closed() {
      return closed;
    },
    async close() {
      closed = true;
      if (ended) return;
      ended = true;
      if (kind === 'streamable-http')
        await (transport as { terminateSession?: () => Promise<void> }).terminateSession?.().catch(() => undefined);
      await client.close().catch(() => undefined);
      await stdio?.close();
      if (stdio !== undefined && stdio.survivors > 0)
        warnings.push(
          `${stdio.survivors} process(es) started by the server outlived close (another user's, or unkillable); check them by hand`,
        );
    },
    [Symbol.asyncDispose]: () => connection.close(),
  };
  return connection;
}
