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
import { defined, isPlainObject, jsonProblem } from '../json.js';
import type { McpTransport } from '../config/mcp-config.js';
import { authRequired, finishAuthorization, isAuthFailure, type McpAuth } from './auth.js';
import type { McpConnection, PromptResult, RequestOptions, ResourceContents } from './connection-types.js';
import type { ClientHandlers } from './client-handlers.js';
import { toolCalls } from './tool-call.js';
import { verdictOf } from './era.js';
import type { ChangeListener } from './listen.js';
import { keepAlive } from './keepalive.js';
import { withValidHeaders } from './param-headers.js';
import { type CacheHints, listAll, type RawTool, PROMPTS_LIST, RESOURCES_LIST, TEMPLATES_LIST, TOOLS_LIST } from './lists.js';
import { skillRequests } from './skills.js';
import { moreRequests } from './more-requests.js';
import { runsAsTask, serverRunsToolTasks, type TaskMode } from './tasks/capabilities.js';
import { ConnectionTasks } from './tasks/session.js';
import { taskMethods } from './tasks/methods.js';
import type { LogLevel, McpLogMessage, NotificationHub } from './notifications.js';
import { requestError } from './request-error.js';
import { boundedDepth, requestSignal, sdkSignal } from './server-answers.js';
import type { ProcessGroupStdioTransport } from './stdio-transport.js';
import type { Timeouts } from './timeouts.js';
import { MAX_JSON_DEPTH } from '../bounds.js';

export type {
  CallOptions,
  Completion,
  CompletionRef,
  InputRetry,
  McpCallResult,
  McpConnection,
  McpInputRequest,
  McpInputRequired,
  PromptResult,
  RequestOptions,
  ResourceContents,
} from './connection-types.js';
export type { ListChangedKind } from './notifications.js';

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
  let taskTools = new Map<string, RawTool>();
  const gone = () => closed || stdio?.exit !== undefined;
  const declares = (capability: 'resources' | 'prompts') => isPlainObject(client.getServerCapabilities()?.[capability]);

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

  let toolHints: CacheHints | undefined; // of the last tools/list (2026-07-28)
  const list = async <T>(spec: Parameters<typeof listAll<T>>[1], onHints?: (hints: CacheHints) => void) =>
    masked(await send(spec.method, () => listAll(client, spec, timeouts.listMs, gone, warnings, onHints)));
  const sdkOptions = (options: RequestOptions, signal: AbortSignal) => ({
    ...sdkSignal(signal),
    timeout: options.timeoutMs ?? timeouts.callMs,
    ...((options.resetTimeoutOnProgress ?? timeouts.resetOnProgress)
      ? { resetTimeoutOnProgress: true, ...defined({ maxTotalTimeout: options.maxTotalTimeoutMs ?? timeouts.maxTotalMs }) }
      : {}),
  });
  // A log message's data is server data: masked, and dropped when it nests too deep to read safely.
  const logged = (message: McpLogMessage): McpLogMessage =>
    jsonProblem(message.data, { depth: MAX_JSON_DEPTH, bytes: Number.MAX_SAFE_INTEGER }) === 'too_deep'
      ? { ...masked({ level: message.level, ...defined({ logger: message.logger }) }), data: '(not read: nested too deep)' }
      : masked(message);
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
    listTools: async () => {
      const listed = await list(TOOLS_LIST, (hints) => (toolHints = verdict.era === 'modern' ? hints : undefined));
      const tools = mirrorsHeaders ? withValidHeaders(listed, warnings, headerTools) : listed;
      taskTools = new Map(tools.filter(runsAsTask).map((t) => [t.name, t])); // the tools a 2025 server runs as tasks
      return tools;
    },
    toolListHints: () => toolHints,
    listResources: async () => (declares('resources') ? list(RESOURCES_LIST) : []),
    listResourceTemplates: async () => (declares('resources') ? list(TEMPLATES_LIST) : []),
    listPrompts: async () => (declares('prompts') ? list(PROMPTS_LIST) : []),
    readResource: (uri, options = {}) =>
      send(
        'resources/read',
        async (signal) =>
          masked(
            boundedDepth(
              (await client.request({ method: 'resources/read', params: { uri } }, sdkOptions(options, signal))) as ResourceContents,
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
                sdkOptions(options, signal),
              )) as PromptResult,
              'prompts/get',
            ),
          ),
        options,
      ),
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
    onListChanged: (listener) => parts.hub.add('listChanged', listener),
    onLog: (listener) => parts.hub.add('log', (message) => listener(logged(message))),
    onResourceUpdated: (listener) => parts.hub.add('resourceUpdated', (update) => listener(masked(update))),
    onElicitationComplete: (listener) => parts.hub.add('elicitationComplete', (notice) => listener(masked(notice))),
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
