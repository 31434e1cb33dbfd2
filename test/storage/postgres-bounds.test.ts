/**
 * The bounds of the PostgreSQL stores, against a real
 * PostgreSQL server (AGT_TEST_PG_URL, set by `.ci/run`; skipped without it):
 * a write never depends on the size of its announcement (NOTIFY carries under
 * 8,000 bytes), and no call waits forever for a pooled connection.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RUN_ID_BYTES } from '../../src/bounds.js';
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
  it('E8: a run id and agent whose JSON escapes grow them past what NOTIFY carries write, and watchers are told them in full', async () => {
    const store = new PostgresRunStore({ connectionString: url as string, table: table() });
    const seen: RunAnnouncement[] = [];
    const watch = await store.watch((a) => seen.push(a));
    try {
      // Each at MAX_RUN_ID_BYTES stored (a longer one is invalid_input: run-store-conformance.ts), 6 kB as JSON (\u0001 each).
      const escaped = (prefix: string) => `${prefix}${'\u0001'.repeat(MAX_RUN_ID_BYTES - prefix.length)}`;
      const cases: [string, string][] = [
        [escaped('run-'), escaped('team/')],
        [escaped('run-a-'), `team/${'ü'.repeat((MAX_RUN_ID_BYTES - 6) / 2)}`], // together past what NOTIFY carries
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

  it('E8: a watch passes on only announcements as stores send them: forged NOTIFY payloads on its channel reach no listener', async () => {
    const name = table();
    const store = new PostgresRunStore({ connectionString: url as string, table: name });
    const seen: RunAnnouncement[] = [];
    const watch = await store.watch((a) => seen.push(a));
    const other = await pgPool(1);
    try {
      await store.put(write('run-1', 'team/a', []), { expectedRevision: null }); // a run a forged reference could name
      const forged = [
        { runId: 'run-x', revision: 1, changes: [null, 5, { change: 'evil\u001b[2J', batchId: 7 }] },
        { runId: 'run-x', agent: 'team/a', revision: -3, changes: [] },
        { runId: 'run-x', agent: { not: 'a string' }, revision: 1, changes: [] },
        { runId: 'run-x', agent: 'team/a', revision: 1, changes: [], omitted: -1 },
        { runKey: "' OR 1=1 --", revision: 1, omitted: 0 },
        { runKey: 'a'.repeat(32), revision: 1.5, omitted: 0 },
      ];
      for (const payload of forged) await other.query('SELECT pg_notify($1, $2)', [`${name}_calls`, JSON.stringify(payload)]);
      await other.query('SELECT pg_notify($1, $2)', [
        `${name}_calls`,
        JSON.stringify({
          runId: 'run-x',
          agent: 'team/a',
          revision: 2,
          changes: [{ change: 'ended', batchId: 'b', callId: 'c', extra: 'x'.repeat(100) }],
        }),
      ]);
      await store.put(write('run-2', 'team/a', ['c1']), { expectedRevision: null });
      await announced(seen, 'run-2'); // delivered in the order sent: every forged one was looked at before
      expect(seen.map((a) => a.runId)).toEqual(['run-x', 'run-2']);
      expect(seen[0]).toEqual({ runId: 'run-x', agent: 'team/a', revision: 2, changes: [{ change: 'ended', batchId: 'b', callId: 'c' }] });
    } finally {
      await watch.stop();
      await store.close();
      await other.end();
    }
  }, 60_000);

  it('E8: with a watch holding the only pooled connection, a put ends store_unavailable (pool_timeout), not waits forever', async () => {
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

  it('E8: a PostgresStore on a pool whose every client is checked out ends store_unavailable (pool_timeout); the pool stays usable', async () => {
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

  it('E8: max must be a whole number of connections, 1 or more: invalid_input naming it', () => {
    // Before: -1 made every call wait out acquireTimeoutMs ("raise the pool's max"); 0 and NaN became pg's 10, Infinity no bound.
    for (const max of [0, -1, 1.5, Number.NaN, '8', Number.POSITIVE_INFINITY])
      expect(() => new PostgresRunStore({ connectionString: 'postgres://x@127.0.0.1:1/y', max } as never)).toThrow(
        expect.objectContaining({ code: 'invalid_input', details: { field: 'max' } }),
      );
  });

  it('E8: acquireTimeoutMs must be a whole number of milliseconds in range: invalid_input naming it', () => {
    for (const acquireTimeoutMs of [0, -1, 1.5, Number.NaN, '30s', 1e12])
      expect(() => new PostgresStore({ connectionString: 'postgres://x@127.0.0.1:1/y', acquireTimeoutMs } as never)).toThrow(
        expect.objectContaining({ code: 'invalid_input', details: { field: 'acquireTimeoutMs' } }),
      );
  });
});
