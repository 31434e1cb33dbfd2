/**
 * Authorization for remote servers, on the SDK's own pieces: an
 * `OAuthClientProvider` goes to the SDK transport as its `authProvider` (the
 * SDK runs discovery, registration, PKCE, token refresh and scope step-up), and
 * a bearer-token provider becomes a fetch that sets `Authorization` on every
 * request. What the SDK leaves to the application — finishing an interactive
 * authorization — is done here when the provider can wait for the code.
 *
 * Tokens never appear in errors: messages are ours, details carry statuses and
 * OAuth error codes only.
 */
import { OAuthClientFlowError, OAuthError, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import type { OAuthClientProvider, FetchLike, Transport } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { defined } from '../../json.js';

/** A provider of bearer tokens: called before every HTTP request, so it may rotate tokens. */
export interface BearerTokenProvider {
  bearer(): string | Promise<string>;
}

/**
 * The SDK's OAuth client provider, optionally able to wait for the
 * authorization code of an interactive flow (the host's redirect callback).
 * With it, a connection finishes the flow itself and connects again once.
 */
export interface McpOAuthProvider extends OAuthClientProvider {
  /**
   * Resolves after `redirectToAuthorization` sent the user away: with the callback URL's query parameters
   * (preferred: the SDK checks their `iss` against the authorization server, RFC 9207) or the code alone.
   */
  waitForAuthorizationCode?(): Promise<string | URLSearchParams>;
  /** Told the server's URL before each connection (a stored provider sends only tokens issued for it). */
  connectingTo?(url: string): void;
}

/** How a connection authorizes itself to a remote server. */
export type McpAuth = McpOAuthProvider | BearerTokenProvider;

/** True for a bearer-token provider. */
export function isBearerProvider(auth: McpAuth): auth is BearerTokenProvider {
  return typeof (auth as BearerTokenProvider).bearer === 'function';
}

/**
 * Transport options that carry `auth`, added to the request init. With an
 * OAuth provider, a 401 from the server itself to a request that carried a
 * token drops the provider's cached discovery (SEP-2352): the SDK's flow then
 * reads the protected resource metadata again, so an authorization server the
 * resource moved to is found — and registered at — instead of the old one.
 * (A 403 is a step-up at the same server: the cache stays.)
 */
export function authTransportOptions(
  auth: McpAuth | undefined,
  onToken?: (token: string) => void,
  serverUrl?: URL,
): { authProvider?: OAuthClientProvider; fetch?: FetchLike } {
  if (auth === undefined) return {};
  if (!isBearerProvider(auth)) {
    const server = serverUrl?.href;
    return {
      authProvider: auth,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        const sentToken = new Headers(init?.headers).has('authorization');
        if (response.status === 401 && sentToken && String(url) === server) await auth.invalidateCredentials?.('discovery');
        return response;
      },
    };
  }
  return {
    fetch: async (url, init) => {
      const headers = new Headers(init?.headers);
      const token = await auth.bearer();
      onToken?.(token); // a secret of this connection from now on: masked in whatever the server repeats
      headers.set('Authorization', `Bearer ${token}`);
      return fetch(url, { ...init, headers });
    },
  };
}

/** The HTTP status an SDK transport error carries (SdkHttpError's status, SseError's code), if any. */
export function httpStatus(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) return error.status;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code >= 100 && code < 600 && !(error instanceof UnauthorizedError) ? code : undefined;
}

/** True when `error` means the server wants (other) credentials. */
export function isAuthFailure(error: unknown): boolean {
  if (error instanceof UnauthorizedError) return true;
  const status = httpStatus(error);
  return status === 401 || status === 403;
}

/**
 * Finishes an interactive OAuth flow the SDK started (it called
 * `redirectToAuthorization` and failed with UnauthorizedError): waits for the
 * code, exchanges it on `transport`. False when the provider cannot wait.
 */
