/**
 * An open MCP connection: what probes and runs do with a connected SDK client.
 * Every request maps the SDK's failures to stable AgtError codes; calls can be
 * cancelled (the SDK sends `notifications/cancelled`) and time out; what the
 * server announces (list changes, log messages, resource updates) reaches
 * listeners, masked.
 */
import { LOG_LEVEL_META_KEY, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Client, Tool, Transport } from '@modelcontextprotocol/client';
import { AgtError, maskError } from '../errors.js';
import { outsideText } from '../outside-text.js';
import { type SecretMasker, secretMasker } from '../config/secrets.js';
import { defined } from '../json.js';
import type { McpTransport } from '../config/mcp-config.js';
import { authRequired, finishAuthorization, isAuthFailure, type McpAuth } from './auth/auth.js';
import type { RequestOptions } from './connection-types.js';
import type { ClientHandlers } from './requests/client-handlers.js';
import { type ConnectionToolCalls, toolCalls } from './requests/tool-call.js';
import { type EraVerdict, type ProtocolEra, verdictOf } from './settings/era.js';
import type { ChangeListener } from './requests/listen.js';
import { keepAlive } from './keepalive.js';
import { type ConnectionLists, listRequests } from './requests/list-requests.js';
import type { RawTool } from './requests/lists.js';
import { type ConnectionSkills, skillRequests } from './requests/skills.js';
import { type ConnectionMoreRequests, moreRequests } from './requests/more-requests.js';
import { serverRunsToolTasks, type TaskMode } from './tasks/capabilities.js';
import { ConnectionTasks } from './tasks/session.js';
import { type ConnectionTaskMethods, taskMethods } from './tasks/methods.js';
import { type ConnectionEvents, connectionEvents, type LogLevel, type NotificationHub } from './requests/notifications.js';
import { requestError } from './requests/request-error.js';
import { requestSignal, sdkSignal } from './requests/server-answers.js';
import type { ProcessGroupStdioTransport } from './process/stdio-transport.js';
import type { Timeouts } from './settings/timeouts.js';

// The types of a connection's requests and answers, importable with the connection itself.
export type * from './connection-types.js';
export type { ListChangedKind } from './requests/notifications.js';

/** What a connection is: the server it reached, the era it speaks, what each side declared. Set at connect, read here. */
export interface ConnectionInfo {
  readonly serverInfo: { name: string; version: string };
  readonly protocolVersion: string;
  /** The protocol era the connection speaks (E1): `modern` (2026-07-28, server/discover) or `legacy` (2025, initialize). */
  readonly era: ProtocolEra;
  /** What this connection learned of the server's era, for the next connection to skip discovery (E2). */
  readonly verdict: EraVerdict;
  /** The server's declared capabilities. */
  readonly capabilities: Record<string, unknown>;
  /** The server's instructions from initialize (masked): what a host may put in its system prompt. */
  readonly instructions?: string;
  /** The capabilities this client declared (from its handlers). */
  readonly clientCapabilities: Record<string, unknown>;
  readonly transport: McpTransport;
  readonly timings: { spawnMs: number; initializeMs: number };
  /** Things noticed but tolerated, e.g. non-JSON lines skipped on stdout. */
  readonly warnings: string[];
  /** The last part of the server's stderr (stdio only). */
  stderrTail(): string;
}

