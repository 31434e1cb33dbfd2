/**
 * The SQLite file shared by SqliteStore, SqliteRunStore, SqliteAuditStore and
 * SqliteTokenStore: the driver (sqlite-driver.ts: node:sqlite, better-sqlite3
 * or bun:sqlite, loaded on first use), WAL mode, one schema for every agt
 * table, IMMEDIATE transactions, and the error mapping.
 */
import fs from 'node:fs';
import { AgtError, isAgtError } from '../errors.js';
import { type SqliteConnection, type SqliteDriver, sqliteCode, sqliteDriver, type SqliteDriverName } from './sqlite-driver.js';
import { DEFAULT_SQLITE_BUSY_TIMEOUT_MS } from '../bounds.js';

/** The open database the stores query. */
export type SqliteDatabase = SqliteConnection;

/** Options of the SQLite adapters. */
export interface SqliteOptions {
  /** The database file; created if missing (its directory must exist). */
  path: string;
  /** How long to wait for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * The SQLite driver: `node:sqlite` (Node ≥ 22.13, built in), `better-sqlite3`
   * (the optional peer, 12.x), `bun:sqlite` (Bun), or a {@link SqliteDriver} of
   * your own. Default: the runtime's own SQLite, else better-sqlite3. Every
   * driver reads and writes the same file format.
   */
  driver?: SqliteDriverName | SqliteDriver;
}

/** The schema version the adapters write (`PRAGMA user_version`): 2 adds runs and audit (the tokens and tasks tables are additive: older readers ignore them). */
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
CREATE INDEX IF NOT EXISTS agt_runs_waiting ON agt_runs (run_id) WHERE format >= 2;
CREATE INDEX IF NOT EXISTS agt_runs_waiting_by_agent ON agt_runs (agent, run_id) WHERE format >= 2;
CREATE TABLE IF NOT EXISTS agt_audit (
  seq    INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  type   TEXT NOT NULL,
  at     TEXT NOT NULL,
  event  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS agt_audit_by_run ON agt_audit (run_id, seq);
CREATE TABLE IF NOT EXISTS agt_tasks (
  task_id    TEXT NOT NULL PRIMARY KEY,
  owner      TEXT,
  record     TEXT NOT NULL,
  expires_at TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS agt_tasks_by_owner ON agt_tasks (owner, created_at);
CREATE TABLE IF NOT EXISTS agt_tokens (
  subject    TEXT NOT NULL,
  server     TEXT NOT NULL,
  tokens     TEXT,
  client     TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (subject, server)
) WITHOUT ROWID;
`;

// A file we may only read (permissions): opened read-only, so reads work and writes say why they cannot.
function readOnly(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.W_OK);
    return false;
  } catch (error) {
    return (
      (error as NodeJS.ErrnoException).code === 'EACCES' ||
      (error as NodeJS.ErrnoException).code === 'EPERM' ||
      (error as NodeJS.ErrnoException).code === 'EROFS'
    );
  }
}

// Refuses a file this version must not touch: a newer schema, or another application's database.
function checkFile(db: SqliteDatabase, file: string): void {
  const version = Number((db.prepare('PRAGMA user_version').get() as { user_version?: unknown } | undefined)?.user_version ?? 0);
  const tables = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]
  ).map((t) => t.name);
  const ours = tables.filter((t) => t.startsWith('agt_'));
  if (ours.length === 0 && tables.length > 0) {
    throw new AgtError(
      'store_unavailable',
      `${file} is another application's SQLite database (tables: ${tables.slice(0, 5).join(', ')}); point the store at an agt database or a new file`,
      {
        details: { reason: 'foreign_database', tables: tables.slice(0, 20) },
      },
    );
  }
  if (version > SQLITE_SCHEMA_VERSION) {
    throw new AgtError(
      'store_unavailable',
      `${file} has schema version ${version}, written by a newer agt-mcp; this version knows ${SQLITE_SCHEMA_VERSION}: upgrade agt-mcp`,
      {
        details: { reason: 'newer_schema', schemaVersion: version, supported: SQLITE_SCHEMA_VERSION },
      },
    );
  }
}

/** Opens the file: checks it is ours and not newer, then WAL, the schema, the version (read-only files: only the checks). */
export async function openSqlite(options: SqliteOptions, who: string): Promise<SqliteDatabase> {
  const driver = await sqliteDriver(options.driver, who);
  const exists = fs.existsSync(options.path);
  const readonly = exists && readOnly(options.path);
  return guard(() => {
    const db = driver.open(options.path, { readonly, busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS });
    try {
      if (exists) checkFile(db, options.path);
      if (readonly) return db;
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec(SCHEMA);
      db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION}`);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  });
}

/** A stored JSON text read back: a corrupt or hand-edited row is store_unavailable `corrupt_record` naming `what`, never a raw SyntaxError. */
export function parseStored(text: unknown, what: string): unknown {
  try {
    if (typeof text !== 'string') throw new TypeError('not text');
    return JSON.parse(text) as unknown;
  } catch {
    throw new AgtError(
      'store_unavailable',
      `${what} is not valid JSON (a corrupt or hand-edited row); restore it from a backup, or delete it`,
      { details: { reason: 'corrupt_record' } },
    );
  }
}

/**
 * Runs `fn` in one IMMEDIATE transaction (the write lock taken at BEGIN, so a
 * compare-and-set never loses to another process): committed when it returns,
 * rolled back when it throws.
 */
export function immediate<T>(db: SqliteDatabase, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // no transaction left to roll back (a failed COMMIT may have ended it)
    }
    throw error;
  }
}

// Driver errors (locked beyond the timeout, unreadable file, disk full) become
// store_unavailable; our own AgtErrors (revision_conflict) pass through.
/** Runs a driver call, mapping its failures to store_unavailable. */
export function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isAgtError(error)) throw error;
    const code = sqliteCode(error);
    const why =
      code === 'SQLITE_READONLY'
        ? 'the file is read-only for this user; nothing was written'
        : `the SQLite store failed (${code}); nothing was written`;
    throw new AgtError('store_unavailable', why, { details: { driverCode: code }, cause: error });
  }
}

/** A database opened on first use and closed once; `who` names the adapter in errors. */
export class SqliteHandle {
  #db: Promise<SqliteDatabase> | undefined;
  #closed = false;
  constructor(
    readonly options: SqliteOptions,
    readonly who: string,
  ) {
    if (typeof options?.path !== 'string' || options.path === '')
      throw new AgtError('invalid_input', `${who} needs { path }: the database file`);
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
    const open = db === undefined ? undefined : await db.catch(() => undefined);
    if (open === undefined) return;
    // The last connection to leave puts the file back in rollback-journal mode, so a user who
    // may only read it can open it (a WAL file needs a writable directory even to be read).
    // With others still connected this fails at once (busy_timeout 0) and WAL stays.
    try {
      open.exec('PRAGMA busy_timeout = 0');
      open.exec('PRAGMA journal_mode = DELETE');
    } catch {
      // read-only, or not the last connection
    }
    open.close();
  }
}
