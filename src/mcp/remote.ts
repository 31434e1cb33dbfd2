/**
 * Remote servers (R7): Streamable HTTP, falling back to the older HTTP+SSE
 * transport when the server answers the Streamable HTTP handshake with a 4xx
 * (the fallback the MCP specification describes for old servers). Headers go
 * on every request. Header values and tokens never appear in errors.
 *
 * Authorization (auth.ts): 401/403 are never retried over another transport;
 * they are `auth_required`. An interactive OAuth flow that the provider can
 * finish (waitForAuthorizationCode) is finished here, then the handshake runs
 * once more with the new tokens.
 */
import { UnauthorizedError, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Client, Transport } from '@modelcontextprotocol/client';
import { AgtError, isAgtError, maskError } from '../errors.js';
import { type SecretMasker, secretMasker } from '../config/secrets.js';
import { boundedFetch } from './bounded-fetch.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './oversized.js';
import type { McpProtocolChoice, RemoteServerConfig } from '../config/mcp-config.js';
import { eraMismatch, isEraFailure, type priorOf } from './settings/era.js';
import {
  authRequired,
  authTransportOptions,
  finishAuthorization,
  httpStatus,
  isAuthFailure,
  isBearerProvider,
  isOAuthFlowError,
  type McpAuth,
} from './auth/auth.js';
import type { Timeouts } from './settings/timeouts.js';
import { defined } from '../json.js';
import { guardRequestState } from './requests/request-state.js';
import { isRequestTimeout } from './settings/timeouts.js';

// Statuses an HTTP+SSE-only server answers a Streamable HTTP POST with. 401/403 are
// credential problems, reported as such rather than retried over another transport.
const FALLBACK_STATUSES = new Set([400, 404, 405]);

/** A connected remote client and how long it took. */
export interface RemoteConnected {
  client: Client;
  transport: Transport;
  kind: 'streamable-http' | 'sse';
  connectMs: number;
  initializeMs: number;
  /** The config sends its own Authorization header (a rejection is about it). */
  authHeader: boolean;
}

type Kind = RemoteConnected['kind'];

/** How a remote connection authorizes, masks and picks its protocol era. */
export interface RemoteConnectHow {
  auth?: McpAuth;
  masker?: SecretMasker;
  /** A remembered era verdict (the SDK's `prior`): no discovery round trip. */
  prior?: ReturnType<typeof priorOf>;
  /** The config's `protocol`, for protocol_mismatch. */
  choice?: McpProtocolChoice;
}

/** Connects a new client (from `newClient`, negotiating the config's era unless told another) to a remote server; rejects with a stable AgtError code. */
export async function connectRemote(
  newClient: (era?: McpProtocolChoice) => Client,
  config: RemoteServerConfig,
  timeouts: Timeouts,
  how: RemoteConnectHow = {},
  maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
): Promise<RemoteConnected> {
  const { auth, prior, choice } = how;
  const masker = how.masker ?? secretMasker([]);
  const { url, headers } = withoutUserinfo(config);
  const authHeader = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');
  if (auth !== undefined && !isBearerProvider(auth)) auth.connectingTo?.(url.href);
  const started = performance.now();
  const make = (kind: Kind): Transport => {
    const { fetch: authFetch, ...rest } = authTransportOptions(auth, (token) => masker.add(token), url);
    const options = { requestInit: { headers }, ...rest, fetch: boundedFetch(maxMessageBytes, authFetch) };
    return kind === 'sse' ? new SSEClientTransport(url, options) : new StreamableHTTPClientTransport(url, options);
  };
  const attempt = async (kind: Kind, authorized = false, era?: McpProtocolChoice, retried = false): Promise<RemoteConnected> => {
    const client = newClient(era);
    const transport = make(kind);
    try {
      await client.connect(guardRequestState(transport), { timeout: timeouts.handshakeMs, ...defined({ prior }) });
      return { client, transport, kind, connectMs: 0, initializeMs: performance.now() - started, authHeader };
    } catch (error) {
      // An interactive OAuth flow was started: finish it on this transport, then connect once more.
      let again = false;
      try {
        again = !authorized && error instanceof UnauthorizedError && (await finishAuthorization(transport, auth));
      } finally {
        await transport.close().catch(() => undefined);
      }
      if (again) return attempt(kind, true, era);
      // A kept-alive socket the server closed as we sent (it restarted): the handshake changes nothing there, so once more.
      if (!retried && staleSocket(error)) return attempt(kind, authorized, era, true);
      const mismatch = eraMismatch(error, choice);
      if (mismatch !== undefined) throw mismatch;
      throw authorized && isAuthFailure(error) ? authRequired(error, auth, true, authHeader) : error;
    }
  };
  if (config.transport !== 'sse') {
    try {
      return await attempt('streamable-http');
    } catch (error) {
      const status = httpStatus(error);
      if (status === undefined || !FALLBACK_STATUSES.has(status))
        throw maskError(remoteError(error, timeouts, auth, authHeader), masker.text);
      // Pinned to 2025 and refused: a server of 2026-07-28 only says so to server/discover (E1).
      if (choice === 'legacy') {
        const offered = await modernOffer(() => attempt('streamable-http', false, 'auto'));
        if (offered !== undefined) throw eraMismatch({ data: { supported: offered } }, 'legacy') ?? error;
      }
      // An older server that only speaks HTTP+SSE rejects the POST; try SSE (R7).
    }
  }
  try {
    return await attempt('sse'); // the SDK applies headers and auth to the stream and to POSTs
  } catch (error) {
    throw maskError(remoteError(error, timeouts, auth, authHeader), masker.text);
  }
}