export async function finishAuthorization(transport: Transport, auth: McpAuth | undefined): Promise<boolean> {
  if (auth === undefined || isBearerProvider(auth) || typeof auth.waitForAuthorizationCode !== 'function') return false;
  const finish = (transport as { finishAuth?: (callback: string) => Promise<void> }).finishAuth;
  if (typeof finish !== 'function') return false;
  const callback = await auth.waitForAuthorizationCode();
  await finish.call(transport, callback as string); // the SDK takes the callback's parameters or the code alone
  return true;
}

/**
 * True when `error` came out of the SDK's OAuth flow rather than from the MCP
 * exchange: an OAuth error response, or the resource-indicator check (RFC 8707).
 */
export function isOAuthFlowError(error: unknown): boolean {
  return oauthErrorCode(error) !== undefined || isResourceMismatch(error);
}

/**
 * The OAuth error code of a failure of the SDK's flow: the authorization
 * server's `error` (OAuthError), or the kind of a client-side refusal
 * (RegistrationRejectedError → `registration_rejected`, IssuerMismatchError → `issuer_mismatch` …).
 */
function oauthErrorCode(error: unknown): string | undefined {
  if (error instanceof OAuthError) return String(error.code);
  if (error instanceof OAuthClientFlowError && !(error instanceof UnauthorizedError))
    return error.name
      .replace(/Error$/, '')
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toLowerCase();
  return undefined;
}

// The SDK refuses to authorize when the protected-resource metadata names another resource.
function isResourceMismatch(error: unknown): boolean {
  return error instanceof Error && /^Protected resource .* does not match expected/.test(error.message);
}

/**
 * The auth_required error for `error`, with the fix for the kind of auth in
 * use (`details.credentials`: none, header, bearer or oauth). `retried`: an
 * authorization was completed and the server still refused. `headerSet`: the
 * config sends its own Authorization header.
 */
export function authRequired(error: unknown, auth: McpAuth | undefined, retried = false, headerSet = false): AgtError {
  const status = httpStatus(error);
  const oauthCode = oauthErrorCode(error);
  const details = {
    reason: isResourceMismatch(error)
      ? 'resource_mismatch'
      : retried
        ? 'still_unauthorized'
        : status === 403
          ? 'forbidden'
          : error instanceof UnauthorizedError
            ? 'authorization_pending'
            : typeof oauthCode === 'string'
              ? 'oauth_failed'
              : 'unauthorized',
    ...defined({ status }),
    ...(typeof oauthCode === 'string' ? { oauthError: oauthCode } : {}),
    credentials: auth === undefined ? (headerSet ? 'header' : 'none') : isBearerProvider(auth) ? 'bearer' : 'oauth',
  };
  const http = status === undefined ? '' : ` (HTTP ${status})`;
  let message: string;
  if (auth === undefined && headerSet) {
    message = `the server rejected the Authorization header of the config${http}: check the credentials it holds (expired, wrong audience or scope), or pass auth (an OAuthClientProvider or { bearer }) instead`;
  } else if (auth === undefined) {
    message = `the server requires authorization${http}: pass auth (an OAuthClientProvider or { bearer }) to connectMcp, McpProber or NativeRun, or set an Authorization header in the config`;
  } else if (isBearerProvider(auth)) {
    message = `the server rejected the bearer token${http}: check the token that bearer() returns (expired, wrong audience or scope)`;
  } else if (details.reason === 'resource_mismatch') {
    message =
      "the server's protected-resource metadata names another resource than this URL, so no token is requested for it (RFC 8707); check the URL or the server's metadata";
  } else if (details.reason === 'still_unauthorized') {
    message = `the server still refuses after a completed authorization${http}: it may need a scope the authorization server does not grant; check the provider's scopes and the server's requirements`;
  } else if (details.reason === 'authorization_pending') {
    message =
      "the server needs the user to authorize in a browser: the provider was sent to the authorization URL; give it waitForAuthorizationCode() so the connection finishes the flow, or exchange the code with the SDK's auth() and connect again";
  } else {
    message = `the OAuth authorization failed${http}${typeof oauthCode === 'string' ? ` (${oauthCode})` : ''}: check the provider's client registration, scopes and the server's authorization metadata`;
  }
  return new AgtError('auth_required', message, { details, cause: error });
}
