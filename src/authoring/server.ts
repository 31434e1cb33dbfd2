/**
 * createToolServer / serveStdio: serves defined tools on the SDK's low-level
 * Server (McpServer.registerTool takes zod schemas only). Invalid arguments,
 * business and permission errors all come back as tool results with isError
 * and a machine-readable `{ error: { code, message, details? } }` text (C4).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AgtError } from '../errors.js';
import { defined, isPlainObject } from '../json.js';
import { failureOf, outputContent } from '../results.js';
import { parseArguments, type ServableTool } from './define-tool.js';

/** An MCP tool result as the server sends it. */
interface ToolCallResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** The JSON text of a ToolError result. */
function errorResult(code: string, message: string, details?: Record<string, unknown>): ToolCallResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message, ...defined({ details }) } }) }], isError: true };
}

/**
 * A transport to serve on: the SDK's transports fit (StdioServerTransport,
 * StreamableHTTPServerTransport, InMemoryTransport); only these methods are relied on.
 */
export interface MessageTransport {
  start(): Promise<void>;
  send(message: never, options?: never): Promise<void>;
  close(): Promise<void>;
}

/** A tool server, not yet connected. */
export interface ToolServer {
  /** The names of the tools it serves. */
  readonly tools: readonly string[];
  /** Serves on `transport` until the client or `close()` ends it. */
  connect(transport: MessageTransport): Promise<void>;
  close(): Promise<void>;
  /** Called once when the connection ends. */
  onclose?: () => void;
}

/** Builds an MCP server for the given tools (not yet connected to a transport). */
export function createToolServer(options: { name: string; version: string; tools: readonly ServableTool[] }): ToolServer {
  const tools = new Map<string, ServableTool>();
  for (const tool of options.tools) {
    if (tools.has(tool.name)) throw new AgtError('invalid_input', `tool "${tool.name}" is defined twice`);
    tools.set(tool.name, tool);
  }
  const server = new Server({ name: options.name, version: options.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...tools.values()].map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.get(request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, 'unknown tool');
    const parsed = parseArguments(tool, request.params.arguments);
    if (!parsed.ok) {
      return errorResult('invalid_arguments', "the arguments do not match the tool's schema", { issues: parsed.issues });
    }
    const meta = isPlainObject(request.params._meta) ? request.params._meta : {};
    try {
      return outputContent(await tool.handler(parsed.value as never, { meta, caller: meta.caller, signal: extra.signal }));
    } catch (error) {
      const { error: failure } = failureOf(error, 'the tool failed unexpectedly'); // a ToolErrorSignal keeps its code; anything else says nothing of the cause
      return errorResult(failure.code, failure.message, failure.details);
    }
  });
  const toolServer: ToolServer = {
    tools: Object.freeze([...tools.keys()]),
    connect: (transport) => server.connect(transport as unknown as Transport),
    close: () => server.close(),
  };
  server.onclose = () => toolServer.onclose?.();
  return toolServer;
}

/** Serves `server` on this process's stdin/stdout; resolves when the client goes away. */
export async function serveStdio(server: ToolServer): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}
