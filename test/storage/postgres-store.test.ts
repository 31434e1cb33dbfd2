/**
 * PostgresStore against a real PostgreSQL server. `.ci/run` starts a throwaway
 * cluster on a loopback port and sets AGT_TEST_PG_URL; without it these tests
 * are skipped, and say so in their names.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { isAgtError, ResourceService } from '../../src/index.js';
import { type PgPoolLike, PostgresAuditStore, PostgresRunStore, PostgresStore } from '../../src/storage/postgres.js';
import { storeConformanceSuite } from '../../src/testing/index.js';
import { runTs } from '../support/index.js';

const url = process.env.AGT_TEST_PG_URL;
const why = url ? '' : ' (skipped: AGT_TEST_PG_URL is not set; .ci/run starts a throwaway PostgreSQL)';
const tables: string[] = [];
let n = 0;
const fresh = async (): Promise<PostgresStore> => {
  const table = `agt_test_${process.pid}_${n++}`;
  tables.push(table);
  const store = new PostgresStore({ connectionString: url as string, table });
  await store.migrate();
  return store;
};

// A pg.Pool of our own (untyped driver import, as in the store).
async function sharedPool(max: number) {
  const driver = 'pg';
  const pg = ((await import(driver)) as { default: { Pool: new (o: object) => PgPoolLike & { end(): Promise<void> } } }).default;
  return new pg.Pool({ connectionString: url, max });
}

// Advisory locks held now on the keys the stores lock (hashtext of the table name).
async function advisoryLocksOn(keys: string[]): Promise<number> {
  const pool = await sharedPool(1);
  const { rows } = await pool.query(
    "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid::bigint = ANY (SELECT hashtext(k)::bigint & 4294967295 FROM unnest($1::text[]) AS k)",
    [keys],
  );
  await pool.end();
  return (rows[0] as { n: number }).n;
}

afterAll(async () => {
  if (!url || tables.length === 0) return;
  const driver = 'pg'; // untyped on purpose, as in the store
  const pg = (
    (await import(driver)) as { default: { Pool: new (o: object) => { query(q: string): Promise<unknown>; end(): Promise<void> } } }
  ).default;
  const pool = new pg.Pool({ connectionString: url });
  for (const table of tables) await pool.query(`DROP TABLE IF EXISTS ${table}`);
  await pool.end();
});

describe.skipIf(!url)(`PostgresStore${why}`, () => {
  storeConformanceSuite(fresh, { test: it, label: 'PostgresStore' });

  it('migrate() is idempotent and safe to run concurrently', async () => {
    const store = await fresh();
    await Promise.all([store.migrate(), store.migrate(), store.migrate()]);
    await store.put({ kind: 'mcp', reference: 'a/b', data: { x: 1 } }, { expectedRevision: null });
    await store.migrate();
    expect((await store.get('mcp', 'a/b'))?.data).toEqual({ x: 1 });
    await store.close();
  });

  it('A4: 4 processes migrating the same fresh tables at once all succeed; no advisory lock is left behind', async () => {
    const prefix = `agt_mig_${process.pid}_${n++}`;
    tables.push(`${prefix}_resources`, `${prefix}_runs`, `${prefix}_audit`);
    const outputs = await Promise.all([0, 1, 2, 3].map(() => runTs('test/storage/fixtures/pg-migrate.ts', [url as string, prefix])));
    expect(outputs.map((o) => JSON.parse(o))).toEqual([{ ok: true }, { ok: true }, { ok: true }, { ok: true }]);
    const check = new PostgresStore({ connectionString: url as string, table: `${prefix}_resources` });
    expect((await check.list('mcp')).length).toBe(4);
    await check.close();
    expect(await advisoryLocksOn([`${prefix}_resources`, `${prefix}_runs`, `${prefix}_audit`])).toBe(0);
  }, 60_000);

  it('A4: migrate() locks, migrates and unlocks on one client of a shared pool, so no lock outlives it', async () => {
    const pool = await sharedPool(4);
    const table = `agt_test_${process.pid}_${n++}`;
    tables.push(table);
    const stores = [0, 1, 2].map(() => new PostgresStore({ pool, table }));
    await Promise.all(stores.map((s) => s.migrate()));
    await Promise.all(stores.map((s) => s.migrate())); // memoised per store: no second lock
    expect(await advisoryLocksOn([table])).toBe(0);
    const other = new PostgresStore({ pool, table });
    await other.migrate(); // would wait forever on a lock left held by another session of the pool
    expect(await advisoryLocksOn([table])).toBe(0);
    await pool.end();
  });

  it('A4: one pool per host: the registry, run and audit stores share one pg.Pool; the host never holds more than its max; closing the stores leaves it open', async () => {
    const name = `agt-fleet-${process.pid}-${n}`;
    const driver = 'pg';
    const pg = ((await import(driver)) as { default: { Pool: new (o: object) => PgPoolLike & { end(): Promise<void> } } }).default;
    const pool = new pg.Pool({ connectionString: url, max: 3, application_name: name });
    const prefix = `agt_test_${process.pid}_${n++}`;
    tables.push(`${prefix}_resources`, `${prefix}_runs`, `${prefix}_audit`);
    const service = new ResourceService({ store: new PostgresStore({ pool, table: `${prefix}_resources` }) });
    const runs = new PostgresRunStore({ pool, table: `${prefix}_runs` });
    const audit = new PostgresAuditStore({ pool, table: `${prefix}_audit` });
    const watch = await sharedPool(1);
    let most = 0;
    const count = async () => {
      const { rows } = await watch.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [name]);
      most = Math.max(most, (rows[0] as { n: number }).n);
    };
    try {
      await Promise.all([
        ...Array.from({ length: 20 }, (_, i) =>
          service.write({
            kind: 'mcp',
            reference: `t/s${i}`,
            create: true,
            data: { mcpServers: { s: { url: 'http://127.0.0.1:1/mcp' } } },
          }),
        ),
        ...Array.from({ length: 10 }, (_, i) => runs.get(`run-${i}`)),
        ...Array.from({ length: 10 }, (_, i) => audit.query({ runId: `run-${i}` })),
        count(),
        count(),
      ]);
      await count();
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(3);
      await Promise.all([service.store.close?.(), runs.close(), audit.close()]);
      expect((await pool.query('SELECT 1 AS one', [])).rows).toEqual([{ one: 1 }]); // still the host's
      expect((await new PostgresStore({ pool, table: `${prefix}_resources` }).list('mcp')).length).toBe(20); // a new store on it
    } finally {
      await watch.end();
      await pool.end();
    }
  });

  it('A4: like SqliteStore, a PostgresStore creates its schema on first use; migrate() is optional', async () => {
    const table = `agt_test_${process.pid}_${n++}`;
    tables.push(table);
    const store = new PostgresStore({ connectionString: url as string, table });
    expect(await store.get('mcp', 'a/b')).toBeUndefined();
    await store.put({ kind: 'mcp', reference: 'a/b', data: { x: 1 } }, { expectedRevision: null });
    expect((await store.list('mcp')).map((r) => r.reference)).toEqual(['a/b']);
    await store.close();
  });

  it('A4: a pool that cannot hand out a client fails the migration with store_unavailable, and the next call retries', async () => {
    const real = await sharedPool(2);
    let refuse = true;
    const pool = {
      query: real.query.bind(real),
      connect: () => (refuse ? Promise.reject(Object.assign(new Error('no'), { code: 'ECONNREFUSED' })) : real.connect()),
    };
    const table = `agt_test_${process.pid}_${n++}`;
    tables.push(table);
    const store = new PostgresStore({ pool, table });
    const error = await store.get('mcp', 'a/b').catch((e: unknown) => e);
    expect(isAgtError(error) && error.code).toBe('store_unavailable');
    refuse = false;
    expect(await store.get('mcp', 'a/b')).toBeUndefined();
    await real.end();
  });

  it('A3: 4 processes × 25 concurrent adds through ResourceService land 100 mounts; stale expectedRevision writes are all rejected', async () => {
    const store = await fresh();
    const table = tables[tables.length - 1] as string;
    const service = new ResourceService({ store });
    await service.write({ kind: 'agent', reference: 'team/shared', create: true, data: {} });
    const outputs = await Promise.all(
      [0, 1, 2, 3].map((p) => runTs('test/resources/fixtures/add-mounts.ts', [url as string, String(p), '25', 'team/shared', table])),
    );
    expect(outputs.map((o) => JSON.parse(o).failed)).toEqual([[], [], [], []]);
    const record = await service.read({ kind: 'agent', reference: 'team/shared' });
    expect(new Set((record.data as { mcps: string[] }).mcps).size).toBe(100);
    expect(record.revision).toBe(101);
    const stale = await Promise.allSettled(
      [1, 50, 100].map((rev) => service.write({ kind: 'agent', reference: 'team/shared', expectedRevision: rev, data: { name: 'stale' } })),
    );
    expect(stale.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await store.close();
  }, 60_000);
});

describe('PostgresStore without a database', () => {
  afterEach(() => {
    vi.doUnmock('pg');
    vi.resetModules();
  });

  it('a database that is down gives store_unavailable, and nothing is written', async () => {
    const store = new PostgresStore({ connectionString: 'postgres://agt@127.0.0.1:1/none' });
    const error = await store.put({ kind: 'mcp', reference: 'a/b', data: {} }, { expectedRevision: null }).catch((e: unknown) => e);
    expect(isAgtError(error) && error.code).toBe('store_unavailable');
    expect((error as Error).message).toMatch(/nothing was written/);
    await store.close();
  });

  it('a missing pg gives store_unavailable with the install hint', async () => {
    vi.doMock('pg', () => {
      throw new Error("Cannot find module 'pg'");
    });
    vi.resetModules();
    const { PostgresStore: Fresh } = await import('../../src/storage/postgres.js');
    const error = await new Fresh({ connectionString: 'postgres://x@127.0.0.1:1/y' }).get('mcp', 'a/b').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/npm install pg@8/);
  });

  it('bad options are invalid_input', () => {
    expect(() => new PostgresStore({ connectionString: 'postgres://x@h/db', table: 'Robert"; DROP' })).toThrow(/table must be/);
    expect(() => new PostgresStore({} as never)).toThrow(/connectionString/);
  });
});
