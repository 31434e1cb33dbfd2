/**
 * serveHttp: kit tools over Streamable HTTP, in both protocol eras. A
 * 2026-07-28 request (the SDK's own classification, isLegacyRequest) is
 * served statelessly by the SDK's createMcpHandler from a fresh server of the
 * tools — no session, so two instances behind one address serve the same
 * client. 2025-era traffic keeps its sessions: one ToolServer per session (an
 * SDK Server connects to one transport only: the "Already connected" trap is
 * handled here), bound to the principal that opened it, with resumable
 * streams. Both eras share optional bearer authentication whose AuthInfo
 * reaches handlers (`authInfo`, and the `caller` identity), DNS-rebinding
 * protection on by default (Host and Origin must name this server), a body
 * bound, and a graceful close.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { DEFAULT_MAX_HTTP_SESSIONS, DEFAULT_MAX_SERVED_MESSAGE_BYTES, DEFAULT_RESUMABLE_RETRY_MS } from '../../bounds.js';
import { AgtError } from '../../errors.js';
import { shareTasks, type ToolServer } from './server.js';
import { BoundedEventStore } from './event-store.js';
import { type ServedEra, servesLegacy } from '../eras.js';

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions {
  /** Default 0: any free port (see `port` of the result). */
  port?: number;
  /** Default 127.0.0.1 (loopback). */
  host?: string;
  /** The MCP endpoint. Default `/mcp`. */
  path?: string;
  /** Bearer authentication: `verify` maps a token to its AuthInfo, or undefined (401). Without it, requests are anonymous. */
  auth?: { verify(token: string): AuthInfo | undefined | Promise<AuthInfo | undefined> };
  /** Reject requests whose Host (or Origin) does not name this server. Default true. */
  dnsRebindingProtection?: boolean;
  /** More `host:port` values to accept (a proxy's name). */
  allowedHosts?: string[];
  /** Open sessions at most; an initialize beyond it gets 503. Default 1,000. */
  maxSessions?: number;
  /**
   * Keep what SSE streams sent (the last `maxEvents`, default 10,000) so a client that reconnects with
   * Last-Event-ID gets the rest, and tell clients to reconnect after `retryMs` (default 1,000). `false`: no resumption.
   */
  resumable?: false | { maxEvents?: number; retryMs?: number };
  /**
   * The protocol eras served: both (default), or `['modern']`: 2026-07-28 only — no sessions; a 2025 `initialize` is
   * refused with the SDK's unsupported-version error naming 2026-07-28. `'2025-11-25'`/`'legacy'` and
   * `'2026-07-28'`/`'modern'` are the same eras.
   */
  eras?: readonly ServedEra[];
}

/** A running HTTP service. */
export interface HttpToolService extends AsyncDisposable {
  /** The endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Open sessions. */
  sessions(): number;
  /** Stops accepting, ends every session (its server closes), then the listener. */
  close(): Promise<void>;
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: ToolServer;
  /** Who opened it (the AuthInfo's clientId); a request of anyone else does not find it. */
  owner: string | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function reply(res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

const TOO_LARGE = Symbol('too large');
const NOT_JSON = Symbol('not JSON');

// A POST body, bounded before it is parsed: its JSON, or why not.
async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > DEFAULT_MAX_SERVED_MESSAGE_BYTES) return TOO_LARGE;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** Serves tools over Streamable HTTP: `createServer` builds one ToolServer per 2025-era session, and one per 2026-07-28 request. */
export async function serveHttp(createServer: () => ToolServer, options: ServeHttpOptions = {}): Promise<HttpToolService> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_HTTP_SESSIONS;
  if (!path.startsWith('/')) throw new AgtError('invalid_input', 'serveHttp: path must start with "/"', { details: { field: 'path' } });
  const legacy = servesLegacy(options.eras, 'serveHttp');
  const sessions = new Map<string, Session>();
  const events = options.resumable === false ? undefined : new BoundedEventStore(options.resumable?.maxEvents);
  const retryInterval = options.resumable === false ? undefined : (options.resumable?.retryMs ?? DEFAULT_RESUMABLE_RETRY_MS);
  let port = 0;
  let closing = false;
  const first = createServer();
  await first.ready(); // what every instance serves is loaded once (its skills)
  // Every instance of this service runs its tasks with the first's: a task outlives the request that started it.
  const instance = () => shareTasks(createServer(), first);

