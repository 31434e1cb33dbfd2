/**
 * The TokenStore port: where OAuth logins to remote servers are kept (`agt mcp
 * login`, storedOAuth), never in a server's config. One store holds one
 * identity's logins (the CLI user's; a host serving many users gives each user
 * a store, or a `subject` in the SQL adapters). Adapters: MemoryTokenStore
 * here, SqliteTokenStore (`agt-mcp/sqlite`), PostgresTokenStore
 * (`agt-mcp/postgres`), and the CLI's file of mode 0600.
 *
 * Tokens are secrets: nothing here puts them in an error, and `loginState`
 * says whether and until when a server is logged in without them.
 */
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import type { ResourceRef } from '../../resources/types.js';

/** OAuth tokens as stored: the SDK's OAuthTokens, when they were saved, and the server URL they were issued for. */
export interface StoredTokens extends OAuthTokens {
  /** When they were saved (ms since the epoch): with `expires_in`, when the access token expires. */
  saved_at?: number;
  /** The URL of the server they were obtained for: never sent to another URL (a changed config logs out). */
  resource?: string;
}

/** Where OAuth tokens and client registrations live, per server. */
export interface TokenStore {
  /** The tokens of `server`, if logged in. */
  get(server: ResourceRef): Promise<StoredTokens | undefined>;
  /** Replaces the tokens of `server` (a login, or a refresh). */
  put(server: ResourceRef, tokens: StoredTokens): Promise<void>;
  /** Forgets the tokens and the client registration of `server`; false when there were none. */
  delete(server: ResourceRef): Promise<boolean>;
  /** The OAuth client registered for `server` (dynamic client registration), kept so refreshes use the same client. */
  getClient(server: ResourceRef): Promise<OAuthClientInformationMixed | undefined>;
  /** Keeps the OAuth client registered for `server`. */
  putClient(server: ResourceRef, client: OAuthClientInformationMixed): Promise<void>;
}

/** Whether a server is logged in and until when: what `agt mcp list/show` print (never the token). */
export interface LoginState {
  loggedIn: boolean;
  /** ISO 8601: when the access token expires, when the server said. */
  expiresAt?: string;
  /** True when the access token has expired (a refresh token may still renew it). */
  expired?: boolean;
  /** True when a refresh token is kept. */
  refreshable?: boolean;
  scope?: string;
}

/** The login state of stored tokens (no token in it). */
export function loginState(tokens: StoredTokens | undefined, now = Date.now()): LoginState {
  if (tokens === undefined) return { loggedIn: false };
  const expires =
    typeof tokens.expires_in === 'number' && typeof tokens.saved_at === 'number' ? tokens.saved_at + tokens.expires_in * 1000 : undefined;
  return {
    loggedIn: true,
    ...(expires === undefined ? {} : { expiresAt: new Date(expires).toISOString(), expired: expires <= now }),
    refreshable: typeof tokens.refresh_token === 'string',
    ...(typeof tokens.scope === 'string' ? { scope: tokens.scope } : {}),
  };
}

/** The key of a server in a token store. */
export function tokenKey(server: ResourceRef): string {
  return `${server.kind}:${server.reference}`;
}

// Stored tokens: an object with a string access_token and token_type (what every login stored has).
function isStoredTokens(value: unknown): value is StoredTokens {
  return isPlainObject(value) && typeof value.access_token === 'string' && typeof value.token_type === 'string';
}

/** Stored tokens read back (a file, a row): an object with a string access_token and token_type, else store_unavailable. */
export function readStoredTokens(value: unknown, what: string): StoredTokens {
  if (!isStoredTokens(value)) {
    throw new AgtError('store_unavailable', `${what} is not a stored login (it was changed by hand?); log in again`, {
      details: { reason: 'corrupt_record' },
    });
  }
  return value;
}

/** Logins in memory (one process; tests and hosts that keep tokens elsewhere). */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredTokens>();
  readonly #clients = new Map<string, OAuthClientInformationMixed>();

  /** {@inheritDoc TokenStore.get} */
  async get(server: ResourceRef): Promise<StoredTokens | undefined> {
    const tokens = this.#tokens.get(tokenKey(server));
    return tokens === undefined ? undefined : { ...tokens };
  }

  /** {@inheritDoc TokenStore.put} */
  async put(server: ResourceRef, tokens: StoredTokens): Promise<void> {
    this.#tokens.set(tokenKey(server), { ...readStoredTokens(tokens, 'the tokens') });
  }

  /** {@inheritDoc TokenStore.delete} */
  async delete(server: ResourceRef): Promise<boolean> {
    const had = this.#tokens.delete(tokenKey(server));
    return this.#clients.delete(tokenKey(server)) || had;
  }

  /** {@inheritDoc TokenStore.getClient} */
  async getClient(server: ResourceRef): Promise<OAuthClientInformationMixed | undefined> {
    const client = this.#clients.get(tokenKey(server));
    return client === undefined ? undefined : { ...client };
  }

  /** {@inheritDoc TokenStore.putClient} */
  async putClient(server: ResourceRef, client: OAuthClientInformationMixed): Promise<void> {
    this.#clients.set(tokenKey(server), { ...client });
  }
}

/**
 * A TokenStore over one row per server with a `tokens` and a `client` column
 * (the SQL adapters): the adapter gives reading and writing a column and
 * deleting the row; the checks of what is stored and read back are here.
 */
export abstract class ColumnTokenStore implements TokenStore {
  /** The JSON value of `column` of the server's row, or undefined. */
  protected abstract column(server: ResourceRef, column: 'tokens' | 'client'): Promise<unknown>;
  /** Writes `column` of the server's row (creating the row). */
  protected abstract set(server: ResourceRef, column: 'tokens' | 'client', value: unknown): Promise<void>;
  /** {@inheritDoc TokenStore.delete} */
  abstract delete(server: ResourceRef): Promise<boolean>;

  /** {@inheritDoc TokenStore.get} */
  async get(server: ResourceRef): Promise<StoredTokens | undefined> {
    const value = await this.column(server, 'tokens');
    return value === undefined ? undefined : readStoredTokens(value, `the login of ${server.reference}`);
  }

  /** {@inheritDoc TokenStore.put} */
  put(server: ResourceRef, tokens: StoredTokens): Promise<void> {
    return this.set(server, 'tokens', readStoredTokens(tokens, 'the tokens'));
  }

  /** {@inheritDoc TokenStore.getClient} */
  async getClient(server: ResourceRef): Promise<OAuthClientInformationMixed | undefined> {
    return (await this.column(server, 'client')) as OAuthClientInformationMixed | undefined;
  }

  /** {@inheritDoc TokenStore.putClient} */
  putClient(server: ResourceRef, client: OAuthClientInformationMixed): Promise<void> {
    return this.set(server, 'client', client);
  }
}
