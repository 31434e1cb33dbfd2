/**
 * connectMcp: the only way anything opens an MCP connection. Probes and runs
 * both call it, so a probe starts a server exactly the way a run does (P2).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AgtError, isAgtError } from '../errors.js';
import { type McpDocument, type McpServerConfig, type McpTransport, normaliseMcpDocument, type RemoteServerConfig, type StdioServerConfig } from '../resources/mcp-config.js';
import { isPlainObject } from '../json.js';
import { toLaunchSpec } from './launch.js';
import { connectRemote } from './remote.js';
import { ProcessGroupStdioTransport } from './stdio-transport.js';
import { resolveTimeouts, type Timeouts } from './timeouts.js';
import { listAllTools, type RawTool } from './tools.js';

/** What the library says it is during initialize. */
export const CLIENT_INFO = { name: 'agt-mcp', version: '0.1.0' } as const;

/**
 * The client capabilities declared in every probe and every run (servers may
 * change their tool list by declared capabilities, so the two must match).
 * The library answers no server-initiated requests (sampling, elicitation,
 * roots), so it declares none.
 */
export const CLIENT_CAPABILITIES: Readonly<Record<string, unknown>> = Object.freeze({});

/** Options of {@link connectMcp}. */
export interface ConnectOptions {
  timeouts?: Partial<Timeouts>;
  /** Longest accepted stdio message line. Default 4 MiB. */
  maxMessageBytes?: number;
}

/** An open connection to one MCP server. */
export interface McpConnection {
  readonly serverInfo: { name: string; version: string };
  readonly protocolVersion: string;
  readonly capabilities: Record<string, unknown>;
  readonly transport: McpTransport;
  readonly timings: { spawnMs: number; initializeMs: number };
  /** Things noticed but tolerated, e.g. non-JSON lines skipped on stdout. */
  readonly warnings: string[];
  /** The last part of the server's stderr (stdio only). */
  stderrTail(): string;
  /** All pages of tools/list, tolerant of bad entries (each judged later). */
  listTools(): Promise<RawTool[]>;
  /** Calls a tool. Tool errors come back as results with isError; a dead server rejects with connection_closed. */
  callTool(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; timeoutMs?: number; meta?: Record<string, unknown> }): Promise<CallToolResult>;
  /** True once the connection is gone (closed, or the server died). */
  readonly closed: boolean;
  /** Ends the connection; for stdio, the whole process group. Idempotent. */
  close(): Promise<void>;
}

/** Opens a connection to the server of a document or config; rejects with a stable AgtError code. */
export async function connectMcp(target: McpDocument | McpServerConfig, options: ConnectOptions = {}): Promise<McpConnection> {
  const timeouts = resolveTimeouts(options.timeouts);
  const document = isPlainObject(target) && 'mcpServers' in target ? target : { mcpServers: { server: target } };
  const { config, transport } = normaliseMcpDocument(document);
  const client = new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES });
  if (transport === 'stdio') return connectStdio(client, config as StdioServerConfig, timeouts, options);
  const remote = await connectRemote(client, config as RemoteServerConfig, timeouts);
  return wrap(client, remote.transport, remote.kind, timeouts, { spawnMs: remote.connectMs, initializeMs: remote.initializeMs }, []);
}

async function connectStdio(client: Client, config: StdioServerConfig, timeouts: Timeouts, options: ConnectOptions): Promise<McpConnection> {
  const spec = toLaunchSpec(config); // R3–R6: invalid_config / spawn_failed before anything runs
  const transport = new ProcessGroupStdioTransport(spec, {
    spawnMs: timeouts.spawnMs,
    closeGraceMs: timeouts.closeGraceMs,
    ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes }),
  });
  const started = performance.now();
  try {
    await Promise.race([
      client.connect(transport, { timeout: timeouts.handshakeMs }),
      transport.failed.then(() => Promise.reject(stdioFailure(transport, timeouts))),
    ]);
  } catch (error) {
    // Classify before closing: the kill that close() sends must not read as an early exit.
    const mapped = isAgtError(error) ? withStderr(error, transport) : handshakeError(error, transport, timeouts);
    await transport.close();
    throw mapped;
  }
  const initializeMs = performance.now() - started - transport.spawnMs;
  const warnings = transport.garbageLines > 0
    ? [`skipped ${transport.garbageLines} non-JSON line(s) on stdout; servers should log to stderr`]
    : [];
  return wrap(client, transport, 'stdio', timeouts, { spawnMs: transport.spawnMs, initializeMs }, warnings, transport);
}

