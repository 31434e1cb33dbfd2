/**
 * SqliteTokenStore (`agt-mcp/sqlite`): OAuth logins in the registry's SQLite
 * file (table agt_tokens), one row per (subject, server). Tokens are stored as
 * the authorization server issued them: keep the file readable by its owner
 * only (the CLI keeps its logins in a file of mode 0600 instead).
 */
import { ColumnTokenStore, tokenKey } from '../mcp/auth/token-store.js';
import type { ResourceRef } from '../resources/types.js';
import { guard, parseStored, SqliteHandle, type SqliteOptions } from './sqlite-db.js';

/** Options of {@link SqliteTokenStore}: the file, and whose logins these are (default `''`: one user). */
export type SqliteTokenStoreOptions = SqliteOptions & { subject?: string };

/** OAuth logins in a SQLite file, safe for several processes. */
export class SqliteTokenStore extends ColumnTokenStore {
  readonly #handle: SqliteHandle;
  readonly #subject: string;

  constructor(options: SqliteTokenStoreOptions) {
    super();
    this.#handle = new SqliteHandle(options, 'SqliteTokenStore');
    this.#subject = options.subject ?? '';
  }

  /** Opens the file and creates the schema if missing, as the first query would. */
  async migrate(): Promise<void> {
    await this.#handle.open();
  }

  /** {@inheritDoc ColumnTokenStore.column} */
  protected async column(server: ResourceRef, column: 'tokens' | 'client'): Promise<unknown> {
    const db = await this.#handle.open();
    const row = guard(() =>
      db.prepare(`SELECT ${column} AS value FROM agt_tokens WHERE subject = ? AND server = ?`).get(this.#subject, tokenKey(server)),
    ) as { value: string | null } | undefined;
    return row?.value == null ? undefined : parseStored(row.value, `the login of ${server.reference}`);
  }

  /** {@inheritDoc ColumnTokenStore.set} */
  protected async set(server: ResourceRef, column: 'tokens' | 'client', value: unknown): Promise<void> {
    const db = await this.#handle.open();
    guard(() =>
      db
        .prepare(
          `INSERT INTO agt_tokens (subject, server, ${column}, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (subject, server) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
        )
        .run(this.#subject, tokenKey(server), JSON.stringify(value), new Date().toISOString()),
    );
  }

  /** {@inheritDoc TokenStore.delete} */
  async delete(server: ResourceRef): Promise<boolean> {
    const db = await this.#handle.open();
    return guard(
      () => db.prepare('DELETE FROM agt_tokens WHERE subject = ? AND server = ?').run(this.#subject, tokenKey(server)).changes > 0,
    );
  }

  /** Closes the file. */
  close(): Promise<void> {
    return this.#handle.close();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