/** A connection's life: its requests in flight, and its end. */
export interface ConnectionLifecycle {
  /** Requests sent and not yet answered, failed or cancelled. */
  readonly inFlight: number;
  /** True once the connection is gone (closed, or the server died). */
  readonly closed: boolean;
  /** Ends the connection; for stdio, the whole process group. Idempotent. */
  close(): Promise<void>;
  /** `await using connection = await connectMcp(…)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * An open connection to one MCP server. Its members come in parts, each declared beside the code that implements it:
 * ConnectionInfo and ConnectionLifecycle here, ConnectionLists (requests/list-requests.ts), ConnectionToolCalls
 * (requests/tool-call.ts), ConnectionSkills (requests/skills.ts), ConnectionTaskMethods (tasks/methods.ts),
 * ConnectionMoreRequests (requests/more-requests.ts) and ConnectionEvents (requests/notifications.ts).
 */
export interface McpConnection
  extends
    ConnectionInfo,
    ConnectionLists,
    ConnectionToolCalls,
    ConnectionSkills,
    ConnectionTaskMethods,
    ConnectionMoreRequests,
    ConnectionEvents,
    ConnectionLifecycle {}

/** The parts of a connected client. */
export interface ConnectedParts {
  client: Client;
  transport: Transport;
  kind: McpTransport;
  timeouts: Timeouts;
  timings: { spawnMs: number; initializeMs: number };
  warnings: string[];
  hub: NotificationHub;
  /** What the connection does with calls the server runs as tasks (default 'off' here: connectMcp resolves the setting). */
  tasks?: TaskMode;
  /** Names the server in task references (they resume only on the same endpoint). */
  endpointId?: string;
  clientInfo?: { name: string; version: string };
  /** The config sends its own Authorization header (remote). */
  authHeader?: boolean;
  /** Ping every so many milliseconds while idle; a missed ping ends the connection. */
  pingIntervalMs?: number;
  clientCapabilities: Record<string, unknown>;
  /** The handlers of server requests, and the questions deferred to the caller (2026-07-28 calls). */
  handlers?: ClientHandlers;
  auth?: McpAuth;
  stdio?: ProcessGroupStdioTransport;
  /** Masks the config's secrets in everything the server sends back (none when absent). */
  masker?: SecretMasker;
  /** The `subscriptions/listen` stream of a 2026-07-28 connection (list changes, resource updates). */
  listener?: ChangeListener;
  /** Opened from a remembered verdict: forgets it when the connection's first request fails as a protocol error (E2). */
  doubtVerdict?: () => Promise<void>;
}

/** Wraps a connected client as an McpConnection. */
export function openConnection(parts: ConnectedParts): McpConnection {
  const { client, transport, kind, timeouts, warnings, stdio, auth } = parts;
  const authHeader = parts.authHeader === true;
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
  let lost: AgtError | undefined; // why the keepalive ended the connection
  const taskTools = new Map<string, RawTool>(); // the tools a 2025 server runs as tasks, as last listed
  const gone = () => closed || stdio?.exit !== undefined;

  // One request: counted while in flight; an interactive OAuth step-up is finished and retried once.
  // The SDK is given a signal of this request alone (see requestSignal), released when it settles.
  async function send<T>(what: string, run: (signal: AbortSignal) => Promise<T>, options: RequestOptions = {}): Promise<T> {
    if (closed) throw stdio?.fatal ?? lost ?? new AgtError('connection_closed', 'the connection to the server is closed');
    inFlight += 1;
    const request = requestSignal(options.signal);
    let authorized = false;
    try {
      try {
        const result = await run(request.signal);
        doubt = undefined; // the server answers as remembered
        return result;
      } catch (error) {
        if (!(error instanceof UnauthorizedError) || options.signal?.aborted || !(await finishAuthorization(transport, auth))) throw error;
        authorized = true;
        return await run(request.signal);
      }
    } catch (error) {
      const failure =
        authorized && isAuthFailure(error)
          ? authRequired(error, auth, true, authHeader)
          : requestError(what, error, options, { stdio, timeouts, auth, authHeader, gone });
      throw maskError(await staleVerdict(failure), masker.text);
    } finally {
      request.release();
      inFlight -= 1;
    }
  }

  // Until a request succeeds, a protocol error may mean the remembered verdict is stale: it is forgotten, once.
  let doubt = parts.doubtVerdict;
  async function staleVerdict(failure: AgtError): Promise<AgtError> {
    if (doubt === undefined || failure.code !== 'protocol_error') return failure;
    const forget = doubt;
    doubt = undefined;
    await forget();
    return new AgtError(
      failure.code,
      `${failure.message} (the connection started from a remembered verdict that the server speaks MCP ${client.getNegotiatedProtocolVersion() ?? 'as probed'}; it is forgotten, so the next connection negotiates the era again)`,
      { details: { ...failure.details, verdictForgotten: true }, cause: failure },
    );
  }

  const sdkOptions = (options: RequestOptions, signal: AbortSignal) => ({
    ...sdkSignal(signal),
    timeout: options.timeoutMs ?? timeouts.callMs,
    ...((options.resetTimeoutOnProgress ?? timeouts.resetOnProgress)
      ? { resetTimeoutOnProgress: true, ...defined({ maxTotalTimeout: options.maxTotalTimeoutMs ?? timeouts.maxTotalMs }) }
      : {}),
  });
  // 2026-07-28: the log level the host asked for goes with each call (absent: the server sends no logs).
  let requestLogLevel: LogLevel | undefined;
  const metaOf = (meta: Record<string, unknown> | undefined) =>
    requestLogLevel === undefined ? meta : { ...meta, [LOG_LEVEL_META_KEY]: requestLogLevel };
  // The tools whose arguments are mirrored into headers (2026-07-28 over Streamable HTTP), as last listed.
  const headerTools = new Map<string, Tool>();
  const mirrorsHeaders = client.getProtocolEra() === 'modern' && kind === 'streamable-http';
  const version = client.getServerVersion();
  const verdict = verdictOf(client, (transport as { protocolVersion?: string }).protocolVersion, masked);
  // Calls the server may run as tasks go through one ext-tasks session, made at the first such call.
  const tasks =
    (parts.tasks ?? 'off') !== 'off' && serverRunsToolTasks(client.getServerCapabilities(), verdict.era)
      ? new ConnectionTasks({
          client,
          transport,
          era: verdict.era,
          endpointId: parts.endpointId ?? kind,
          clientInfo: parts.clientInfo ?? { name: 'agt-mcp', version: '0' },
          clientCapabilities: parts.clientCapabilities,
          requestMs: timeouts.callMs,
        })
      : undefined;

  const connection: McpConnection = {
    serverInfo: { name: masker.text(String(version?.name ?? '')), version: masker.text(String(version?.version ?? '')) },
    protocolVersion: verdict.protocolVersion,
    era: verdict.era,
    verdict,
    capabilities: masked({ ...(client.getServerCapabilities() ?? {}) }),
    // For a host's system prompt: a block of text (its lines kept), its controls and bidi overrides escaped (outsideText).
    ...defined({
      instructions:
        typeof client.getInstructions() === 'string' ? outsideText(masker.text(client.getInstructions()!), { multiline: true }) : undefined,
    }),
    clientCapabilities: parts.clientCapabilities,
    transport: kind,
    timings: parts.timings,
    warnings,
    stderrTail: () => masker.text(stdio?.stderr.text() ?? ''),
    ...listRequests({
      client,
      send,
      sdkOptions,
      masked,
      listMs: timeouts.listMs,
      gone,
      warnings,
      mirrorsHeaders,
      headerTools,
      taskTools,
      era: verdict.era,
    }),
    ...toolCalls({
      client,
      send,
      sdkOptions,
      masked,
      handlers: parts.handlers ?? {},
      timeouts,
      tasks,
      taskTools: () => taskTools,
      era: verdict.era,
      deferTasks: parts.tasks === 'defer',
      headerTools,
      metaOf,
    }),
    ...skillRequests({ client, send, sdkOptions, masked, warnings, listMs: timeouts.listMs }),
    ...moreRequests({
      client,
      send,
      sdkOptions,
      masked,
      clientCapabilities: parts.clientCapabilities,
      listener: parts.listener,
      setRequestLogLevel: (level) => (requestLogLevel = level),
    }),
    ...taskMethods({ client, send, masked, tasks, requestMs: timeouts.callMs }),
    ...connectionEvents(parts.hub, masked),
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
      stopKeepAlive();
      await tasks?.close();
      await parts.listener?.stop();
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
  // 2026-07-28 has no ping and no connection to keep alive: keepalive is for the 2025 era only.
  const stopKeepAlive =
    parts.pingIntervalMs === undefined || verdict.era === 'modern'
      ? () => undefined
      : keepAlive(connection, parts.pingIntervalMs, (why) => (lost = why));
  return connection;
}
