/**
 * The SQLite file shared by SqliteStore, SqliteRunStore and SqliteAuditStore:
 * the driver (better-sqlite3 12.x, an optional peer imported on first use),
 * WAL mode, one schema for every agt table, and the error mapping.
 */
import { AgtError, isAgtError } from '../errors.js';

// The few driver methods we use, declared here so that no driver type leaks.
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  pragma(sql: string): unknown;
  exec(sql: string): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): { immediate(...args: A): R };
  close(): unknown;
}
type SqliteConstructor = new (file: string, options?: { timeout?: number }) => SqliteDatabase;

/** Options of the SQLite adapters. */
export interface SqliteOptions {
  /** The database file; created if missing (its directory must exist). */
  path: string;
  /** How long to wait for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
}

/** The schema version the adapters write (`PRAGMA user_version`): 2 adds runs and audit. */
export const SQLITE_SCHEMA_VERSION = 2;

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
CREATE TABLE IF NOT EXISTS agt_runs (
  run_id     TEXT    NOT NULL PRIMARY KEY,
  agent      TEXT    NOT NULL,
  revision   INTEGER NOT NULL,
  format     INTEGER NOT NULL,
  state      TEXT    NOT NULL,
  created_at TEXT    NOT NULL,
  updated_at TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS agt_runs_by_agent ON agt_runs (agent, run_id);
CREATE TABLE IF NOT EXISTS agt_audit (
  seq    INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  type   TEXT NOT NULL,
  at     TEXT NOT NULL,
  event  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS agt_audit_by_run ON agt_audit (run_id, seq);
`;

async function loadDriver(who: string): Promise<SqliteConstructor> {
  try {
    const mod = (await import('better-sqlite3')) as unknown as { default?: SqliteConstructor };
    return (mod.default ?? mod) as SqliteConstructor;
  } catch (cause) {
    throw new AgtError('store_unavailable', `${who} needs the optional peer dependency better-sqlite3 (12.x): run "npm install better-sqlite3@12"`, { cause });
  }
}

/** Opens the file: WAL, the schema, the version. */
export async function openSqlite(options: SqliteOptions, who: string): Promise<SqliteDatabase> {
  const Driver = await loadDriver(who);
  return guard(() => {
    const db = new Driver(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
    return db;
  });
}

// Driver errors (locked beyond the timeout, unreadable file, disk full) become
// store_unavailable; our own AgtErrors (revision_conflict) pass through.
/** Runs a driver call, mapping its failures to store_unavailable. */
export function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isAgtError(error)) throw error;
    const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'unknown';
    throw new AgtError('store_unavailable', `the SQLite store failed (${code}); nothing was written`, { details: { driverCode: code }, cause: error });
  }
}

/** A database opened on first use and closed once; `who` names the adapter in errors. */
export class SqliteHandle {
  #db: Promise<SqliteDatabase> | undefined;
  #closed = false;
  constructor(readonly options: SqliteOptions, readonly who: string) {
    if (typeof options?.path !== 'string' || options.path === '') throw new AgtError('invalid_input', `${who} needs { path }: the database file`);
  }
  /** The open database (opened now if needed). */
  open(): Promise<SqliteDatabase> {
    if (this.#closed) return Promise.reject(new AgtError('store_unavailable', `this ${this.who} was closed`));
    this.#db ??= openSqlite(this.options, this.who);
    return this.#db;
  }
  /** Closes the database; later calls fail with store_unavailable. */
  async close(): Promise<void> {
    this.#closed = true;
    const db = this.#db;
    this.#db = undefined;
    if (db !== undefined) (await db.catch(() => undefined))?.close();
  }
}
