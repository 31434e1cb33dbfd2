/**
 * createToolServer / serveStdio: serves defined tools on the SDK's low-level
 * Server (McpServer.registerTool takes zod schemas only), in both protocol
 * eras from one definition: `build(era)` makes a fresh SDK Server of the
 * tools, which the SDK's own entries serve — `serveStdio` pins one per
 * connection to the era the client opened with (2025 `initialize`, or
 * 2026-07-28 `server/discover` and per-request envelopes), serveHttp one per
 * modern request. Invalid arguments, business and permission errors all come
 * back as tool results with isError and a machine-readable
 * `{ error: { code, message, details? } }` text (C4).
 */
import { McpServer, type Server } from '@modelcontextprotocol/server';
import type { SkillCatalogChanges } from '@modelcontextprotocol/server/ext/skills';
import type { CacheHint, Transport } from '@modelcontextprotocol/server';
import { AgtError } from '../../errors.js';
import { defined } from '../../json.js';
import type { ServableTool } from '../define-tool.js';
import { serveStdio as serveSdkStdio } from '@modelcontextprotocol/server/stdio';
import { BoundedStdioServerTransport } from './stdio.js';
import { toolContext } from '../context.js';
import { roundsCodec } from '../questions/rounds.js';
import { compiledOutput } from '../output.js';
import { DEFAULT_LIST_CACHE_TTL_MS, MAX_HANDLER_ERROR_TEXT } from '../../bounds.js';
import { outsideText } from '../../outside-text.js';
import { callToolHandler } from '../call-tool.js';
import { KitTasks } from '../tasks/runner.js';
import type { TaskServingOptions } from '../tasks/policy.js';
import { serveTaskMethods, taskCapabilities } from '../tasks/serve.js';
import { type ServedEra, servesLegacy } from '../eras.js';
import { kitSkillsFor, type KitSkillSource } from './skills.js';
import { kitApps } from './apps.js';

/**
 * A transport to serve on: the SDK's transports fit (StdioServerTransport,
 * StreamableHTTPServerTransport, InMemoryTransport); only these methods are relied on.
 */
export interface MessageTransport {
  start(): Promise<void>;
  send(message: never, options?: never): Promise<void>;
  close(): Promise<void>;
}

/** How a built server is reached: its caller is the process owner on stdio, the bearer's AuthInfo on HTTP. */
export type ServedVia = 'stdio' | 'http';

/** A tool server, not yet connected. */
export interface ToolServer {
  /** The names of the tools it serves. */
  readonly tools: readonly string[];
  /** Serves on `transport` until the client or `close()` ends it (a hand-wired 2025-era connection). */
  connect(transport: MessageTransport): Promise<void>;
  /** A fresh SDK Server of these tools for one era (the SDK's serving entries build one per connection or request). */
  build(era: 'legacy' | 'modern', via?: ServedVia): Server;
  close(): Promise<void>;
  /** Resolves when what the server serves is loaded (its skills); serveStdio, serveHttp and connect wait for it. */
  ready(): Promise<void>;
  /** Scans the skills' source again; connected clients are told (`resources/list_changed`) when the list changed. */
  reloadSkills(): Promise<SkillCatalogChanges>;
  /** Called once when the connection ends. */
  onclose?: () => void;
}

/** Options of {@link createToolServer}. */
export interface ToolServerOptions {
  name: string;
  version: string;
  tools: readonly ServableTool[];
  /**
   * Told of a handler's unexpected failure (anything but toolError or an
   * AgtError); the client still gets only the generic tool_failed. Default:
   * one line on stderr naming the tool and the error's name and message.
   */
  onError?(error: unknown, context: { tool: string }): void;
  /**
   * The key that seals the state a handler's questions carry between rounds in the 2026-07-28 era (at least 32
   * bytes). Every instance of one service must be given the same. Default: `AGT_REQUEST_STATE_KEY` from the
   * environment, else a key file per server name shared by this user's processes on this machine
   * (`$AGT_HOME/request-state/`, default `~/.agt`, mode 0600, made on the first question), so a stdio server started
   * again by another host process takes the answer to a question the first one asked.
   */
  requestStateKey?: Uint8Array | string;
  /** How long a question's sealed state stays valid, in seconds. Default 600. */
  requestStateTtlSeconds?: number;
  /**
   * What the 2026-07-28 era's cacheable results of this server (`tools/list`, `server/discover`) say of their
   * reuse: `ttlMs` (how long a client may reuse them) and `cacheScope` (`private`: only that client; `public`: shared
   * caches too). Default {@link DEFAULT_CACHE_HINT}: a kit server's tools are fixed for its life, so a client may keep
   * the list a minute, for itself. 2025-era results carry no cache fields.
   */
  cacheHint?: CacheHint;
  /**
   * How tools that declare `execution.taskSupport` run as tasks: where tasks are kept (`store`: memory by default,
   * gone with the process), how long (`ttlMs`, default one hour), how often clients should poll (`pollIntervalMs`),
   * how long a 2026-07-28 call waits for a handler that may end soon (`graceMs`), and how many run at once
   * (`maxRunning`, `maxRunningPerCaller`). Checked here: an invalid option is invalid_input
   * naming it. A server keeps its own tasks (two servers of one name in one process keep theirs apart); every
   * instance serveHttp builds of one service shares the tasks of its first, whose options hold.
   */
  tasks?: TaskServingOptions;
  /**
   * Skills served with the MCP Skills extension (SEP-2640), in both eras: a folder of skill folders (each with a
   * SKILL.md; a skill holding a symlink is skipped) or a SkillFiles adapter (`memorySkillFiles`, your own). Loaded
   * once per source in the process; the SDK's SkillsExtension serves `skills/list`, `skills/get` and the files.
   */
  skills?: KitSkillSource;
}

