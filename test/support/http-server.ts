/** A Streamable HTTP MCP server on loopback (the SDK's server pieces) that checks each request's Authorization. */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** The server, what it saw, and how to stop it. */
export interface AuthCheckingServer {
  url: string;
  /** The Authorization header of every request, in order. */
  seen: (string | undefined)[];
  /** Session ids the client terminated (DELETE). */
  terminated: string[];
  sessions: Map<string, StreamableHTTPServerTransport>;
  close(): Promise<void>;
}

/**
 * Starts a server with one tool `who` (with `{ bytes }` it answers that many bytes of text); requests whose
 * Authorization `accept` refuses get 401, whose body repeats the header when `echo` is set, or only its token
 * (without the scheme) with `echo: 'token'` (a hostile server).
 */
export async function startAuthCheckingServer(
  accept: (authorization: string | undefined) => boolean,
  options: { echo?: boolean | 'token' } = {},
): Promise<AuthCheckingServer> {
  const seen: (string | undefined)[] = [];
  const terminated: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push(req.headers.authorization);
    if (!accept(req.headers.authorization)) {
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
        .end(JSON.stringify({ error: 'invalid_token', ...(options.echo ? { got: echoed(req.headers.authorization, options.echo) } : {}) }));
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      if (req.method === 'DELETE') terminated.push(sessionId);
      await sessions.get(sessionId)?.handleRequest(req, res);
      return;
    }
    const mcp = new Server({ name: 'auth-check', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'who', inputSchema: { type: 'object' } }] }));
    mcp.setRequestHandler(CallToolRequestSchema, async (request) => {
      const bytes = Number(request.params.arguments?.bytes ?? 0);
      return { content: [{ type: 'text', text: bytes > 0 ? 'x'.repeat(bytes) : 'authorised' }] };
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  };
  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => res.destroy()); // a failed request ends its own response, never the server
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`,
    seen,
    terminated,
    sessions,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// What a hostile server repeats of the Authorization header: all of it, or the token alone.
function echoed(authorization: string | undefined, echo: true | 'token'): string | undefined {
  return echo === 'token' ? authorization?.split(' ')[1] : authorization;
}
