/**
 * Remote servers (R7): Streamable HTTP, falling back to the older HTTP+SSE
 * transport when the server answers the Streamable HTTP handshake with a 4xx
 * (the fallback the MCP specification describes for old servers). Headers go
 * on every request. Header values never appear in errors.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AgtError } from '../errors.js';
import type { RemoteServerConfig } from '../resources/mcp-config.js';
import type { Timeouts } from './timeouts.js';

// Statuses an HTTP+SSE-only server answers a Streamable HTTP POST with. 401/403 are
// credential problems, reported as such rather than retried over another transport.
const FALLBACK_STATUSES = new Set([400, 404, 405]);

/** A connected remote transport and how long it took. */
export interface RemoteConnected {
  transport: Transport;
  kind: 'streamable-http' | 'sse';
  connectMs: number;
  initializeMs: number;
}

/** Connects `client` to a remote server; rejects with a stable AgtError code. */
export async function connectRemote(client: Client, config: RemoteServerConfig, timeouts: Timeouts): Promise<RemoteConnected> {
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: { ...(config.headers ?? {}) } };
  const started = performance.now();
  if (config.transport !== 'sse') {
    const transport = new StreamableHTTPClientTransport(url, { requestInit });
    try {
      await client.connect(transport, { timeout: timeouts.handshakeMs });
      return { transport, kind: 'streamable-http', connectMs: 0, initializeMs: performance.now() - started };
    } catch (error) {
      await transport.close().catch(() => undefined);
      const status = error instanceof StreamableHTTPError ? error.code : undefined;
      if (status === undefined || !FALLBACK_STATUSES.has(status)) throw remoteError(error, timeouts);
      // An older server that only speaks HTTP+SSE rejects the POST; try SSE (R7).
    }
  }
  const transport = new SSEClientTransport(url, { requestInit }); // the SDK applies these headers to the stream and to POSTs
  try {
    await client.connect(transport, { timeout: timeouts.handshakeMs });
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw remoteError(error, timeouts);
  }
  return { transport, kind: 'sse', connectMs: 0, initializeMs: performance.now() - started };
}

function remoteError(error: unknown, timeouts: Timeouts): AgtError {
  if (error instanceof McpError && error.code === -32001) {
    return new AgtError('handshake_timeout', `the server did not answer initialize within ${timeouts.handshakeMs} ms`, {
      details: { phase: 'initialize', timeoutMs: timeouts.handshakeMs },
    });
  }
  const status = error instanceof StreamableHTTPError ? error.code : undefined;
  const causeCode = (error as { cause?: { code?: string } })?.cause?.code;
  if (status === undefined && (causeCode !== undefined || error instanceof TypeError)) {
    return new AgtError('connection_closed', `could not reach the server (${causeCode ?? 'network error'})`, { details: { reason: 'unreachable', errno: causeCode }, cause: error });
  }
  if (status === 401 || status === 403) {
    return new AgtError('protocol_error', `the server rejected the credentials (HTTP ${status}); check the configured headers`, {
      details: { reason: 'http_unauthorized', status },
      cause: error,
    });
  }
  return new AgtError('protocol_error', `the server did not complete the MCP handshake${status === undefined ? '' : ` (HTTP ${status})`}`, {
    details: { reason: 'http_handshake_failed', ...(status === undefined ? {} : { status }) },
    cause: error,
  });
}
