/**
 * A PostgresRunStore watch outlives its connection (E8): lost to a terminated backend, a refusing server
 * or a silent network, it reconnects with a bounded backoff, LISTENs again and tells the host of the gap; stop()
 * while it reconnects leaves nothing behind. Against a real PostgreSQL (AGT_TEST_PG_URL, set by `.ci/run`; skipped
 * without it), cut through a real TCP proxy on loopback.
 */
import type { EventEmitter } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunAnnouncement, RunWatchGap, RunWrite } from '../../src/adapters.js';
import { isAgtError, MemoryRunStore } from '../../src/index.js';
import { type PgPoolLike, PostgresRunStore } from '../../src/storage/postgres.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const url = process.env.AGT_TEST_PG_URL;
const why = url ? '' : ' (skipped: AGT_TEST_PG_URL is not set; .ci/run starts a throwaway PostgreSQL)';
const tables: string[] = [];
let n = 0;
const table = () => {
  const name = `agt_watch_${process.pid}_${n++}`;
  tables.push(name);
  return name;
};

type Pool = PgPoolLike & { end(): Promise<void>; totalCount: number; idleCount: number; waitingCount: number };

// A pg.Pool of our own (untyped driver import, as in the store).
async function pgPool(options: { connectionString?: string; max: number; idleTimeoutMillis?: number }): Promise<Pool> {
  const driver = 'pg';
  const pg = ((await import(driver)) as { default: { Pool: new (o: object) => Pool } }).default;
  return new pg.Pool({ connectionString: url, ...options });
}

afterAll(async () => {
  if (!url || tables.length === 0) return;
  const pool = await pgPool({ max: 1 });
  for (const name of tables) await pool.query(`DROP TABLE IF EXISTS ${name}`);
  await pool.end();
});

const PASSWORD = 'watch-secret-4f1c'; // the server trusts loopback: a password it ignores, to prove none is shown
const at = (port?: number) => {
  const u = new URL(url as string);
  u.password = PASSWORD;
  if (port !== undefined) [u.hostname, u.port] = ['127.0.0.1', String(port)];
  return u.toString();
};

const write = (runId: string, callId: string): RunWrite => ({
  runId,
  agent: 'team/a',
  state: { version: 1, runId, agent: 'team/a', fingerprint: 'f', settingsHash: 's', mountsHash: 'm', seenBatchIds: [] },
  announce: [{ change: 'waiting', batchId: 'b1', callId }],
});

// Values pushed by a callback, each awaited in turn (events, not sleeps).
function queue<T>() {
  const items: T[] = [];
  const waiters: ((item: T) => void)[] = [];
  return {
    items,
    push: (item: T) => {
      items.push(item);
      waiters.shift()?.(item);
    },
    next: (index: number): Promise<T> =>
      index < items.length ? Promise.resolve(items[index] as T) : new Promise((resolve) => waiters.push(resolve)),
  };
}

// Waits until an announcement of `runId` arrives.
function announced(seen: RunAnnouncement[], runId: string): Promise<RunAnnouncement> {
  return new Promise((resolve) => {
    const look = () => {
      const found = seen.find((a) => a.runId === runId);
      if (found === undefined) setImmediate(look);
      else resolve(found);
    };
    look();
  });
}

// Resolves once `done()` holds, looked at each turn of the event loop.
function until(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const look = () => (done() ? resolve() : setImmediate(look));
    look();
  });
}

// The timers the stores' code (src/storage) sets from now on, and those of them still pending (neither fired nor
// cleared): a watch's retry wait, its heartbeat, a bounded LISTEN or acquire.
function storeTimers() {
  const pending = new Set<unknown>();
  const [set, clear] = [globalThis.setTimeout, globalThis.clearTimeout];
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if (!/src[\\/]storage[\\/]/.test(new Error().stack ?? '')) return set(callback, ms, ...args);
    const handle = set(
      (...a: unknown[]) => {
        pending.delete(handle);
        callback(...a);
      },
      ms,
      ...args,
    );
    pending.add(handle);
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(handle);
    clear(handle);
  }) as typeof clearTimeout;
  return { pending, restore: () => void ([globalThis.setTimeout, globalThis.clearTimeout] = [set, clear]) };
}

function expectMasked(gap: RunWatchGap) {
  expect(gap.reason).not.toContain(PASSWORD);
  expect(gap.reason).not.toContain(url as string);
  expect(Date.parse(gap.lostAt)).toBeLessThanOrEqual(Date.parse(gap.resumedAt));
  expect(gap.attempts).toBeGreaterThanOrEqual(1);
}

