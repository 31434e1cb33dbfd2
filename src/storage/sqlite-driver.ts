/**
 * The SQLite driver seam: the few things the SQLite stores ask of a driver
 * (prepare, exec, close), and the drivers that give them — `node:sqlite`
 * (built into Node ≥ 22.13: nothing native to install), `better-sqlite3`
 * (12.x, the optional peer, for Node 20) and `bun:sqlite` (Bun). The same
 * SQL runs on each, so the file format is one: a file written through one
 * driver opens through another. By default the runtime's own module is used
 * (Bun's, else Node's), and better-sqlite3 where the runtime has none.
 */
import { AgtError } from '../errors.js';

/** The drivers agt-mcp knows by name. */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3' | 'bun:sqlite';

/** A prepared statement: positional `?` parameters. */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** An open database, as the stores use it. */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements that return nothing. */
  exec(sql: string): void;
  close(): void;
}

/** A SQLite driver: a name for messages, and how to open a file with it. */
export interface SqliteDriver {
  readonly name: string;
  /** Opens `file` (created when missing, unless `readonly`); waits up to `busyTimeoutMs` for another process's lock. */
  open(file: string, options: { readonly: boolean; busyTimeoutMs: number }): SqliteConnection;
}

type NativeDb = { prepare(sql: string): SqliteStatement; exec(sql: string): unknown; close(): unknown };

const isBun = (): boolean => typeof process.versions.bun === 'string';

// Modules some runtimes lack, imported by a name held in a variable: nothing resolves them before they are asked for.
const NODE_SQLITE = 'node:sqlite';
const BUN_SQLITE = 'bun:sqlite';

async function nodeSqlite(): Promise<SqliteDriver> {
  const { DatabaseSync } = (await import(NODE_SQLITE)) as {
    DatabaseSync: new (file: string, options: { readOnly: boolean }) => NativeDb;
  };
  return {
    name: 'node:sqlite',
    open(file, { readonly, busyTimeoutMs }) {
      const db = new DatabaseSync(file, { readOnly: readonly });
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      return connection(db);
    },
  };
}

async function betterSqlite3(): Promise<SqliteDriver> {
  // A CommonJS module: Node, Bun and the CommonJS build alike give its exports as `default`.
  const { default: Database } = await import('better-sqlite3');
  new Database(':memory:', { timeout: 0 }).close(); // its native part loads here: one built for another Node fails now, not at first use
  return {
    name: 'better-sqlite3',
    open: (file, { readonly, busyTimeoutMs }) =>
      connection(new Database(file, { timeout: busyTimeoutMs, ...(readonly ? { readonly: true, fileMustExist: true } : {}) })),
  };
}

async function bunSqlite(): Promise<SqliteDriver> {
  const { Database } = (await import(BUN_SQLITE)) as { Database: new (file: string, options: Record<string, boolean>) => NativeDb };
  return {
    name: 'bun:sqlite',
    open(file, { readonly, busyTimeoutMs }) {
      const db = new Database(file, readonly ? { readonly: true } : { create: true });
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      return connection(db);
    },
  };
}

// The driver's database with a statement cache: the stores' SQL is a fixed, small set.
function connection(db: NativeDb): SqliteConnection {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    exec: (sql) => void db.exec(sql),
    close() {
      statements.clear();
      db.close();
    },
  };
}

const LOADERS: Readonly<Record<SqliteDriverName, () => Promise<SqliteDriver>>> = {
  'node:sqlite': nodeSqlite,
  'better-sqlite3': betterSqlite3,
  'bun:sqlite': bunSqlite,
};

const loaded = new Map<SqliteDriverName, Promise<SqliteDriver>>();

/**
 * The driver the SQLite stores use: `choice` (a name, or a driver of your
 * own), else the runtime's own SQLite (`bun:sqlite` on Bun, `node:sqlite` on
 * Node ≥ 22.13), else better-sqlite3. `who` names the store in errors.
 */
export async function sqliteDriver(choice?: SqliteDriverName | SqliteDriver, who = 'the SQLite store'): Promise<SqliteDriver> {
  if (typeof choice === 'object' && choice !== null) return choice;
  if (choice !== undefined && !Object.hasOwn(LOADERS, choice)) {
    throw new AgtError('invalid_input', `${who}: driver must be "node:sqlite", "better-sqlite3", "bun:sqlite" or a SqliteDriver`);
  }
  const order: SqliteDriverName[] =
    choice !== undefined ? [choice] : isBun() ? ['bun:sqlite', 'node:sqlite'] : ['node:sqlite', 'better-sqlite3'];
  const failures: unknown[] = [];
  for (const name of order) {
    try {
      return await load(name);
    } catch (cause) {
      failures.push(cause);
    }
  }
  throw unavailable(choice, who, failures[failures.length - 1]);
}

function load(name: SqliteDriverName): Promise<SqliteDriver> {
  let driver = loaded.get(name);
  if (driver === undefined) {
    driver = LOADERS[name]();
    loaded.set(name, driver);
    driver.catch(() => loaded.delete(name)); // a failed load is tried again next time (an install in between)
  }
  return driver;
}

function unavailable(choice: SqliteDriverName | undefined, who: string, cause: unknown): AgtError {
  const runtime = isBun() ? `Bun ${process.versions.bun}` : `Node ${process.version}`;
  const why =
    choice === 'node:sqlite'
      ? `node:sqlite is not in this runtime (${runtime}; it is built into Node 22.13 and later)`
      : choice === 'bun:sqlite'
        ? `bun:sqlite is only in Bun (this is ${runtime})`
        : choice === 'better-sqlite3'
          ? 'the optional peer dependency better-sqlite3 (12.x) is not installed or not built for this runtime: run "npm install better-sqlite3@12"'
          : `this runtime (${runtime}) has no SQLite of its own and the optional peer better-sqlite3 (12.x) is not installed: use Node 22.13 or later, or run "npm install better-sqlite3@12"`;
  return new AgtError('store_unavailable', `${who} needs a SQLite driver: ${why}`, { details: { reason: 'no_driver' }, cause });
}

// SQLite's primary result codes by number (node:sqlite reports a number; the others a name).
const PRIMARY_CODES: Readonly<Record<number, string>> = {
  1: 'SQLITE_ERROR',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
  26: 'SQLITE_NOTADB',
};

/** A driver error's primary SQLite code (`SQLITE_READONLY`, …), whichever driver threw it; `unknown` when it has none. */
export function sqliteCode(error: unknown): string {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  // better-sqlite3 and Bun name extended codes (SQLITE_READONLY_DBMOVED); node:sqlite numbers them (1032): both reduced to the primary.
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return /^SQLITE_[A-Z]+/.exec(code)?.[0] ?? code;
  if (typeof errcode === 'number') return PRIMARY_CODES[errcode & 0xff] ?? `SQLITE_${errcode & 0xff}`;
  return typeof code === 'string' ? code : 'unknown';
}
