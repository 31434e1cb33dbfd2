/**
 * The bounds of the PostgreSQL stores (issue 58 #24, #25), against a real
 * PostgreSQL server (AGT_TEST_PG_URL, set by `.ci/run`; skipped without it):
 * a write never depends on the size of its announcement (NOTIFY carries under
 * 8,000 bytes), and no call waits forever for a pooled connection.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { isAgtError } from '../../src/index.js';
import type { RunAnnouncement, RunWrite } from '../../src/adapters.js';
import { type PgPoolLike, PostgresRunStore, PostgresStore } from '../../src/storage/postgres.js';

const url = process.env.AGT_TEST_PG_URL;
const why = url ? '' : ' (skipped: AGT_TEST_PG_URL is not set; .ci/run starts a throwaway PostgreSQL)';
const tables: string[] = [];
let n = 0;
const table = () => {
  const name = `agt_bounds_${process.pid}_${n++}`;
  tables.push(name);
  return name;
};

// A pg.Pool of our own (untyped driver import, as in the store).
async function pgPool(max: number): Promise<PgPoolLike & { end(): Promise<void> }> {
  const driver = 'pg';
  const pg = ((await import(driver)) as { default: { Pool: new (o: object) => PgPoolLike & { end(): Promise<void> } } }).default;
  return new pg.Pool({ connectionString: url, max });
}

afterAll(async () => {
  if (!url || tables.length === 0) return;
  const pool = await pgPool(1);
  for (const name of tables) await pool.query(`DROP TABLE IF EXISTS ${name}`);
  await pool.end();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const write = (runId: string, agent: string, callIds: string[]): RunWrite => ({
  runId,
  agent,
  state: { version: 1, runId, agent, fingerprint: 'f', settingsHash: 's', mountsHash: 'm', seenBatchIds: [] },
  announce: callIds.map((callId) => ({ change: 'waiting', batchId: 'b1', callId })),
});

// Waits until `seen` holds an announcement of `runId` (announcements are sent on commit, asynchronously).
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

describe.skipIf(!url)(`PostgreSQL store bounds${why}`, () => {
  it('E8: a 9 KB runId or agent (or one whose JSON escapes grow it) writes, and watchers are told it in full (issue 58 #24)', async () => {
    const store = new PostgresRunStore({ connectionString: url as string, table: table() });
    const seen: RunAnnouncement[] = [];
    const watch = await store.watch((a) => seen.push(a));
    try {
      const long = `run-${'x'.repeat(9000)}`;
      const escaped = `run-${'\u0001'.repeat(1500)}`; // 1.5 kB stored, 9 kB as JSON (\u0001 each)
      const cases: [string, string][] = [
        [long, 'team/a'],
        ['run-long-agent', `team/${'ü'.repeat(4600)}`],
        [escaped, 'team/a'],
      ];
      for (const [runId, agent] of cases) {
        const stored = await store.put(write(runId, agent, ['c1', 'c2']), { expectedRevision: null });
        expect([stored.runId, stored.agent, stored.revision]).toEqual([runId, agent, 1]);
        // What did not fit is counted, not lost: the watcher reads the run for it.
        expect(await announced(seen, runId)).toMatchObject({ runId, agent, revision: 1, omitted: 2 });
        expect((await store.get(runId))?.revision).toBe(1);
      }
      await store.put(write('run-short', 'team/a', ['c1']), { expectedRevision: null });
      expect(await announced(seen, 'run-short')).toEqual({
        runId: 'run-short',
        agent: 'team/a',
        revision: 1,
        changes: [{ change: 'waiting', batchId: 'b1', callId: 'c1' }],
      });
    } finally {
      await watch.stop();
      await store.close();
    }
  }, 60_000);

  it('E8: with a watch holding the only pooled connection, a put ends store_unavailable (pool_timeout), not waits forever (issue 58 #25)', async () => {
    const store = new PostgresRunStore({ connectionString: url as string, table: table(), max: 1, acquireTimeoutMs: 300 });
    try {
      await store.migrate();
      const watch = await store.watch(() => undefined);
      const error = await failure(store.put(write('run-1', 'team/a', ['c1']), { expectedRevision: null }));
      expect(isAgtError(error) && [error.code, error.details?.reason, error.details?.acquireTimeoutMs]).toEqual([
        'store_unavailable',
        'pool_timeout',
        300,
      ]);
      expect((error as Error).message).toMatch(/acquireTimeoutMs/);
      await watch.stop(); // the connection is back: the store works again
      expect((await store.put(write('run-1', 'team/a', ['c1']), { expectedRevision: null })).revision).toBe(1);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('E8: a PostgresStore on a pool whose every client is checked out ends store_unavailable (pool_timeout); the pool stays usable (issue 58 #25)', async () => {
    const pool = await pgPool(1);
    const store = new PostgresStore({ pool, table: table(), acquireTimeoutMs: 300 });
    try {
      await store.migrate();
      const held = await pool.connect();
      const errors = await Promise.all([
        failure(store.get('mcp', 'a/b')),
        failure(store.put({ kind: 'mcp', reference: 'a/b', data: {} }, { expectedRevision: null })),
      ]);
      expect(errors.map((e) => isAgtError(e) && [e.code, e.details?.reason])).toEqual([
        ['store_unavailable', 'pool_timeout'],
        ['store_unavailable', 'pool_timeout'],
      ]);
      held.release();
      await store.put({ kind: 'mcp', reference: 'a/b', data: { x: 1 } }, { expectedRevision: null });
      expect((await store.get('mcp', 'a/b'))?.data).toEqual({ x: 1 });
    } finally {
      await store.close();
      await pool.end();
    }
  }, 60_000);

  it('E8: acquireTimeoutMs must be a whole number of milliseconds in range: invalid_input naming it (issue 58 #25)', () => {
    for (const acquireTimeoutMs of [0, -1, 1.5, Number.NaN, '30s', 1e12])
      expect(() => new PostgresStore({ connectionString: 'postgres://x@127.0.0.1:1/y', acquireTimeoutMs } as never)).toThrow(
        expect.objectContaining({ code: 'invalid_input', details: { field: 'acquireTimeoutMs' } }),
      );
  });
});
