/**
 * The PostgreSQL connection shared by the PostgreSQL adapters: `pg` (8.x, an
 * optional peer) loaded on first use without its types, queries mapped to
 * store_unavailable, the adapter's schema created on first use (or by an
 * explicit `migrate()`) under an advisory lock held on one checked-out client.
 */
import { DEFAULT_PG_ACQUIRE_TIMEOUT_MS, DEFAULT_PG_POOL_SIZE, PG_ACQUIRE_MS_RULE } from '../bounds.js';
import { checkMs } from '../check-ms.js';
import { AgtError, isAgtError } from '../errors.js';
import { bounded, driverCode, loadPool, type NotificationSource, type PgClientLike, type PgPoolLike } from './pg-driver.js';

export type { PgClientLike, PgPoolLike } from './pg-driver.js';

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

/** A LISTEN on a connection of its own (PgConnection.listen). */
export interface PgListenLink {
  /** A statement on the listening connection. */
  query(text: string, values: unknown[]): Promise<unknown[]>;
  /** Declares the connection lost (a heartbeat went unanswered): discarded, and `onLost` called, once. */
  lose(reason: string): void;
  /** UNLISTEN and back to the pool (discarded if it does not answer); nothing is heard after. */
  close(): Promise<void>;
}

const TABLE = /^[a-z_][a-z0-9_]{0,50}$/;

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
    // pg takes any value: -1 is a pool always full (every call a pool_timeout), 0 and NaN its default 10, Infinity no bound.
    const max = (options as { max?: unknown }).max;
    if (max !== undefined && !(Number.isSafeInteger(max) && (max as number) >= 1))
      throw new AgtError('invalid_input', `${who}: max must be a whole number of connections, 1 or more`, { details: { field: 'max' } });
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
      (this.#options as { max?: number }).max ?? DEFAULT_PG_POOL_SIZE,
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
    const pending = Promise.resolve().then(() => pool.connect());
    try {
      return await bounded(pending, this.#acquireMs, () => this.#poolTimeout());
    } catch (error) {
      pending.then(
        (client) => client.release(),
        () => undefined, // the pool's own failure or timeout: nothing was handed out
      );
      throw this.#unavailable(error);
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
   * LISTENs on `channel` on a connection of its own (held out of the pool until the link's close), calling
   * `onPayload` with each notification's payload; `link.query` runs a statement on that connection (so a watcher that
   * reads never waits on the pool). When the connection breaks ('error' or 'end' of the client), `onLost` is called
   * once with a reason in our words (a driver code at most: never its message, which may name the host or user), and
   * the connection is discarded. LISTEN and UNLISTEN wait at most `acquireTimeoutMs`, so no silent network holds a
   * watch's start or stop (E8). A pool whose clients emit no notifications is store_unavailable.
   */
  async listen(channel: string, onPayload: (payload: string) => void, onLost: (reason: string) => void): Promise<PgListenLink> {
    await this.migrate();
    const client: PgClientLike & Partial<NotificationSource> = await this.#acquire();
    if (typeof client.on !== 'function' || typeof client.off !== 'function') {
      client.release();
      throw new AgtError('store_unavailable', `${this.#who}: the pool's clients emit no "notification" events, so it cannot LISTEN`);
    }
    const source = client as PgClientLike & NotificationSource;
    let done = false;
    let listening = false; // a loss before LISTEN answered fails the LISTEN itself, not onLost
    const handler = (message: { channel: string; payload?: string }) => {
      if (!done && message.channel === channel && typeof message.payload === 'string') onPayload(message.payload);
    };
    // Released before our listeners go: pg-pool's own 'error' listener is on again before ours is off.
    const end = (error?: Error) => {
      done = true;
      client.release(error);
      source.off('notification', handler);
      source.off('error', broken);
      source.off('end', ended);
    };
    const lose = (reason: string) => {
      if (done) return;
      end(new Error(reason));
      if (listening) onLost(reason);
    };
    const broken = (error: Error) => lose(`the connection was lost (${driverCode(error)})`);
    const ended = () => lose('the connection was closed');
    source.on('notification', handler);
    source.on('error', broken);
    source.on('end', ended);
    try {
      await this.#within(source.query(`LISTEN ${channel}`), 'LISTEN');
      if (done) throw new AgtError('store_unavailable', `${this.#who}: the connection was lost as it began to LISTEN`);
      listening = true;
    } catch (error) {
      if (!done) end(error as Error);
      throw this.#unavailable(error);
    }
    return {
      query: async (text, values) => (await source.query(text, values)).rows,
      lose,
      close: async () => {
        if (done) return;
        done = true; // no payload and no loss after close
        try {
          await this.#within(source.query(`UNLISTEN ${channel}`), 'UNLISTEN');
          end();
        } catch (error) {
          end(error as Error); // a session that failed, or did not answer, is not reused
        }
      },
    };
  }

  /** `pending`, or store_unavailable (reason no_answer) once acquireTimeoutMs passes without an answer. */
  #within<T>(pending: Promise<T>, what: string): Promise<T> {
    pending.catch(() => undefined); // answered after the bound: the session is discarded by then
    return bounded(pending, this.#acquireMs, () => {
      const details = { reason: 'no_answer', acquireTimeoutMs: this.#acquireMs };
      return new AgtError('store_unavailable', `${this.#who}: PostgreSQL did not answer ${what} within acquireTimeoutMs`, { details });
    });
  }

  /** Ends the pool the adapter created (a pool passed in stays the caller's). */
  async close(): Promise<void> {
    this.#closed = true;
    const pool = this.#pool;
    this.#pool = undefined;
    if (this.#ownsPool && pool !== undefined) await (await pool.catch(() => undefined))?.end?.();
  }
}
