/**
 * A PostgresRunStore watch outlives its connection (E8, issue 58): lost to a terminated backend, a refusing server
 * or a silent network, it reconnects with a bounded backoff, LISTENs again and tells the host of the gap; stop()
 * while it reconnects leaves nothing behind. Against a real PostgreSQL (AGT_TEST_PG_URL, set by `.ci/run`; skipped
 * without it), cut through a real TCP proxy on loopback.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { RunAnnouncement, RunWatchGap, RunWrite } from '../../src/adapters.js';
import { isAgtError } from '../../src/index.js';
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

// The timers of this process (each a "Timeout"): a watch's retry or heartbeat would be one.
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

function expectMasked(gap: RunWatchGap) {
  expect(gap.reason).not.toContain(PASSWORD);
  expect(gap.reason).not.toContain(url as string);
  expect(Date.parse(gap.lostAt)).toBeLessThanOrEqual(Date.parse(gap.resumedAt));
  expect(gap.attempts).toBeGreaterThanOrEqual(1);
}

describe.skipIf(!url)(`PostgreSQL watch reconnects${why}`, () => {
  it('E8: a watch whose connection is lost reconnects and tells the host of the gap (issue 58)', async () => {
    const name = table();
    const store = new PostgresRunStore({ connectionString: at(), table: name });
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
    } finally {
      await watch.stop();
      await Promise.all([store.close(), writer.close(), admin.end()]);
    }
  }, 60_000);

  it('E8: stop() while the database refuses connections ends the reconnecting watch and leaves nothing behind (issue 58)', async () => {
    const { hostname, port } = new URL(url as string);
    const proxy = await TcpProxy.start(hostname, Number(port));
    // A pool of the host's own through the proxy, no idle timers: what the watch leaves is what the pool holds.
    const pool = await pgPool({ connectionString: at(proxy.port), max: 2, idleTimeoutMillis: 0 });
    const store = new PostgresRunStore({ pool, table: table(), acquireTimeoutMs: 5_000 });
    try {
      await store.migrate();
      const before = timers();
      const gaps = queue<RunWatchGap>();
      const watch = await store.watch(() => undefined, { onGap: gaps.push });
      proxy.set('refuse'); // every connection closed, every new one refused: a server down
      await proxy.until(() => proxy.refused >= 3); // the watch noticed, and keeps trying with its backoff
      await watch.stop();
      const refused = proxy.refused;
      expect([pool.totalCount, pool.idleCount, pool.waitingCount]).toEqual([0, 0, 0]);
      expect(timers()).toBeLessThanOrEqual(before); // no retry or heartbeat timer outlives stop()
      // The server back: nothing of the watch comes back with it, and no gap is told after stop().
      proxy.set('pass');
      await store.put(write('run-after', 'c1'), { expectedRevision: null });
      expect([proxy.refused, gaps.items.length]).toEqual([refused, 0]);
      expect([pool.totalCount - pool.idleCount, pool.waitingCount]).toEqual([0, 0]);
    } finally {
      await store.close();
      await pool.end();
      await proxy.close();
    }
  }, 60_000);

  it('E8: a watch whose network goes silent notices by its heartbeat, reconnects and tells the host of the gap (issue 58)', async () => {
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

  it('E8: watch options are checked: an onGap that is not a function, a heartbeat out of range, are invalid_input (issue 58)', async () => {
    const store = new PostgresRunStore({ connectionString: url as string, table: table() });
    try {
      const error = await store.watch(() => undefined, { onGap: 'call me' as never }).catch((e: unknown) => e);
      expect(isAgtError(error) && [error.code, error.details?.field]).toEqual(['invalid_input', 'onGap']);
      expect(() => new PostgresRunStore({ connectionString: url as string, watchHeartbeatMs: 5 })).toThrow(/watchHeartbeatMs/);
    } finally {
      await store.close();
    }
  });
});
