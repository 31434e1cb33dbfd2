/**
 * SqliteStore: a ResourceStore in one SQLite file (`agt-mcp/sqlite`), on the
 * runtime's own SQLite (node:sqlite, bun:sqlite) or better-sqlite3 12.x, the
 * optional peer (sqlite-driver.ts), loaded on first use.
 *
 * WAL mode; every compare-and-set is one IMMEDIATE transaction, so several
 * processes can share one file safely (they wait on each other up to
 * `busyTimeoutMs`, then get `store_unavailable`).
 */
import { checkExpectedRevision, expectedRevisionOf } from '../resources/conflict.js';
import type { ResourceStore, ResourceWrite } from '../resources/store.js';
import type { ResourceKind, ResourceRecord } from '../resources/types.js';
import { guard, immediate, parseStored, type SqliteDatabase, SqliteHandle, type SqliteOptions } from './sqlite-db.js';

interface Row {
  kind: ResourceKind;
  reference: string;
  revision: number;
  data: string;
  created_at: string;
  updated_at: string;
}

/** Options of {@link SqliteStore}. */
export type SqliteStoreOptions = SqliteOptions;

/** A ResourceStore in a SQLite file, safe for several processes. */
export class SqliteStore implements ResourceStore {
  readonly #handle: SqliteHandle;

  constructor(options: SqliteStoreOptions) {
    this.#handle = new SqliteHandle(options, 'SqliteStore');
  }

  #open(): Promise<SqliteDatabase> {
    return this.#handle.open();
  }

  /** Opens the file and creates the schema if missing, as the first query would (the same contract as PostgresStore.migrate). */
  async migrate(): Promise<void> {
    await this.#open();
  }

  /** {@inheritDoc ResourceStore.get} */
  async get(kind: ResourceKind, reference: string): Promise<ResourceRecord | undefined> {
    const db = await this.#open();
    const row = guard(() => db.prepare('SELECT * FROM agt_resources WHERE kind = ? AND reference = ?').get(kind, reference)) as
      Row | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  /** {@inheritDoc ResourceStore.list} */
  async list(kind: ResourceKind, options: { category?: string } = {}): Promise<ResourceRecord[]> {
    const db = await this.#open();
    // ORDER BY on TEXT uses BINARY collation: code-point order for UTF-8, as the port requires.
    const rows = guard(() =>
      options.category === undefined
        ? db.prepare('SELECT * FROM agt_resources WHERE kind = ? ORDER BY reference').all(kind)
        : db.prepare('SELECT * FROM agt_resources WHERE kind = ? AND category = ? ORDER BY reference').all(kind, options.category),
    ) as Row[];
    return rows.map(toListedRecord);
  }

  /** {@inheritDoc ResourceStore.put} */
  async put(record: ResourceWrite, options: { expectedRevision: number | null }): Promise<ResourceRecord> {
    const expected = expectedRevisionOf(options, 'ResourceStore.put');
    const db = await this.#open();
    const data = JSON.stringify(record.data);
    const now = new Date().toISOString();
    const { kind, reference } = record;
    const write = () =>
      immediate(db, (): Row => {
        const current = db.prepare('SELECT revision FROM agt_resources WHERE kind = ? AND reference = ?').get(kind, reference) as
          { revision: number } | undefined;
        const currentRevision = current?.revision ?? null;
        checkExpectedRevision({ kind, reference }, expected, currentRevision);
        if (currentRevision === null) {
          db.prepare(
            'INSERT INTO agt_resources (kind, reference, category, revision, data, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?, ?)',
          ).run(kind, reference, reference.split('/')[0], data, now, now);
        } else {
          db.prepare(
            'UPDATE agt_resources SET revision = revision + 1, data = ?, updated_at = ? WHERE kind = ? AND reference = ? AND revision = ?',
          ).run(data, now, kind, reference, currentRevision);
        }
        return db.prepare('SELECT * FROM agt_resources WHERE kind = ? AND reference = ?').get(kind, reference) as Row;
      });
    return toRecord(guard(write));
  }

  /** {@inheritDoc ResourceStore.delete} */
  async delete(kind: ResourceKind, reference: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    const db = await this.#open();
    const remove = () =>
      immediate(db, (): boolean => {
        const current = db.prepare('SELECT revision FROM agt_resources WHERE kind = ? AND reference = ?').get(kind, reference) as
          { revision: number } | undefined;
        checkExpectedRevision({ kind, reference }, options.expectedRevision, current?.revision ?? null);
        if (current === undefined) return false;
        db.prepare('DELETE FROM agt_resources WHERE kind = ? AND reference = ?').run(kind, reference);
        return true;
      });
    return guard(remove);
  }

  /** {@inheritDoc ResourceStore.close} */
  close(): Promise<void> {
    return this.#handle.close();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function toRecord(row: Row): ResourceRecord {
  return {
    kind: row.kind,
    reference: row.reference,
    revision: row.revision,
    data: parseStored(row.data, `the stored ${row.kind} "${row.reference}"`),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// In a list, a row that cannot be read is listed with its problem instead of failing the whole list.
function toListedRecord(row: Row): ResourceRecord {
  try {
    return toRecord(row);
  } catch (error) {
    const message = (error as Error).message;
    return {
      kind: row.kind,
      reference: row.reference,
      revision: row.revision,
      data: null,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      problem: { code: 'corrupt_record', message },
    };
  }
}

export { SQLITE_SCHEMA_VERSION } from './sqlite-db.js';
export type { SqliteOptions } from './sqlite-db.js';
export { sqliteDriver } from './sqlite-driver.js';
export type { SqliteConnection, SqliteDriver, SqliteDriverName, SqliteStatement } from './sqlite-driver.js';
export { SqliteAuditStore, SqliteRunStore } from './sqlite-runs.js';
export { SqliteTaskStore } from './sqlite-tasks.js';
export { SqliteTokenStore } from './sqlite-tokens.js';
export type { SqliteTokenStoreOptions } from './sqlite-tokens.js';
