/**
 * The PostgreSQL connection shared by the PostgreSQL adapters: `pg` (8.x, an
 * optional peer) loaded on first use without its types, queries mapped to
 * store_unavailable, the adapter's schema created on first use (or by an
 * explicit `migrate()`) under an advisory lock held on one checked-out client.
 */
import { checkMs, DEFAULT_PG_ACQUIRE_TIMEOUT_MS, PG_ACQUIRE_MS_RULE } from '../bounds.js';
import { AgtError, isAgtError } from '../errors.js';

/** One connection checked out of a pool (a `pg.PoolClient` fits). */
export interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** Back to the pool; with an error the connection is discarded (and with it any lock it held). */
  release(error?: Error | boolean): void;
}

/** The events of a `pg` client that LISTEN needs. */
interface NotificationSource {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/** The few pool methods the store uses (a `pg.Pool` fits). */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** A connection of its own: migrations lock, migrate and unlock on one session. */
  connect(): Promise<PgClientLike>;
  end?(): Promise<void>;
}

/** An adapter's schema: idempotent statements and the advisory-lock key they run under. */
export interface PgSchema {
  key: string;
  statements: readonly string[];
}

/**
 * How an adapter reaches the database: a connection string (the adapter owns a pool) or your pool; and how long a
 * call waits for one of its connections (`acquireTimeoutMs`, default DEFAULT_PG_ACQUIRE_TIMEOUT_MS) before it ends
 * store_unavailable (reason pool_timeout).
 */
export type PgOptions = ({ connectionString: string; max?: number } | { pool: PgPoolLike }) & { acquireTimeoutMs?: number };

const TABLE = /^[a-z_][a-z0-9_]{0,50}$/;

// How much longer than our own wait an owned pg pool waits: ours ends the call first, pg's then drops the queued request.
const QUEUE_GRACE_MS = 1_000;

async function loadPool(connectionString: string, max: number, acquireMs: number, who: string): Promise<PgPoolLike> {
  let mod: { default?: { Pool?: new (o: object) => PgPoolLike }; Pool?: new (o: object) => PgPoolLike };
  try {
    const driver = 'pg'; // a non-literal specifier: pg's own types stay out of ours (STYLE 3)
    mod = (await import(driver)) as typeof mod;
  } catch (cause) {
    throw new AgtError('store_unavailable', `${who} needs the optional peer dependency pg (8.x): run "npm install pg@8"`, { cause });
  }
  const Pool = mod.Pool ?? mod.default?.Pool;
  if (Pool === undefined) throw new AgtError('store_unavailable', 'the installed "pg" package has no Pool');
  return new Pool({ connectionString, max, connectionTimeoutMillis: acquireMs + QUEUE_GRACE_MS });
}

/** A table name option, checked (it goes into SQL). */
export function tableName(table: string, who: string): string {
  if (!TABLE.test(table))
    throw new AgtError('invalid_input', `${who}: table must be lower-case letters, digits and "_", starting with a letter or "_"`);
  return table;
}

/** A pool opened on first use; `who` names the adapter in errors. */
export class PgConnection {
  readonly #options: PgOptions;
  readonly #who: string;
  #pool: Promise<PgPoolLike> | undefined;
  readonly #ownsPool: boolean;
  readonly #schema: PgSchema;
  readonly #acquireMs: number;
  #migration: Promise<void> | undefined;
  #closed = false;

  constructor(options: PgOptions, who: string, schema: PgSchema) {
    if (!('pool' in (options ?? {})) && typeof (options as { connectionString?: unknown })?.connectionString !== 'string') {
      throw new AgtError('invalid_input', `${who} needs { connectionString } or { pool }`);
    }
    checkMs(options.acquireTimeoutMs, 'acquireTimeoutMs', PG_ACQUIRE_MS_RULE);
    this.#acquireMs = options.acquireTimeoutMs ?? DEFAULT_PG_ACQUIRE_TIMEOUT_MS;
    this.#options = options;
    this.#who = who;
    this.#schema = schema;
    this.#ownsPool = !('pool' in options);
    if ('pool' in options) this.#pool = Promise.resolve(options.pool);
  }

  #openPool(): Promise<PgPoolLike> {
    if (this.#closed) return Promise.reject(new AgtError('store_unavailable', `this ${this.#who} was closed`));
    this.#pool ??= loadPool(
      (this.#options as { connectionString: string }).connectionString,
      (this.#options as { max?: number }).max ?? 10,
      this.#acquireMs,
      this.#who,
    );
    return this.#pool;
  }

  #unavailable(error: unknown): AgtError {
    if (isAgtError(error)) return error;
    const code = String((error as { code?: unknown })?.code ?? 'unknown');
    return new AgtError('store_unavailable', `the PostgreSQL store failed (${code}); nothing was written`, {
      details: { driverCode: code },
      cause: error,
    });
  }

