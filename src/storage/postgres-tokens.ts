/**
 * PostgresTokenStore (`agt-mcp/postgres`): OAuth logins on PostgreSQL, one row
 * per (subject, server), so every host of a deployment uses (and refreshes)
 * the same login. Tokens are stored as issued: restrict the table's readers.
 */
import { ColumnTokenStore, tokenKey } from '../mcp/auth/token-store.js';
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
export class PostgresTokenStore extends ColumnTokenStore {
  readonly #db: PgConnection;
  readonly #table: string;
  readonly #subject: string;

  constructor(options: PostgresTokenStoreOptions) {
    super();
    this.#table = tableName(options.table ?? 'agt_tokens', 'PostgresTokenStore');
    this.#subject = options.subject ?? '';
    this.#db = new PgConnection(options, 'PostgresTokenStore', { key: this.#table, statements: tokensSql(this.#table) });
  }

  /** Creates the table if missing (idempotent; the first query does it too). */
  migrate(): Promise<void> {
    return this.#db.migrate();
  }

  /** {@inheritDoc ColumnTokenStore.column} */
  protected async column(server: ResourceRef, column: 'tokens' | 'client'): Promise<unknown> {
    const [row] = (await this.#db.query(`SELECT ${column} AS value FROM ${this.#table} WHERE subject = $1 AND server = $2`, [
      this.#subject,
      tokenKey(server),
    ])) as { value: unknown }[];
    return row?.value ?? undefined;
  }

  /** {@inheritDoc ColumnTokenStore.set} */
  protected async set(server: ResourceRef, column: 'tokens' | 'client', value: unknown): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#table} (subject, server, ${column}, updated_at) VALUES ($1, $2, $3::json, now())
       ON CONFLICT (subject, server) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      [this.#subject, tokenKey(server), JSON.stringify(value)],
    );
  }

  /** {@inheritDoc TokenStore.delete} */
  async delete(server: ResourceRef): Promise<boolean> {
    const rows = await this.#db.query(`DELETE FROM ${this.#table} WHERE subject = $1 AND server = $2 RETURNING server`, [
      this.#subject,
      tokenKey(server),
    ]);
    return rows.length > 0;
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