/** How long a kit server's list may be reused, and by whom, unless `cacheHint` says otherwise. */
export const DEFAULT_CACHE_HINT: Readonly<Required<CacheHint>> = Object.freeze({ ttlMs: DEFAULT_LIST_CACHE_TTL_MS, cacheScope: 'private' });

// The cache hint of a server's options, checked: an invalid one is a definition error, not the SDK's RangeError later.
function cacheHintOf(given: CacheHint | undefined): Required<CacheHint> {
  const hint = { ...DEFAULT_CACHE_HINT, ...defined({ ttlMs: given?.ttlMs, cacheScope: given?.cacheScope }) };
  if (!Number.isSafeInteger(hint.ttlMs) || hint.ttlMs < 0)
    throw new AgtError('invalid_input', 'cacheHint.ttlMs must be a whole number of milliseconds, 0 or more (0: do not reuse)');
  if (hint.cacheScope !== 'private' && hint.cacheScope !== 'public')
    throw new AgtError('invalid_input', 'cacheHint.cacheScope must be "private" (this client only) or "public" (shared caches too)');
  return hint;
}

// The default onError: a line on stderr (never stdout, which is the protocol's on stdio).
function logToStderr(error: unknown, { tool }: { tool: string }): void {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : 'a non-Error value was thrown';
  // A handler's error can quote what a client sent: one line of a log, through outsideText.
  process.stderr.write(`tool "${tool}" failed: ${outsideText(what, { max: MAX_HANDLER_ERROR_TEXT })}\n`);
}