  /**
   * A connection of the pool, waited for at most `acquireTimeoutMs` (E8; issue 58 #25): past it, store_unavailable
   * (reason pool_timeout), and a connection handed out later goes straight back. Every statement, migration and
   * LISTEN takes its connection here, so no call of any PostgreSQL store waits forever on a pool held by others.
   */
  async #acquire(): Promise<PgClientLike> {
    const pool = await this.#openPool();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pending = Promise.resolve().then(() => pool.connect());
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.#poolTimeout()), this.#acquireMs);
    });
    try {
      return await Promise.race([pending, timedOut]);
    } catch (error) {
      pending.then(
        (client) => client.release(),
        () => undefined, // the pool's own failure or timeout: nothing was handed out
      );
      throw this.#unavailable(error);
    } finally {
      clearTimeout(timer);
    }
  }

  #poolTimeout(): AgtError {
    return new AgtError(
      'store_unavailable',
      `${this.#who}: no pooled PostgreSQL connection came free in time (acquireTimeoutMs); the store did nothing. Raise the pool's max or acquireTimeoutMs, or end what holds the connections (each watch holds one)`,
      { details: { reason: 'pool_timeout', acquireTimeoutMs: this.#acquireMs } },
    );
  }

  /** Runs one statement (the schema created first, once); driver failures are store_unavailable, and nothing was written. */
  async query(text: string, values: unknown[] = []): Promise<unknown[]> {
    await this.migrate();
    const client = await this.#acquire();
    let rows: unknown[];
    try {
      rows = (await client.query(text, values)).rows;
    } catch (error) {
      client.release(error as Error); // as pg's own pool.query does: a session that failed is not reused
      throw this.#unavailable(error);
    }
    client.release();
    return rows;
  }

  /**
   * Creates the schema if missing, once per connection object (idempotent SQL;
   * safe from several hosts at once): lock, statements and unlock run on one
   * checked-out client, since a session-level advisory lock belongs to the
   * connection that took it. A failed migration is retried by the next call.
   */
  migrate(): Promise<void> {
    this.#migration ??= this.#migrateOnce().catch((error: unknown) => {
      this.#migration = undefined;
      throw error;
    });
    return this.#migration;
  }

  async #migrateOnce(): Promise<void> {
    const client = await this.#acquire();
    const { key, statements } = this.#schema;
    let failure: Error | undefined;
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
      try {
        for (const sql of statements) await client.query(sql);
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
      }
    } catch (error) {
      failure = error as Error;
      throw this.#unavailable(error);
    } finally {
      client.release(failure); // a failed session is discarded, its lock with it
    }
  }

  /**
   * LISTENs on `channel` on a connection of its own (held out of the pool until the returned close), calling
   * `onPayload` with each notification's payload and a way to query on that connection (so a watcher that reads never
   * waits on the pool). A pool whose clients emit no notifications is store_unavailable.
   */
  async listen(
    channel: string,
    onPayload: (payload: string, query: (text: string, values: unknown[]) => Promise<unknown[]>) => void,
  ): Promise<() => Promise<void>> {
    await this.migrate();
    const client: PgClientLike & Partial<NotificationSource> = await this.#acquire();
    if (typeof client.on !== 'function' || typeof client.off !== 'function') {
      client.release();
      throw new AgtError('store_unavailable', `${this.#who}: the pool's clients emit no "notification" events, so it cannot LISTEN`);
    }
    const source = client as PgClientLike & NotificationSource;
    const query = async (text: string, values: unknown[]) => (await source.query(text, values)).rows;
    const handler = (message: { channel: string; payload?: string }) => {
      if (message.channel === channel && typeof message.payload === 'string') onPayload(message.payload, query);
    };
    const dropped = () => undefined; // a broken connection ends the watch; the pool discards it on release
    source.on('notification', handler);
    source.on('error', dropped);
    try {
      await source.query(`LISTEN ${channel}`);
    } catch (error) {
      source.off('notification', handler);
      source.off('error', dropped);
      client.release(error as Error);
      throw this.#unavailable(error);
    }
    let closed = false;
    return async () => {
      if (closed) return;
      closed = true;
      source.off('notification', handler);
      try {
        await source.query(`UNLISTEN ${channel}`);
        client.release();
      } catch (error) {
        client.release(error as Error);
      } finally {
        source.off('error', dropped);
      }
    };
  }

  /** Ends the pool the adapter created (a pool passed in stays the caller's). */
  async close(): Promise<void> {
    this.#closed = true;
    const pool = this.#pool;
    this.#pool = undefined;
    if (this.#ownsPool && pool !== undefined) await (await pool.catch(() => undefined))?.end?.();
  }
}
