/**
 * PostgresStore: a ResourceStore on PostgreSQL (`agt-mcp/postgres`), for
 * registries shared by many hosts. `pg` is an optional peer dependency loaded
 * on first use; its types are not exposed (a small structural type is enough).
 *
 * Every write is one statement: create-if-absent is `INSERT … ON CONFLICT DO
 * NOTHING`, compare-and-set is `UPDATE … WHERE revision = $n`, so concurrent
 * writers on any number of hosts never lose an update and a failure writes
 * nothing. The schema is created on first use, as SqliteStore does, or ahead
 * of time by `migrate()` (versioned, idempotent).
 */
import { expectedRevisionOf, revisionConflict } from '../resources/conflict.js';
import type { ResourceStore, ResourceWrite } from '../resources/store.js';
import type { ResourceKind, ResourceRecord } from '../resources/types.js';
import { PgConnection, type PgOptions, tableName } from './pg-db.js';

/** Options of {@link PostgresStore}. */
export type PostgresStoreOptions = PgOptions & {
  /** Table name (lower-case, `[a-z_][a-z0-9_]*`). Default `agt_resources`. */
  table?: string;
};

/** The schema version `migrate()` brings a database to. */
export const POSTGRES_SCHEMA_VERSION = 1;

/** The SQL of each schema version, applied in order by `migrate()` (documented in docs/postgres.md). */
export function migrationSql(table: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
      kind       text        NOT NULL,
      reference  text        NOT NULL,
      category   text        NOT NULL,
      revision   integer     NOT NULL,
      data       json        NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (kind, reference)
    );
    CREATE INDEX IF NOT EXISTS ${table}_by_category ON ${table} (kind, category, reference COLLATE "C");`,
  ];
}

interface Row {
  kind: ResourceKind;
  reference: string;
  revision: number;
  data: unknown;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A ResourceStore on PostgreSQL, shared safely by many processes and hosts. */
export class PostgresStore implements ResourceStore {
  readonly #table: string;
  readonly #db: PgConnection;

  constructor(options: PostgresStoreOptions) {
    this.#table = tableName(options.table ?? 'agt_resources', 'PostgresStore');
    this.#db = new PgConnection(options, 'PostgresStore', { key: this.#table, statements: migrationSql(this.#table) });
  }

  #query(text: string, values: unknown[] = []): Promise<Row[]> {
    return this.#db.query(text, values) as Promise<Row[]>;
  }

  /** Creates the table and index if missing (idempotent; safe from several hosts at once). The first query does it too. */
  migrate(): Promise<void> {
    return this.#db.migrate();
  }

  /** {@inheritDoc ResourceStore.get} */
  async get(kind: ResourceKind, reference: string): Promise<ResourceRecord | undefined> {
    const [row] = await this.#query(`SELECT * FROM ${this.#table} WHERE kind = $1 AND reference = $2`, [kind, reference]);
    return row === undefined ? undefined : toRecord(row);
  }

  /** {@inheritDoc ResourceStore.list} */
  async list(kind: ResourceKind, options: { category?: string } = {}): Promise<ResourceRecord[]> {
    // COLLATE "C": code-point order, as the port requires (not the database locale's).
    const rows =
      options.category === undefined
        ? await this.#query(`SELECT * FROM ${this.#table} WHERE kind = $1 ORDER BY reference COLLATE "C"`, [kind])
        : await this.#query(`SELECT * FROM ${this.#table} WHERE kind = $1 AND category = $2 ORDER BY reference COLLATE "C"`, [
            kind,
            options.category,
          ]);
    return rows.map(toRecord);
  }

  /** {@inheritDoc ResourceStore.put} */
  async put(record: ResourceWrite, options: { expectedRevision: number | null }): Promise<ResourceRecord> {
    const expected = expectedRevisionOf(options, 'ResourceStore.put');
    const { kind, reference } = record;
    const data = JSON.stringify(record.data);
    const now = new Date().toISOString();
    const rows =
      expected === null
        ? await this.#query(
            `INSERT INTO ${this.#table} (kind, reference, category, revision, data, created_at, updated_at)
           VALUES ($1, $2, $3, 1, $4::json, $5, $5) ON CONFLICT (kind, reference) DO NOTHING RETURNING *`,
            [kind, reference, reference.split('/')[0], data, now],
          )
        : await this.#query(
            `UPDATE ${this.#table} SET revision = revision + 1, data = $4::json, updated_at = $5
           WHERE kind = $1 AND reference = $2 AND revision = $3 RETURNING *`,
            [kind, reference, expected, data, now],
          );
    const [row] = rows;
    if (row === undefined) throw revisionConflict({ kind, reference }, expected, await this.#revision(kind, reference));
    return toRecord(row);
  }

  async #revision(kind: ResourceKind, reference: string): Promise<number | null> {
    const [row] = await this.#query(`SELECT revision FROM ${this.#table} WHERE kind = $1 AND reference = $2`, [kind, reference]);
    return row?.revision ?? null;
  }

  /** {@inheritDoc ResourceStore.delete} */
  async delete(kind: ResourceKind, reference: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    const rows =
      options.expectedRevision === undefined
        ? await this.#query(`DELETE FROM ${this.#table} WHERE kind = $1 AND reference = $2 RETURNING revision`, [kind, reference])
        : await this.#query(`DELETE FROM ${this.#table} WHERE kind = $1 AND reference = $2 AND revision = $3 RETURNING revision`, [
            kind,
            reference,
            options.expectedRevision,
          ]);
    if (rows.length > 0) return true;
    if (options.expectedRevision === undefined) return false;
    throw revisionConflict({ kind, reference }, options.expectedRevision, await this.#revision(kind, reference));
  }

  /** Ends the pool the store created (a pool passed in stays the caller's). */
  close(): Promise<void> {
    return this.#db.close();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

function toRecord(row: Row): ResourceRecord {
  return {
    kind: row.kind,
    reference: row.reference,
    revision: row.revision,
    data: row.data,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export type { PgClientLike, PgOptions, PgPoolLike } from './pg-db.js';
export { PostgresAuditStore, PostgresRunStore } from './postgres-runs.js';
export { PostgresTokenStore } from './postgres-tokens.js';
export type { PostgresTokenStoreOptions } from './postgres-tokens.js';
