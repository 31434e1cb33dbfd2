/**
 * createToolServer / serveStdio: serves defined tools on the SDK's low-level
 * Server (McpServer.registerTool takes zod schemas only). Invalid arguments,
 * business and permission errors all come back as tool results with isError
 * and a machine-readable `{ error: { code, message, details? } }` text (C4).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { parseArguments, type ServableTool, ToolErrorSignal, type ToolOutput } from './define-tool.js';

/** An MCP tool result as the server sends it. */
interface ToolCallResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** The JSON text of a ToolError result. */
function errorResult(code: string, message: string, details?: Record<string, unknown>): ToolCallResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } }) }], isError: true };
}

function toResult(output: ToolOutput): ToolCallResult {
  if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
  if (Array.isArray((output as { content?: unknown }).content)) return { content: (output as { content: unknown[] }).content };
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output as Record<string, unknown> };
}

/** Builds an MCP server for the given tools (not yet connected to a transport). */
export function createToolServer(options: { name: string; version: string; tools: readonly ServableTool[] }): Server {
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
      return errorResult('invalid_arguments', 'the arguments do not match the tool\'s schema', { issues: parsed.issues });
    }
    const meta = isPlainObject(request.params._meta) ? request.params._meta : {};
    try {
      return toResult(await tool.handler(parsed.value as never, { meta, caller: meta.caller, signal: extra.signal }));
    } catch (error) {
      if (error instanceof ToolErrorSignal) return errorResult(error.code, error.message, error.details);
      return errorResult('internal_error', 'the tool failed unexpectedly');
    }
  });
  return server;
}

/** Serves `server` on this process's stdin/stdout; resolves when the client goes away. */
export async function serveStdio(server: Server): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}
