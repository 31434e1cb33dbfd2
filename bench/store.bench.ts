/**
 * ResourceStore throughput: SQLite compare-and-set writes and reads (MemoryStore
 * beside it for scale), and contended `add` through ResourceService from 4
 * processes on one SQLite file, with zero lost updates asserted.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, ResourceService } from '../src/index.js';
import { type ResourceStore } from '../src/adapters.js';
import { PostgresStore } from '../src/storage/postgres.js';
import { SqliteStore } from '../src/storage/sqlite.js';
import { sqliteDriver, type SqliteDriverName } from '../src/storage/sqlite-driver.js';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function opsPerSecond(n: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const start = performance.now();
    for (let i = 0; i < n; i++) await op(r * n + i);
    rounds.push((n / (performance.now() - start)) * 1000);
  }
  return median(rounds);
}

async function storeFigures(store: ResourceStore): Promise<{ cas: number; read: number }> {
  await store.put({ kind: 'agent', reference: 'bench/cas', data: { n: 0 } }, { expectedRevision: null });
  let revision = 1;
  const cas = await opsPerSecond(500, async (i) => {
    revision = (
      await store.put({ kind: 'agent', reference: 'bench/cas', data: { n: i, mcps: ['a/b', 'c/d'] } }, { expectedRevision: revision })
    ).revision;
  });
  const read = await opsPerSecond(2000, () => store.get('agent', 'bench/cas'));
  return { cas, read };
}

function child(file: string, proc: number, count: number, table?: string): Promise<{ added: number; failed: string[]; ms: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(root, 'test/resources/fixtures/add-mounts.ts'),
        file,
        String(proc),
        String(count),
        'bench/shared',
        ...(table ? [table] : []),
      ],
      { cwd: root },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout.trim()))),
    );
  });
}

async function postgresFigures(url: string, perProcess: number) {
  const table = `agt_bench_${process.pid}`;
  const store = new PostgresStore({ connectionString: url, table });
  await store.migrate();
  try {
    const { cas, read } = await storeFigures(store);
    await new ResourceService({ store }).write({ kind: 'agent', reference: 'bench/shared', create: true, data: {} });
    const reports = await Promise.all([0, 1, 2, 3].map((p) => child(url, p, perProcess, table)));
    const final = await store.get('agent', 'bench/shared');
    return {
      cas,
      read,
      contended: (4 * perProcess) / (Math.max(...reports.map((r) => r.ms)) / 1000),
      landed: new Set((final?.data as { mcps: string[] }).mcps).size,
      failed: reports.flatMap((r) => r.failed).length,
    };
  } finally {
    const driver = 'pg'; // untyped on purpose, as in the store
    const pg = (
      (await import(driver)) as { default: { Pool: new (o: object) => { query(q: string): Promise<unknown>; end(): Promise<void> } } }
    ).default;
    const pool = new pg.Pool({ connectionString: url });
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
    await store.close();
  }
}

// SqliteStore per driver on one file (issue 40): each driver in turn per round, so a drift of the machine hits all alike.
async function perDriver(dir: string): Promise<{ driver: SqliteDriverName; cas: number; read: number }[]> {
  const drivers: SqliteDriverName[] = [];
  for (const name of ['better-sqlite3', 'node:sqlite'] as const)
    if (
      await sqliteDriver(name).then(
        () => true,
        () => false,
      )
    )
      drivers.push(name);
  const file = path.join(dir, 'drivers.db');
  const samples = new Map(drivers.map((d) => [d, { cas: [] as number[], read: [] as number[] }]));
  let revision: number | null = null;
  for (let round = 0; round < 7; round++) {
    for (const driver of drivers) {
      const store = new SqliteStore({ path: file, driver });
      const rate = async (n: number, op: (i: number) => Promise<unknown>) => {
        const start = performance.now();
        for (let i = 0; i < n; i++) await op(i);
        return (n / (performance.now() - start)) * 1000;
      };
      const cas = await rate(300, async (i) => {
        revision = (
          await store.put(
            { kind: 'agent', reference: 'bench/drivers', data: { n: i, mcps: ['a/b', 'c/d'] } },
            { expectedRevision: revision },
          )
        ).revision;
      });
      const read = await rate(2000, () => store.get('agent', 'bench/drivers'));
      if (round > 0) samples.get(driver)?.cas.push(cas); // round 0 warms up (JIT, the first statements)
      if (round > 0) samples.get(driver)?.read.push(read);
      await store.close();
    }
  }
  return drivers.map((driver) => ({ driver, cas: median(samples.get(driver)?.cas ?? []), read: median(samples.get(driver)?.read ?? []) }));
}

/** Runs the store benchmarks. */
export async function runStoreBench(): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-store-'));
  try {
    const sqlite = new SqliteStore({ path: path.join(dir, 'bench.db') });
    const sq = await storeFigures(sqlite);
    const mem = await storeFigures(new MemoryStore());

    // Uncontended baseline: one process, sequential adds through the service.
    const svc = new ResourceService({ store: sqlite });
    await svc.write({ kind: 'agent', reference: 'bench/solo', create: true, data: {} });
    const solo = await opsPerSecond(100, (i) => svc.write({ kind: 'agent', reference: 'bench/solo', add: { mcps: [`m/s${i}`] } }));
    await sqlite.close();

    // Contended: 4 processes × 100 concurrent adds on one agent in one file.
    const file = path.join(dir, 'contended.db');
    const setup = new SqliteStore({ path: file });
    await new ResourceService({ store: setup }).write({ kind: 'agent', reference: 'bench/shared', create: true, data: {} });
    await setup.close();
    const perProcess = 100;
    const start = performance.now();
    const reports = await Promise.all([0, 1, 2, 3].map((p) => child(file, p, perProcess)));
    const wallMs = performance.now() - start;
    const check = new SqliteStore({ path: file });
    const final = await check.get('agent', 'bench/shared');
    await check.close();
    const landed = new Set((final?.data as { mcps: string[] }).mcps).size;
    const failed = reports.flatMap((r) => r.failed).length;
    const busiestMs = Math.max(...reports.map((r) => r.ms));
    const contended = (4 * perProcess) / (busiestMs / 1000);

    const pg = process.env.AGT_TEST_PG_URL ? await postgresFigures(process.env.AGT_TEST_PG_URL, perProcess) : undefined;
    const drivers = await perDriver(dir);
    const better = drivers.find((d) => d.driver === 'better-sqlite3');
    const node = drivers.find((d) => d.driver === 'node:sqlite');
    const markdown = [
      '| store | CAS writes/s | reads/s |',
      '| --- | --- | --- |',
      `| SqliteStore (file, WAL) | ${sq.cas.toFixed(0)} | ${sq.read.toFixed(0)} |`,
      ...(pg ? [`| PostgresStore (loopback, pool of 10) | ${pg.cas.toFixed(0)} | ${pg.read.toFixed(0)} |`] : []),
      `| MemoryStore | ${mem.cas.toFixed(0)} | ${mem.read.toFixed(0)} |`,
      '',
      '| ResourceService `add` on one agent | adds/s |',
      '| --- | --- |',
      `| SQLite, 1 process, sequential | ${solo.toFixed(0)} |`,
      `| SQLite, 4 processes × ${perProcess} concurrent (busiest process's time) | ${contended.toFixed(0)} |`,
      ...(pg ? [`| PostgreSQL, 4 processes × ${perProcess} concurrent (busiest process's time) | ${pg.contended.toFixed(0)} |`] : []),
      '',
      `Contended runs: SQLite ${landed} of ${4 * perProcess} mounts landed, ${failed} writes failed, final revision ${final?.revision}, wall time with process start-up ${wallMs.toFixed(0)} ms` +
        (pg
          ? `; PostgreSQL ${pg.landed} of ${4 * perProcess} landed, ${pg.failed} failed`
          : ' (PostgreSQL not measured: AGT_TEST_PG_URL not set)') +
        '.',
      '',
      `| SqliteStore on one file, per driver (Node ${process.version}; median of 6 rounds, drivers alternating) | CAS writes/s | reads/s |`,
      '| --- | --- | --- |',
      ...drivers.map((d) => `| ${d.driver} | ${d.cas.toFixed(0)} | ${d.read.toFixed(0)} |`),
      ...(better && node
        ? [
            '',
            `node:sqlite / better-sqlite3: writes ${(node.cas / better.cas).toFixed(2)}×, reads ${(node.read / better.read).toFixed(2)}×.`,
          ]
        : [
            '',
            `(only ${drivers.map((d) => d.driver).join(', ')} loads on Node ${process.version}: run \`bash .ci/runtime.sh 24 npm run bench -- store\` for both)`,
          ]),
    ].join('\n');
    return {
      title: 'ResourceStore and ResourceService',
      markdown,
      targets: [
        {
          name: 'zero lost updates under 4-process contention (SQLite)',
          ok: landed === 4 * perProcess && failed === 0,
          detail: `${landed}/${4 * perProcess} landed`,
        },
        ...(pg
          ? [
              {
                name: 'zero lost updates under 4-process contention (PostgreSQL)',
                ok: pg.landed === 4 * perProcess && pg.failed === 0,
                detail: `${pg.landed}/${4 * perProcess} landed`,
              },
            ]
          : []),
      ],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
