/**
 * PostgresStore against a real PostgreSQL server. `.ci/run` starts a throwaway
 * cluster on a loopback port and sets AGT_TEST_PG_URL; without it these tests
 * are skipped, and say so in their names.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { isAgtError, ResourceService } from '../../src/index.js';
import { PostgresStore } from '../../src/storage/postgres.js';
import { storeConformanceSuite } from '../../src/testing/index.js';
import { runTs } from '../service/helpers.js';

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

afterAll(async () => {
  if (!url || tables.length === 0) return;
  const driver = 'pg'; // untyped on purpose, as in the store
  const pg = ((await import(driver)) as { default: { Pool: new (o: object) => { query(q: string): Promise<unknown>; end(): Promise<void> } } }).default;
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

  it('A3: 4 processes × 25 concurrent adds through ResourceService land 100 mounts; stale expected_revision writes are all rejected', async () => {
    const store = await fresh();
    const table = tables[tables.length - 1] as string;
    const service = new ResourceService({ store });
    await service.write({ kind: 'agent', reference: 'team/shared', create: true, data: {} });
    const outputs = await Promise.all([0, 1, 2, 3].map((p) => runTs('test/service/fixtures/add-mounts.ts', [url as string, String(p), '25', 'team/shared', table])));
    expect(outputs.map((o) => JSON.parse(o).failed)).toEqual([[], [], [], []]);
    const record = await service.read({ kind: 'agent', reference: 'team/shared' });
    expect(new Set((record.data as { mcps: string[] }).mcps).size).toBe(100);
    expect(record.revision).toBe(101);
    const stale = await Promise.allSettled([1, 50, 100].map((rev) => service.write({ kind: 'agent', reference: 'team/shared', expected_revision: rev, data: { name: 'stale' } })));
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
