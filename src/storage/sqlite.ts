/**
 * SqliteStore: a ResourceStore in one SQLite file (`agt-mcp/sqlite`), on
 * better-sqlite3 12.x, an optional peer dependency imported on first use.
 *
 * WAL mode; every compare-and-set is one IMMEDIATE transaction, so several
 * processes can share one file safely (they wait on each other up to
 * `busyTimeoutMs`, then get `store_unavailable`).
 */
import { AgtError, isAgtError } from '../errors.js';
import { revisionConflict } from '../resources/conflict.js';
import type { ResourceStore, ResourceWrite } from '../resources/store.js';
import type { ResourceKind, ResourceRecord } from '../resources/types.js';

// The few driver methods we use, declared here so that no driver type leaks.
interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  pragma(sql: string): unknown;
  exec(sql: string): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): { immediate(...args: A): R };
  close(): unknown;
}
type SqliteConstructor = new (file: string, options?: { timeout?: number }) => SqliteDatabase;

interface Row {
  kind: ResourceKind;
  reference: string;
  revision: number;
  data: string;
  created_at: string;
  updated_at: string;
}

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file; created if missing (its directory must exist). */
  path: string;
  /** How long to wait for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
}

/** The schema version this adapter writes (`PRAGMA user_version`). */
export const SQLITE_SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agt_resources (
  kind       TEXT    NOT NULL,
  reference  TEXT    NOT NULL,
  category   TEXT    NOT NULL,
  revision   INTEGER NOT NULL,
  data       TEXT    NOT NULL,
  created_at TEXT    NOT NULL,
  updated_at TEXT    NOT NULL,
  PRIMARY KEY (kind, reference)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS agt_resources_by_category ON agt_resources (kind, category, reference);
`;

async function loadDriver(): Promise<SqliteConstructor> {
  try {
    const mod = (await import('better-sqlite3')) as unknown as { default?: SqliteConstructor };
    return (mod.default ?? mod) as SqliteConstructor;
  } catch (cause) {
    throw new AgtError(
      'store_unavailable',
      'SqliteStore needs the optional peer dependency better-sqlite3 (12.x): run "npm install better-sqlite3@12"',
      { cause },
    );
  }
}

/** A ResourceStore in a SQLite file, safe for several processes. */
export class SqliteStore implements ResourceStore {
  readonly #options: SqliteStoreOptions;
  #db: Promise<SqliteDatabase> | undefined;
  #closed = false;

  constructor(options: SqliteStoreOptions) {
    if (typeof options?.path !== 'string' || options.path === '') {
      throw new AgtError('invalid_input', 'SqliteStore needs { path }: the database file');
    }
    this.#options = options;
  }

  #open(): Promise<SqliteDatabase> {
    if (this.#closed) return Promise.reject(new AgtError('store_unavailable', 'this SqliteStore was closed'));
    this.#db ??= (async () => {
      const Driver = await loadDriver();
      return guard(() => {
        const db = new Driver(this.#options.path, { timeout: this.#options.busyTimeoutMs ?? 5000 });
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.exec(SCHEMA);
        db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
        return db;
      });
    })();
    return this.#db;
  }

  /** {@inheritDoc ResourceStore.get} */
  async get(kind: ResourceKind, reference: string): Promise<ResourceRecord | undefined> {
    const db = await this.#open();
    const row = guard(() => db.prepare('SELECT * FROM agt_resources WHERE kind = ? AND reference = ?').get(kind, reference)) as Row | undefined;
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
    return rows.map(toRecord);
  }

  /** {@inheritDoc ResourceStore.put} */
  async put(record: ResourceWrite, options: { expectedRevision: number | null }): Promise<ResourceRecord> {
    const db = await this.#open();
    const data = JSON.stringify(record.data);
    const now = new Date().toISOString();
    const { kind, reference } = record;
    const write = db.transaction((): Row => {
      const current = db.prepare('SELECT revision FROM agt_resources WHERE kind = ? AND reference = ?').get(kind, reference) as
        | { revision: number }
        | undefined;
      const currentRevision = current?.revision ?? null;
      if (currentRevision !== options.expectedRevision) throw revisionConflict(kind, reference, options.expectedRevision, currentRevision);
      if (currentRevision === null) {
        db.prepare(
          'INSERT INTO agt_resources (kind, reference, category, revision, data, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?, ?)',
        ).run(kind, reference, reference.split('/')[0], data, now, now);
      } else {
        db.prepare('UPDATE agt_resources SET revision = revision + 1, data = ?, updated_at = ? WHERE kind = ? AND reference = ? AND revision = ?').run(
          data, now, kind, reference, currentRevision,
        );
      }
      return db.prepare('SELECT * FROM agt_resources WHERE kind = ? AND reference = ?').get(kind, reference) as Row;
    });
    return toRecord(guard(() => write.immediate()));
  }

  /** {@inheritDoc ResourceStore.delete} */
  async delete(kind: ResourceKind, reference: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    const db = await this.#open();
    const remove = db.transaction((): boolean => {
      const current = db.prepare('SELECT revision FROM agt_resources WHERE kind = ? AND reference = ?').get(kind, reference) as
        | { revision: number }
        | undefined;
      if (options.expectedRevision !== undefined && current?.revision !== options.expectedRevision) {
        throw revisionConflict(kind, reference, options.expectedRevision, current?.revision ?? null);
      }
      if (current === undefined) return false;
      db.prepare('DELETE FROM agt_resources WHERE kind = ? AND reference = ?').run(kind, reference);
      return true;
    });
    return guard(() => remove.immediate());
  }

  /** {@inheritDoc ResourceStore.close} */
  async close(): Promise<void> {
    this.#closed = true;
    const db = this.#db;
    this.#db = undefined;
    if (db !== undefined) (await db.catch(() => undefined))?.close();
  }
}

function toRecord(row: Row): ResourceRecord {
  return {
    kind: row.kind,
    reference: row.reference,
    revision: row.revision,
    data: JSON.parse(row.data) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// Driver errors (locked beyond the timeout, unreadable file, disk full) become
// store_unavailable; our own AgtErrors (revision_conflict) pass through.
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isAgtError(error)) throw error;
    const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'unknown';
    throw new AgtError('store_unavailable', `the SQLite store failed (${code}); nothing was written`, { details: { driverCode: code }, cause: error });
  }
}