// The modern versions a server offers, when a connection in auto mode lands on the modern era (closed at once).
async function modernOffer(connect: () => Promise<RemoteConnected>): Promise<string[] | undefined> {
  try {
    const probe = await connect();
    const discover = probe.client.getDiscoverResult() as { supportedVersions?: unknown } | undefined;
    await probe.transport.close().catch(() => undefined);
    return Array.isArray(discover?.supportedVersions) ? discover.supportedVersions.filter((v) => typeof v === 'string') : undefined;
  } catch {
    return undefined;
  }
}

/** `user:password@` in a URL as curl reads it: taken out of the URL and sent as Basic authorization (unless the config sets Authorization). */
function withoutUserinfo(config: RemoteServerConfig): { url: URL; headers: Record<string, string> } {
  const url = new URL(config.url);
  const headers = { ...(config.headers ?? {}) };
  if (url.username === '' && url.password === '') return { url, headers };
  const token = basicToken(decodeURIComponent(url.username), decodeURIComponent(url.password));
  url.username = '';
  url.password = '';
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) headers.Authorization = `Basic ${token}`;
  return { url, headers };
}

/** The Basic authorization token of a user and password. */
export function basicToken(user: string, password: string): string {
  return Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
}

// The socket broke under the request (undici's "other side closed", a reset): a kept-alive connection the server dropped.
function staleSocket(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return true;
  }
  return false;
}

function remoteError(error: unknown, timeouts: Timeouts, auth: McpAuth | undefined, authHeader: boolean): AgtError {
  if (isAgtError(error)) return error;
  // The era probe failed on its way (unreachable, refused): what failed is the cause.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (isEraFailure(error) && cause !== undefined) return remoteError(cause, timeouts, auth, authHeader);
  if (isRequestTimeout(error)) {
    return new AgtError('handshake_timeout', `the server did not answer initialize within ${timeouts.handshakeMs} ms`, {
      details: { phase: 'initialize', timeoutMs: timeouts.handshakeMs },
    });
  }
  if (isAuthFailure(error) || isOAuthFlowError(error)) return authRequired(error, auth, false, authHeader);
  const status = httpStatus(error);
  const causeCode = (error as { cause?: { code?: string } })?.cause?.code;
  if (status === undefined && (causeCode !== undefined || error instanceof TypeError)) {
    return new AgtError('connection_closed', `could not reach the server (${causeCode ?? 'network error'})`, {
      details: { reason: 'unreachable', errno: causeCode },
      cause: error,
    });
  }
  return new AgtError('protocol_error', `the server did not complete the MCP handshake${status === undefined ? '' : ` (HTTP ${status})`}`, {
    details: { reason: 'http_handshake_failed', ...defined({ status }) },
    cause: error,
  });
}