  // DNS rebinding: a page on another site may reach a loopback server through its own name; Host and Origin must name this one.
  // The names this server answers to, known once it listens.
  let names: ReadonlySet<string> = new Set();
  const hostAllowed = (req: http.IncomingMessage): boolean => {
    if (options.dnsRebindingProtection === false) return true;
    if (!names.has(req.headers.host ?? '')) return false;
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    try {
      return names.has(new URL(origin).host);
    } catch {
      return false;
    }
  };

  const authenticate = async (req: http.IncomingMessage): Promise<AuthInfo | undefined | false> => {
    if (options.auth === undefined) return undefined;
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (match === null) return false;
    return (await options.auth.verify(match[1] as string)) ?? false;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== path)
      return reply(res, 404, -32000, `not found: the MCP endpoint is ${path}`);
    if (!hostAllowed(req)) return reply(res, 403, -32000, 'forbidden: the Host or Origin header does not name this server');
    const auth = await authenticate(req);
    if (auth === false)
      return reply(res, 401, -32001, 'unauthorized: send a valid bearer token', { 'www-authenticate': 'Bearer error="invalid_token"' });
    if (auth !== undefined) (req as http.IncomingMessage & { auth?: AuthInfo }).auth = auth; // the SDK's transport hands it to handlers
    const sessionId = req.headers['mcp-session-id'];
    if (!legacy && req.method !== 'POST') return modern(req, res); // 2026-07-28 only: no sessions, the SDK's entry answers
    if (typeof sessionId === 'string' && legacy) {
      const session = sessions.get(sessionId);
      if (session === undefined || session.owner !== auth?.clientId) return reply(res, 404, -32001, 'session not found');
      await session.transport.handleRequest(req, res);
      return;
    }
    if (req.method !== 'POST') return reply(res, 400, -32000, 'bad request: no session; start one with an initialize POST');
    if (closing) return reply(res, 503, -32000, 'the server is closing');
    const body = await readBody(req);
    // The rest of the body is never read: the connection closes after the answer, so no next request meets it.
    if (body === TOO_LARGE)
      return reply(res, 413, -32600, `request body too large (more than ${DEFAULT_MAX_SERVED_MESSAGE_BYTES} bytes)`, {
        connection: 'close',
      });
    if (body === NOT_JSON) return reply(res, 400, -32700, 'parse error: the body is not JSON');
    // 2026-07-28: stateless; with only that era served, a 2025 opening goes there too (the SDK's entry refuses it).
    if (!legacy || !(await isLegacyRequest(await toWebRequest(req, body), body))) return modern(req, res, body);
    if (sessions.size >= maxSessions) return reply(res, 503, -32000, 'the server takes no new sessions now');
    const server = instance();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server, owner: auth?.clientId }),
      ...(events ? { eventStore: events, retryInterval } : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (transport.sessionId === undefined) await server.close(); // not an initialize: nothing is kept
  };

  // The modern era: a fresh server of the tools per request, from the SDK's entry (discover, envelopes, result identity).
  const modernHandler = createMcpHandler(({ era }) => instance().build(era, 'http'), { legacy: 'reject' });
  const modern = toNodeHandler(modernHandler);

  const listener = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, -32603, 'internal error');
      else res.end();
    });
  });
  listener.listen(options.port ?? 0, host);
  await once(listener, 'listening');
  port = (listener.address() as net.AddressInfo).port;
  names = new Set([
    `${host}:${port}`,
    ...(LOOPBACK.has(host) ? [...LOOPBACK].map((h) => `${h}:${port}`) : []),
    ...(options.allowedHosts ?? []),
  ]);
  const shown = host.includes(':') ? `[${host}]` : host;

  const close = async (): Promise<void> => {
    closing = true;
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => undefined)));
    sessions.clear();
    await modernHandler.close().catch(() => undefined);
    listener.closeIdleConnections();
    listener.closeAllConnections();
    await closed;
  };
  return {
    url: `http://${shown}:${port}${path}`,
    port,
    sessions: () => sessions.size,
    close,
    [Symbol.asyncDispose]: close,
  };
}
