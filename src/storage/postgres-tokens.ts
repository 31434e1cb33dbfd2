/**
 * PostgresTokenStore (`agt-mcp/postgres`): OAuth logins on PostgreSQL, one row
 * per (subject, server), so every host of a deployment uses (and refreshes)
 * the same login. Tokens are stored as issued: restrict the table's readers.
 */
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { readStoredTokens, type StoredTokens, tokenKey, type TokenStore } from '../mcp/token-store.js';
import type { ResourceRef } from '../resources/types.js';
import { PgConnection, type PgOptions, tableName } from './pg-db.js';

/** The schema of the tokens table (docs/postgres.md). */
function tokensSql(t: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (
      subject text NOT NULL, server text NOT NULL, tokens json, client json, updated_at timestamptz NOT NULL,
      PRIMARY KEY (subject, server)
    );`,
  ];
}

/** Options of {@link PostgresTokenStore}: whose logins these are (default `''`), the table (default `agt_tokens`). */
export type PostgresTokenStoreOptions = PgOptions & { subject?: string; table?: string };

/** OAuth logins on PostgreSQL. */
export class PostgresTokenStore implements TokenStore {
  readonly #db: PgConnection;
  readonly #table: string;
  readonly #subject: string;

  constructor(options: PostgresTokenStoreOptions) {
    this.#table = tableName(options.table ?? 'agt_tokens', 'PostgresTokenStore');
    this.#subject = options.subject ?? '';
    this.#db = new PgConnection(options, 'PostgresTokenStore', { key: this.#table, statements: tokensSql(this.#table) });
  }

  /** Creates the table if missing (idempotent; the first query does it too). */
  migrate(): Promise<void> {
    return this.#db.migrate();
  }

  async #column(server: ResourceRef, column: 'tokens' | 'client'): Promise<unknown> {
    const [row] = (await this.#db.query(`SELECT ${column} AS value FROM ${this.#table} WHERE subject = $1 AND server = $2`, [
      this.#subject,
      tokenKey(server),
    ])) as { value: unknown }[];
    return row?.value ?? undefined;
  }

  async #set(server: ResourceRef, column: 'tokens' | 'client', value: unknown): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#table} (subject, server, ${column}, updated_at) VALUES ($1, $2, $3::json, now())
       ON CONFLICT (subject, server) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      [this.#subject, tokenKey(server), JSON.stringify(value)],
    );
  }

  /** {@inheritDoc TokenStore.get} */
  async get(server: ResourceRef): Promise<StoredTokens | undefined> {
    const value = await this.#column(server, 'tokens');
    return value === undefined ? undefined : readStoredTokens(value, `the login of ${server.reference}`);
  }

  /** {@inheritDoc TokenStore.put} */
  put(server: ResourceRef, tokens: StoredTokens): Promise<void> {
    return this.#set(server, 'tokens', readStoredTokens(tokens, 'the tokens'));
  }

  /** {@inheritDoc TokenStore.delete} */
  async delete(server: ResourceRef): Promise<boolean> {
    const rows = await this.#db.query(`DELETE FROM ${this.#table} WHERE subject = $1 AND server = $2 RETURNING server`, [
      this.#subject,
      tokenKey(server),
    ]);
    return rows.length > 0;
  }

  /** {@inheritDoc TokenStore.getClient} */
  async getClient(server: ResourceRef): Promise<OAuthClientInformationMixed | undefined> {
    return (await this.#column(server, 'client')) as OAuthClientInformationMixed | undefined;
  }

  /** {@inheritDoc TokenStore.putClient} */
  putClient(server: ResourceRef, client: OAuthClientInformationMixed): Promise<void> {
    return this.#set(server, 'client', client);
  }

  /** Ends the pool the store created. */
  close(): Promise<void> {
    return this.#db.close();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
