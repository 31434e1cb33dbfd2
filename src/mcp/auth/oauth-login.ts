/**
 * loginMcp: an interactive OAuth login to a remote server (`agt mcp login`),
 * on the SDK's client flow — discovery, dynamic client registration where the
 * server offers it, authorization code with PKCE, resource indicators — and a
 * loopback redirect on 127.0.0.1 at a random port (RFC 8252). The user is
 * sent to the authorization URL (`onAuthorizationUrl`: print it, open a
 * browser); the callback must carry the state this login sent, else the login
 * is refused. Only a completed login is written to the TokenStore (the client
 * registration and the tokens, together); a refused, failed, timed-out or
 * cancelled one writes nothing, and the listener is closed in every case.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgtError, isAgtError } from '../../errors.js';
import type { McpDocument } from '../../config/mcp-config.js';
import { normaliseMcpDocument } from '../../config/mcp-config.js';
import type { ResourceRef } from '../../resources/types.js';
import { connectMcp, type ConnectOptions } from '../connect.js';
import { resolvedOptions } from '../settings/resolved-settings.js';
import { StoredOAuthProvider, type StoredOAuthOptions } from './stored-oauth.js';
import { type LoginState, loginState } from './token-store.js';
import { DEFAULT_LOGIN_TIMEOUT_MS } from '../../bounds.js';

/** Options of {@link loginMcp}. */
export interface LoginOptions extends StoredOAuthOptions {
  /** The stored server this login is for (the token store's key). */
  server: ResourceRef;
  /** Called with the URL the user must open (print it; open a browser when there is one). */
  onAuthorizationUrl(url: URL): void;
  /** Cancels the login (Ctrl-C): nothing is stored. */
  signal?: AbortSignal;
  /** How long to wait for the user to authorize. Default 5 minutes. */
  timeoutMs?: number;
  /** Other settings of the connection that finishes the login (timeouts, variables of the URL and headers). */
  connect?: Omit<ConnectOptions, 'auth' | 'reference'>;
}

const PAGE = (title: string, text: string) => `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${text}</p>`;

/** Logs in to the remote server of `document`; resolves with the new login's state (never the token). */
export async function loginMcp(document: McpDocument, options: LoginOptions): Promise<LoginState> {
  const { config } = normaliseMcpDocument(document);
  if ('command' in config) {
    throw new AgtError(
      'invalid_input',
      'login is for remote servers (a "url"); this server runs a command: give it its credentials in env',
      {
        details: { reason: 'not_remote' },
      },
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
  let settle: { resolve(callback: URLSearchParams): void; reject(error: AgtError): void } | undefined;
  // The callback's parameters: the code, and the authorization server's `iss` the SDK checks (RFC 9207).
  const code = new Promise<URLSearchParams>((resolve, reject) => (settle = { resolve, reject }));
  code.catch(() => undefined); // rejected before anyone waits (a wrong callback first): still reported by the connection
  const server = http.createServer((req, res) => callback(req, res));
  let provider: StoredOAuthProvider | undefined;
  const callback = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    const error = url.searchParams.get('error');
    if (url.searchParams.get('state') !== provider?.loginState) {
      res
        .writeHead(400, { 'content-type': 'text/html' })
        .end(PAGE('Refused', 'This login was not started here (wrong state). Nothing was stored.'));
      return settle?.reject(
        new AgtError(
          'auth_required',
          'the authorization callback carried a state this login did not send: refused, nothing was stored; log in again',
          {
            details: { reason: 'state_mismatch' },
          },
        ),
      );
    }
    const received = url.searchParams.get('code');
    if (error !== null || received === null) {
      res
        .writeHead(400, { 'content-type': 'text/html' })
        .end(PAGE('Not authorized', 'The authorization was not granted. Nothing was stored.'));
      const oauthError = /^[a-z_]{1,64}$/.test(error ?? '') ? (error as string) : 'invalid_callback';
      return settle?.reject(
        new AgtError('auth_required', `the authorization server did not grant the login (${oauthError}); nothing was stored`, {
          details: { reason: 'oauth_failed', oauthError },
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE('Logged in', 'Logged in. You can close this window.'));
    return settle?.resolve(url.searchParams);
  };
  const abort = () => settle?.reject(new AgtError('cancelled', 'the login was cancelled; nothing was stored'));
  const timer = setTimeout(
    () =>
      settle?.reject(
        new AgtError('auth_required', `nobody authorized within ${Math.round(timeoutMs / 1000)} s; nothing was stored`, {
          details: { reason: 'login_timeout' },
        }),
      ),
    timeoutMs,
  );
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    if (options.signal?.aborted) abort();
    server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const port = (server.address() as AddressInfo).port;
    provider = new StoredOAuthProvider(options.server, options, {
      redirectUrl: `http://127.0.0.1:${port}/callback`,
      onUrl: (url) => options.onAuthorizationUrl(url),
      code: () => code,
    });
    const connecting = connectMcp(document, {
      ...resolvedOptions(options.connect ?? {}, { auth: provider }),
      reference: options.server.reference,
    });
    try {
      // A refused callback, a timeout or Ctrl-C ends the wait at once, whatever the connection is doing.
      await Promise.race([connecting, code.then(() => new Promise<never>(() => undefined))]);
    } catch (error) {
      void connecting.then(
        (c) => c.close(),
        () => undefined,
      );
      throw error;
    }
    await (await connecting).close();
    if (!(await provider.commit())) {
      throw new AgtError('auth_required', 'the server let the connection in without a login; nothing to store', {
        details: { reason: 'no_login_needed' },
      });
    }
    return loginState(await options.tokens.get(options.server));
  } catch (error) {
    throw isAgtError(error) ? error : new AgtError('auth_required', 'the login failed', { cause: error });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
