/**
 * The PostgreSQL connection shared by the PostgreSQL adapters: `pg` (8.x, an
 * optional peer) loaded on first use without its types, queries mapped to
 * store_unavailable, migrations under an advisory lock.
 */
import { AgtError, isAgtError } from '../errors.js';

/** The few pool methods the store uses (a `pg.Pool` fits). */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  end?(): Promise<void>;
}

/** How an adapter reaches the database: a connection string (the adapter owns a pool) or your pool. */
export type PgOptions = { connectionString: string; max?: number } | { pool: PgPoolLike };

const TABLE = /^[a-z_][a-z0-9_]{0,50}$/;

async function loadPool(connectionString: string, max: number, who: string): Promise<PgPoolLike> {
  let mod: { default?: { Pool?: new (o: object) => PgPoolLike }; Pool?: new (o: object) => PgPoolLike };
  try {
    const driver = 'pg'; // a non-literal specifier: pg's own types stay out of ours (STYLE 3)
    mod = (await import(driver)) as typeof mod;
  } catch (cause) {
    throw new AgtError('store_unavailable', `${who} needs the optional peer dependency pg (8.x): run "npm install pg@8"`, { cause });
  }
  const Pool = mod.Pool ?? mod.default?.Pool;
  if (Pool === undefined) throw new AgtError('store_unavailable', 'the installed "pg" package has no Pool');
  return new Pool({ connectionString, max });
}

/** A table name option, checked (it goes into SQL). */
export function tableName(table: string, who: string): string {
  if (!TABLE.test(table)) throw new AgtError('invalid_input', `${who}: table must be lower-case letters, digits and "_", starting with a letter or "_"`);
  return table;
}

/** A pool opened on first use; `who` names the adapter in errors. */
export class PgConnection {
  readonly #options: PgOptions;
  readonly #who: string;
  #pool: Promise<PgPoolLike> | undefined;
  readonly #ownsPool: boolean;
  #closed = false;

  constructor(options: PgOptions, who: string) {
    if (!('pool' in (options ?? {})) && typeof (options as { connectionString?: unknown })?.connectionString !== 'string') {
      throw new AgtError('invalid_input', `${who} needs { connectionString } or { pool }`);
    }
    this.#options = options;
    this.#who = who;
    this.#ownsPool = !('pool' in options);
    if ('pool' in options) this.#pool = Promise.resolve(options.pool);
  }

  /** Runs one statement; driver failures are store_unavailable, and nothing was written. */
  async query(text: string, values: unknown[] = []): Promise<unknown[]> {
    if (this.#closed) throw new AgtError('store_unavailable', `this ${this.#who} was closed`);
    this.#pool ??= loadPool((this.#options as { connectionString: string }).connectionString, (this.#options as { max?: number }).max ?? 10, this.#who);
    const pool = await this.#pool;
    try {
      return (await pool.query(text, values)).rows;
    } catch (error) {
      if (isAgtError(error)) throw error;
      const code = String((error as { code?: unknown })?.code ?? 'unknown');
      throw new AgtError('store_unavailable', `the PostgreSQL store failed (${code}); nothing was written`, { details: { driverCode: code }, cause: error });
    }
  }

  /** Applies `statements` under an advisory lock on `key` (idempotent SQL; safe from several hosts at once). */
  async migrate(key: string, statements: readonly string[]): Promise<void> {
    await this.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    try {
      for (const sql of statements) await this.query(sql);
    } finally {
      await this.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  }

  /** Ends the pool the adapter created (a pool passed in stays the caller's). */
  async close(): Promise<void> {
    this.#closed = true;
    const pool = this.#pool;
    this.#pool = undefined;
    if (this.#ownsPool && pool !== undefined) await (await pool.catch(() => undefined))?.end?.();
  }
}