describe.skipIf(!url)(`PostgreSQL watch reconnects${why}`, () => {
  it('E8: a watch whose connection is lost reconnects and tells the host of the gap', async () => {
    const name = table();
    const pool = await pgPool({ connectionString: at(), max: 3 });
    const released = new Set<EventEmitter>(); // every client the watch (or a put) gave back, lost or not
    (pool as unknown as EventEmitter).on('release', (_: unknown, client: EventEmitter) => released.add(client));
    const store = new PostgresRunStore({ pool, table: name });
    const writer = new PostgresRunStore({ connectionString: url as string, table: name }); // another host
    const admin = await pgPool({ max: 1 });
    const seen: RunAnnouncement[] = [];
    const gaps = queue<RunWatchGap>();
    const watch = await store.watch((a) => seen.push(a), { onGap: gaps.push });
    try {
      for (const round of [0, 1]) {
        // The watch's backend (its last statement is its LISTEN), terminated as an administrator or a restart does.
        const { rows } = await admin.query('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE query = $1', [
          `LISTEN ${name}_calls`,
        ]);
        expect(rows).toEqual([{ n: 1 }]);
        const gap = await gaps.next(round);
        expectMasked(gap);
        expect(gap.reason).toMatch(/lost/);
        // Listening again: a write after the gap reaches the listener.
        await writer.put(write(`run-${round}`, 'c1'), { expectedRevision: null });
        expect(await announced(seen, `run-${round}`)).toMatchObject({ runId: `run-${round}`, revision: 1 });
      }
      expect(gaps.items).toHaveLength(2);
      await watch.stop();
      // Three connections the watch held (two lost, one stopped): none keeps a listener of the watch.
      const kept = [...released].map((c) => [c.listenerCount('notification'), c.listenerCount('end'), c.listenerCount('error')]);
      expect(kept).toEqual(kept.map(() => [0, 0, 1])); // 'error': the pool's own
      expect(released.size).toBeGreaterThanOrEqual(3);
      expect(pool.totalCount - pool.idleCount).toBe(0);
    } finally {
      await watch.stop();
      await Promise.all([store.close(), writer.close(), admin.end()]);
      await pool.end();
    }
  }, 60_000);

  it('E8: stop() while the database refuses connections ends the reconnecting watch and leaves nothing behind', async () => {
    const { hostname, port } = new URL(url as string);
    const proxy = await TcpProxy.start(hostname, Number(port));
    // A pool of the host's own through the proxy, no idle timers: what the watch leaves is what the pool holds.
    const pool = await pgPool({ connectionString: at(proxy.port), max: 2, idleTimeoutMillis: 0 });
    const store = new PostgresRunStore({ pool, table: table(), acquireTimeoutMs: 5_000 });
    const timers = storeTimers();
    try {
      await store.migrate();
      const gaps = queue<RunWatchGap>();
      const watch = await store.watch(() => undefined, { onGap: gaps.push });
      proxy.set('refuse'); // every connection closed, every new one refused: a server down
      await proxy.until(() => proxy.refused >= 3); // the watch noticed, and keeps trying with its backoff
      // In a reconnect wait: the refused attempt's client gone from the pool, the retry's timer pending.
      await until(() => pool.totalCount === 0 && timers.pending.size > 0);
      await watch.stop();
      const refused = proxy.refused;
      expect([pool.totalCount, pool.idleCount, pool.waitingCount]).toEqual([0, 0, 0]);
      expect(timers.pending.size).toBe(0); // no retry, heartbeat or bound outlives stop()
      // The server back: nothing of the watch comes back with it, and no gap is told after stop().
      proxy.set('pass');
      await store.put(write('run-after', 'c1'), { expectedRevision: null });
      expect([proxy.refused, gaps.items.length]).toEqual([refused, 0]);
      expect([pool.totalCount - pool.idleCount, pool.waitingCount]).toEqual([0, 0]);
    } finally {
      timers.restore();
      await store.close();
      await pool.end();
      await proxy.close();
    }
  }, 60_000);

  it('E8: a watch whose network goes silent notices by its heartbeat, reconnects and tells the host of the gap', async () => {
    const name = table();
    const { hostname, port } = new URL(url as string);
    const proxy = await TcpProxy.start(hostname, Number(port));
    const store = new PostgresRunStore({ connectionString: at(proxy.port), table: name, watchHeartbeatMs: 200, acquireTimeoutMs: 5_000 });
    const writer = new PostgresRunStore({ connectionString: url as string, table: name });
    const seen: RunAnnouncement[] = [];
    const gaps = queue<RunWatchGap>();
    const watch = await store.watch((a) => seen.push(a), { onGap: gaps.push });
    try {
      const connections = proxy.connections;
      proxy.set('freeze'); // nothing forwarded, nothing closed: no 'error' or 'end' ever comes
      await proxy.until(() => proxy.connections > connections); // the heartbeat went unanswered: the watch reconnects
      proxy.set('pass');
      const gap = await gaps.next(0);
      expectMasked(gap);
      expect(gap.reason).toMatch(/heartbeat/);
      await writer.put(write('run-1', 'c1'), { expectedRevision: null });
      expect(await announced(seen, 'run-1')).toMatchObject({ runId: 'run-1', revision: 1 });
    } finally {
      await watch.stop();
      await Promise.all([store.close(), writer.close()]);
      await proxy.close();
    }
  }, 60_000);
});

describe('RunStore watch options', () => {
  it("E8: every store's watch takes the same options, checked before any I/O: a bad listener, onGap or option, a heartbeat out of range are invalid_input", async () => {
    const nowhere = 'postgres://agt@127.0.0.1:1/none'; // never reached: the checks come first
    for (const store of [new MemoryRunStore(), new PostgresRunStore({ connectionString: nowhere })]) {
      const cases: [unknown, unknown, string][] = [
        ['not a function', undefined, 'listener'],
        [() => undefined, { onGap: 'call me' }, 'onGap'],
        [() => undefined, { ongap: () => undefined }, 'options'], // misspelt: the host would never hear of a gap
        [() => undefined, null, 'options'],
      ];
      for (const [listener, options, field] of cases) {
        const error = await store.watch(listener as never, options as never).catch((e: unknown) => e);
        expect(isAgtError(error) && [error.code, error.details?.field]).toEqual(['invalid_input', field]);
      }
      await store.close();
    }
    const memory = new MemoryRunStore(); // one code path for hosts: the same options everywhere
    const watch = await memory.watch(() => undefined, { onGap: () => undefined });
    await watch.stop();
    for (const watchHeartbeatMs of [5, 1.5, Infinity, '30s'])
      expect(() => new PostgresRunStore({ connectionString: nowhere, watchHeartbeatMs: watchHeartbeatMs as number })).toThrow(
        /watchHeartbeatMs/,
      );
  });
});
