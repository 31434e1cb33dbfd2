/**
 * The `pg` driver as the PostgreSQL adapters see it: the few methods of a
 * pool and its clients they use (a `pg.Pool` fits, without pg's types), the
 * pool loaded on first use, a bounded wait on it, and the one part of a
 * driver error that is ever shown (its code).
 */
import { AgtError } from '../errors.js';

/** One connection checked out of a pool (a `pg.PoolClient` fits). */
export interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** Back to the pool; with an error the connection is discarded (and with it any lock it held). */
  release(error?: Error | boolean): void;
}

/** The events of a `pg` client that LISTEN needs. */
export interface NotificationSource {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  off(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'end', listener: () => void): unknown;
}

/** The few pool methods the store uses (a `pg.Pool` fits). */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** A connection of its own: migrations lock, migrate and unlock on one session. */
  connect(): Promise<PgClientLike>;
  end?(): Promise<void>;
}

/** `pending`, or the error `late()` makes once `ms` pass first (the timer cleared either way). */
export async function bounded<T>(pending: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([pending, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** A driver error's code when it looks like one (57P01, ECONNRESET), else "no code": nothing else of the error is shown. */
export function driverCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,32}$/.test(code) ? code : 'no code';
}

// How much longer than our own wait an owned pg pool waits: ours ends the call first, pg's then drops the queued request.
const QUEUE_GRACE_MS = 1_000;

/** A `pg` pool of at most `max` connections (pg, an optional peer, imported now); store_unavailable when pg is missing. */
export async function loadPool(connectionString: string, max: number, acquireMs: number, who: string): Promise<PgPoolLike> {
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