/** Builds an MCP server for the given tools (not yet connected to a transport). */
export function createToolServer(options: ToolServerOptions): ToolServer {
  const tools = new Map<string, ServableTool>();
  for (const tool of options.tools) {
    if (tools.has(tool.name)) throw new AgtError('invalid_input', `tool "${tool.name}" is defined twice`);
    tools.set(tool.name, tool);
  }
  const outputs = new Map([...tools.values()].flatMap((t) => (t.outputSchema ? [[t.name, compiledOutput(t)] as const] : [])));
  const report = (error: unknown, tool: string) => {
    try {
      (options.onError ?? logToStderr)(error, { tool });
    } catch {
      // a failing hook changes nothing for the client
    }
  };
  const codec = roundsCodec(defined({ key: options.requestStateKey, name: options.name, ttlSeconds: options.requestStateTtlSeconds }));
  const cache = cacheHintOf(options.cacheHint);
  const cacheHints = { 'tools/list': cache, 'server/discover': cache };
  // Tasks: declared, and their methods served, only when a tool may run as one. This server's own (issue 58 #14), until
  // serveHttp hands it the tasks of its service's first instance (shareTasks).
  let kitTasks = new KitTasks(options.tasks);
  const tasked = [...tools.values()].some((t) => t.execution?.taskSupport === 'optional' || t.execution?.taskSupport === 'required');
  const parts = { tools, outputs, codec, tasks: kitTasks, report };
  const skills = options.skills === undefined ? undefined : kitSkillsFor(options.skills, cache);
  const apps = kitApps(options.name, tools.values()); // the tools' interfaces (MCP Apps), served to every client
  // One SDK Server of the tools; the same handlers in every era (the SDK's entries add the modern-only ones).
  const build = (era: 'legacy' | 'modern', via?: ServedVia): Server => {
    // Logging is declared so that ctx.log works and clients may set a level; sampling and elicitation are the client's.
    // An McpServer only so that the SDK's SkillsExtension can attach; the tools are served by its low-level Server.
    // Its capabilities are registered on the Server: given to McpServer, it would install its own tool handlers and
    // declare tools.listChanged, which a kit server (its tools fixed for its life) never sends.
    const mcp = new McpServer({ name: options.name, version: options.version }, { requestState: { verify: codec.verify }, cacheHints });
    const server = mcp.server;
    server.registerCapabilities({ tools: {}, logging: {}, ...(tasked ? taskCapabilities(era) : {}) });
    server.setRequestHandler('tools/list', async () => ({
      tools: [...tools.values()].map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema as { type: 'object' },
        ...defined({ title: t.title, annotations: t.annotations, outputSchema: t.outputSchema as { type: 'object' } | undefined }),
        ...(t.execution === undefined ? {} : { execution: { ...t.execution } }),
        ...defined({ _meta: apps.toolMeta(t.name) }),
      })),
    }));
    server.setRequestHandler('tools/call', callToolHandler(parts, server, { era, via }));
    if (tasked) serveTaskMethods(server, era, kitTasks, (ctx) => toolContext(server, ctx, {}, { era, via }).caller?.id ?? null);
    skills?.attach(mcp);
    // A kit server's interfaces are fixed for its life: it says resources never change, unless its skills may.
    if (apps.any && skills === undefined) server.registerCapabilities({ resources: { listChanged: false } });
    if (apps.any) apps.attach(mcp, cache);
    return server;
  };
  const ready = async () => void (await skills?.ready);
  let server: Server | undefined; // the hand-wired connection's (connect), built once what it serves is loaded
  const toolServer: ToolServer = {
    tools: Object.freeze([...tools.keys()]),
    connect: async (transport) => {
      await ready();
      server ??= build('legacy');
      server.onclose = () => toolServer.onclose?.();
      // MessageTransport names only what the kit relies on (so a transport typed by another copy of the SDK fits); the SDK's connect takes its own Transport.
      await server.connect(transport as unknown as Transport);
    },
    build,
    ready,
    reloadSkills: async () => (skills === undefined ? { added: [], removed: [], changed: [], listChanged: false } : skills.reload()),
    close: async () => server?.close(), // tasks run on: other instances serveHttp built of this service share them
  };
  taskHolders.set(toolServer, {
    tasks: () => kitTasks,
    adopt: (tasks) => {
      kitTasks = parts.tasks = tasks;
    },
  });
  return toolServer;
}

// Each server's tasks, for shareTasks: who holds them, and how another instance of its service takes them.
const taskHolders = new WeakMap<ToolServer, { tasks(): KitTasks; adopt(tasks: KitTasks): void }>();

/**
 * Makes `instance` (not yet built nor connected) run its tasks with `first`'s: serveHttp builds a server per 2025
 * session and per 2026-07-28 request, and a task outlives the request that started it. Internal (not exported by
 * the package): servers made apart keep their tasks apart.
 */
export function shareTasks(instance: ToolServer, first: ToolServer): ToolServer {
  const from = taskHolders.get(first);
  if (from !== undefined && instance !== first) taskHolders.get(instance)?.adopt(from.tasks());
  return instance;
}

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions {
  /** The longest incoming message; a longer one is discarded and answered with a JSON-RPC error. Default 10 MiB. */
  maxMessageBytes?: number;
  /** The protocol eras served: both (default), or `['2026-07-28']` (or `['modern']`): 2026-07-28 only, a 2025 `initialize` refused. */
  eras?: readonly ServedEra[];
}

/** Serves `server` on this process's stdin/stdout; resolves when the client goes away. Bad lines never end it. */
export async function serveStdio(server: ToolServer, options: ServeStdioOptions = {}): Promise<void> {
  const max = options.maxMessageBytes;
  if (max !== undefined && !(Number.isInteger(max) && max > 0))
    throw new AgtError('invalid_input', 'serveStdio: maxMessageBytes must be a positive whole number of bytes', {
      details: { field: 'maxMessageBytes' },
    });
  const legacy = servesLegacy(options.eras, 'serveStdio');
  await server.ready();
  const transport = new BoundedStdioServerTransport(defined({ maxMessageBytes: options.maxMessageBytes }));
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  // The SDK's entry classifies the client's opening and pins one server of that era to the connection.
  const handle = serveSdkStdio(({ era }) => server.build(era, 'stdio'), {
    transport,
    legacy: legacy ? 'serve' : 'reject',
  });
  await closed;
  await handle.close().catch(() => undefined);
  await server.close().catch(() => undefined);
}
