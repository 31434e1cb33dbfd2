/**
 * storedOAuth: the SDK's OAuthClientProvider on a TokenStore, so connectMcp,
 * probes and runs use the logins of `agt mcp login` and refresh them by
 * themselves. The SDK does the protocol (discovery, dynamic client
 * registration, PKCE, resource indicators, refresh); this keeps what it asks
 * to keep: tokens and the client registration in the store, the PKCE
 * verifier in memory.
 *
 * Tokens are bound to the URL they were obtained for: a config changed to
 * another URL gets none (the user logs in again), so a token never travels to
 * a server it was not issued for. Without tokens a connection cannot log in by
 * itself: it fails as auth_required (`authorization_pending`), and
 * `onLoginRequired` is told.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import type { ResourceRef } from '../../resources/types.js';
import type { McpOAuthProvider } from './auth.js';
import type { StoredTokens, TokenStore } from './token-store.js';

/** Options of {@link storedOAuth}. */
export interface StoredOAuthOptions {
  tokens: TokenStore;
  /** The name a dynamically registered client gets. Default "agt-mcp". */
  clientName?: string;
  /** The scope to ask for; default: what the server's metadata says. */
  scope?: string;
  /** A client registered ahead of time (no dynamic registration). */
  client?: OAuthClientInformationMixed;
  /** Told when `server` needs the user to log in (no tokens, or its refresh was refused). */
  onLoginRequired?(server: ResourceRef): void;
}

/** The redirect a client registered by a non-interactive provider names (it never receives one). */
const NO_REDIRECT = 'http://127.0.0.1/callback';

/** The OAuth provider of each stored server: `auth: storedOAuth({ tokens })` in ConnectSettings. */
export function storedOAuth(options: StoredOAuthOptions): (server: ResourceRef) => McpOAuthProvider {
  return (server) => new StoredOAuthProvider(server, options);
}

/**
 * One server's provider. In `login` mode (loginMcp) nothing is written until
 * `commit()`: a login that fails or is cancelled leaves the store as it was.
 */
export class StoredOAuthProvider implements McpOAuthProvider {
  readonly #server: ResourceRef;
  readonly #options: StoredOAuthOptions;
  readonly #login: { redirectUrl: string; onUrl(url: URL): void; code(): Promise<URLSearchParams>; state: string } | undefined;
  // Where this authorization was sent (SEP-2352): the SDK checks the callback leg against it.
  #discovery: OAuthDiscoveryState | undefined;
  #url: string | undefined;
  #verifier: string | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #ignoreStoredClient: boolean;
  #pending: StoredTokens | undefined;
  /** The access token this provider last read from the store (a refused refresh deletes only that login). */
  #read: string | undefined;
  readonly clientMetadata: OAuthClientMetadata;

  constructor(
    server: ResourceRef,
    options: StoredOAuthOptions,
    login?: { redirectUrl: string; onUrl(url: URL): void; code(): Promise<URLSearchParams> },
  ) {
    this.#server = server;
    this.#options = options;
    this.#login = login && { ...login, state: randomBytes(24).toString('base64url') };
    // A login registers a client for its own loopback port; a stored one is used only by the connections after it.
    this.#ignoreStoredClient = login !== undefined;
    this.clientMetadata = {
      client_name: options.clientName ?? 'agt-mcp',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(options.scope === undefined ? {} : { scope: options.scope }),
    };
  }

  get redirectUrl(): string {
    return this.#login?.redirectUrl ?? NO_REDIRECT;
  }

  /** The state this login sent; its callback must carry it back. */
  get loginState(): string | undefined {
    return this.#login?.state;
  }

  /** {@inheritDoc McpOAuthProvider.connectingTo} */
  connectingTo(url: string): void {
    this.#url = url;
  }

  state(): string {
    return this.#login?.state ?? randomBytes(24).toString('base64url');
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.#client !== undefined) return this.#client;
    if (this.#options.client !== undefined) return this.#options.client;
    return this.#ignoreStoredClient ? undefined : this.#options.tokens.getClient(this.#server);
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.#client = client; // kept by commit() (a login); a run's registration is never stored
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.#pending !== undefined) return this.#pending;
    if (this.#login !== undefined) return undefined;
    const stored = await this.#options.tokens.get(this.#server);
    if (stored === undefined) return undefined;
    // Issued for another URL (the config changed since the login): not sent.
    if (stored.resource !== undefined && this.#url !== undefined && stored.resource !== this.#url) return undefined;
    const { saved_at: _saved, resource: _resource, ...tokens } = stored;
    this.#read = tokens.access_token;
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const stored = { ...tokens, saved_at: Date.now(), ...(this.#url === undefined ? {} : { resource: this.#url }) };
    if (this.#login !== undefined) this.#pending = stored;
    else await this.#options.tokens.put(this.#server, stored); // a refresh replaces the login's tokens
  }

  redirectToAuthorization(url: URL): void {
    if (this.#login !== undefined) return this.#login.onUrl(url);
    this.#options.onLoginRequired?.(this.#server);
    return undefined;
  }

  /** {@inheritDoc McpOAuthProvider.waitForAuthorizationCode} (only a login can wait). */
  get waitForAuthorizationCode(): (() => Promise<URLSearchParams>) | undefined {
    return this.#login?.code;
  }

  /** Keeps where the authorization was sent (SEP-2352), for the SDK to check the callback against. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  /** {@inheritDoc StoredOAuthProvider.saveDiscoveryState} */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no PKCE code verifier was saved for this authorization');
    return this.#verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.#verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.#discovery = undefined;
    if (scope === 'client' || scope === 'all') {
      this.#client = undefined;
      this.#ignoreStoredClient = true;
    }
    if (scope === 'tokens' || scope === 'all') {
      this.#pending = undefined;
      // The authorization server refused them (a refresh failed): the stored login is dead — unless another
      // process refreshed it meanwhile (rotated refresh tokens): only the login this provider read is deleted.
      if (this.#login === undefined && this.#read !== undefined) {
        const stored = await this.#options.tokens.get(this.#server);
        if (stored?.access_token === this.#read) await this.#options.tokens.delete(this.#server);
      }
    }
  }

  /** A login's outcome, written at once: the client registration, then the tokens. False when there is nothing to write. */
  async commit(): Promise<boolean> {
    if (this.#pending === undefined) return false;
    if (this.#client !== undefined) await this.#options.tokens.putClient(this.#server, this.#client);
    await this.#options.tokens.put(this.#server, this.#pending);
    return true;
  }
}