function stdioFailure(transport: ProcessGroupStdioTransport, timeouts: Timeouts): AgtError {
  if (transport.fatal !== undefined) return transport.fatal;
  if (transport.exit !== undefined) {
    const { code, signal } = transport.exit;
    return new AgtError('exited_early', `the server exited before the handshake finished (${signal ?? `exit code ${code}`})`, {
      details: { exitCode: code, signal },
    });
  }
  return new AgtError('connection_closed', 'the connection closed during the handshake', { details: { timeoutMs: timeouts.handshakeMs } });
}

function handshakeError(error: unknown, transport: ProcessGroupStdioTransport, timeouts: Timeouts): AgtError {
  if (transport.fatal !== undefined || transport.exit !== undefined) return withStderr(stdioFailure(transport, timeouts), transport);
  const timedOut = error instanceof McpError && error.code === -32001;
  if (timedOut && transport.garbageLines > 0) {
    return withStderr(
      new AgtError('protocol_error', `the server wrote ${transport.garbageLines} non-JSON line(s) on stdout and never answered initialize; MCP servers must keep stdout for JSON-RPC and log to stderr`, {
        details: { reason: 'non_json_output', garbageLines: transport.garbageLines },
      }),
      transport,
    );
  }
  if (timedOut) {
    return withStderr(new AgtError('handshake_timeout', `the server did not answer initialize within ${timeouts.handshakeMs} ms`, { details: { phase: 'initialize', timeoutMs: timeouts.handshakeMs } }), transport);
  }
  const text = error instanceof Error ? error.message : String(error);
  return withStderr(
    new AgtError('protocol_error', /protocol version/i.test(text) ? 'the server answered with a protocol version this client does not support' : 'the server answered initialize with something that is not a valid MCP response', {
      details: { reason: /protocol version/i.test(text) ? 'unsupported_protocol_version' : 'invalid_initialize' },
      cause: error,
    }),
    transport,
  );
}

function withStderr(error: AgtError, transport: ProcessGroupStdioTransport): AgtError {
  const stderrTail = transport.stderr.text(2000);
  if (stderrTail === '' || error.details?.stderrTail !== undefined) return error;
  return new AgtError(error.code, error.message, { details: { ...error.details, stderrTail }, cause: error.cause });
}

function wrap(
  client: Client,
  transport: Transport,
  kind: McpTransport,
  timeouts: Timeouts,
  timings: { spawnMs: number; initializeMs: number },
  warnings: string[],
  stdio?: ProcessGroupStdioTransport,
): McpConnection {
  let closed = false;
  const previous = transport.onclose;
  transport.onclose = () => {
    closed = true;
    previous?.();
  };
  const version = client.getServerVersion();
  const connection: McpConnection = {
    serverInfo: { name: String(version?.name ?? ''), version: String(version?.version ?? '') },
    protocolVersion: (transport as { protocolVersion?: string }).protocolVersion ?? '',
    capabilities: { ...(client.getServerCapabilities() ?? {}) },
    transport: kind,
    timings,
    warnings,
    stderrTail: () => stdio?.stderr.text() ?? '',
    listTools: () =>
      listAllTools(client, timeouts.listMs, () => closed || stdio?.exit !== undefined, warnings).catch((error: unknown) => {
        throw isAgtError(error) && stdio !== undefined ? withStderr(error, stdio) : error;
      }),
    async callTool(name, args, options = {}) {
      if (closed) throw new AgtError('connection_closed', 'the connection to the server is closed');
      try {
        return (await client.callTool({ name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) }, CallToolResultSchema, {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
        })) as CallToolResult;
      } catch (error) {
        if (closed || stdio?.exit !== undefined) {
          throw new AgtError('connection_closed', 'the server went away during the call', { details: { stderrTail: stdio?.stderr.text(2000) ?? '' }, cause: error });
        }
        if (error instanceof McpError) {
          throw new AgtError('protocol_error', 'the server answered the call with a JSON-RPC error', { details: { reason: 'rpc_error', rpcCode: error.code }, cause: error });
        }
        throw error;
      }
    },
    get closed() {
      return closed;
    },
    async close() {
      closed = true;
      if (kind === 'streamable-http') await (transport as { terminateSession?: () => Promise<void> }).terminateSession?.().catch(() => undefined);
      await client.close().catch(() => undefined);
      await stdio?.close();
    },
  };
  return connection;
}
