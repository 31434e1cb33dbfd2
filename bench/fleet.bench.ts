/**
 * A fleet's waiting query (issue 51): 10,000 stored runs, 50 of them waiting
 * (calls pending, or in flight), in a SQLite file and — with AGT_TEST_PG_URL —
 * on PostgreSQL. `list({ waiting: true })` is answered by a partial index;
 * the baseline, measured in the same run on the same rows, is what a host did
 * before: `list()` and a filter of its own.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RunStore, SuspendedRun } from '../src/index.js';
import { PostgresRunStore } from '../src/storage/postgres.js';
import { SqliteRunStore } from '../src/storage/sqlite.js';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 10_000;
const WAITING = 50;

const state = (runId: string, waiting: boolean): SuspendedRun => ({
  version: waiting ? 2 : 1,
  runId,
  agent: 'team/fleet',
  fingerprint: 'f'.repeat(64),
  settingsHash: 's'.repeat(64),
  mountsHash: 'm'.repeat(64),
  seenBatchIds: ['b1', 'b2', 'b3'],
  ...(waiting ? { pending: [] } : {}),
});

async function fill(store: RunStore): Promise<void> {
  const every = RUNS / WAITING;
  const ids = Array.from({ length: RUNS }, (_, i) => `run-${String(i).padStart(5, '0')}`);
  for (let i = 0; i < ids.length; i += 16) {
    await Promise.all(
      ids.slice(i, i + 16).map((id, j) => {
        const n = i + j;
        return store.put({ runId: id, agent: 'team/fleet', state: state(id, n % every === every / 2) }, { expectedRevision: null });
      }),
    );
  }
}

async function medianMs(rounds: number, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

async function figures(store: RunStore): Promise<{ query: number; scan: number }> {
  await fill(store);
  const found = await store.list({ waiting: true });
  if (found.length !== WAITING) throw new Error(`the waiting query found ${found.length} runs, not ${WAITING}`);
  const query = await medianMs(30, () => store.list({ waiting: true }));
  const scan = await medianMs(5, async () => (await store.list()).filter((r) => r.state.version >= 2));
  return { query, scan };
}

// Milliseconds from a write's start in this process to its announcement's arrival in another (median, worst of 30).
async function announcementMs(url: string, table: string): Promise<{ median: number; worst: number }> {
  const store = new PostgresRunStore({ connectionString: url, table });
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/fleet-watcher.ts'), url, table], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const arrived = new Map<number, number>();
  const waiters = new Map<number, () => void>();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  lines.on('line', (line) => {
    if (line === 'ready') return ready();
    const { revision, at } = JSON.parse(line) as { revision: number; at: number };
    arrived.set(revision, at);
    waiters.get(revision)?.();
  });
  try {
    await isReady;
    const runId = 'run-announced';
    const sent = new Map<number, number>();
    let revision: number | null = null;
    for (let i = 0; i < 31; i++) {
      const next = (revision ?? 0) + 1;
      const got = new Promise<void>((resolve) => waiters.set(next, resolve));
      const announce = [{ change: 'waiting' as const, batchId: 'b', callId: `c${i}` }];
      revision = (await store.put({ runId, agent: 'team/fleet', state: state(runId, true), announce }, { expectedRevision: revision }))
        .revision;
      sent.set(revision, Date.now());
      await got;
    }
    const delays = [...sent].slice(1).map(([rev, at]) => Math.max(0, arrived.get(rev)! - at)); // the first warms the path
    return { median: median(delays), worst: Math.max(...delays) };
  } finally {
    child.stdin!.end();
    await once(child, 'exit');
    await store.close();
  }
}

/** The waiting query against a full scan, on SQLite and (when AGT_TEST_PG_URL is set) PostgreSQL. */
export async function runFleetBench(): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-fleet-bench-'));
  const rows: string[] = [];
  const targets: BenchReport['targets'] = [];
  const record = (name: string, f: { query: number; scan: number }) => {
    rows.push(`| ${name} | ${f.query.toFixed(2)} ms | ${f.scan.toFixed(1)} ms | ${(f.scan / f.query).toFixed(0)}× |`);
    targets.push({
      name: `${name}: list({ waiting: true }) on ${RUNS.toLocaleString('en')} runs (${WAITING} waiting) < 20 ms`,
      ok: f.query < 20,
      detail: `${f.query.toFixed(2)} ms (median of 30); the scan it replaces: ${f.scan.toFixed(1)} ms`,
    });
  };
  try {
    const sqlite = new SqliteRunStore({ path: path.join(dir, 'runs.db') });
    try {
      record('SQLite', await figures(sqlite));
    } finally {
      await sqlite.close();
    }
    const url = process.env.AGT_TEST_PG_URL;
    if (url !== undefined) {
      const table = `agt_fleet_bench_${process.pid}`;
      const pg = new PostgresRunStore({ connectionString: url, table });
      try {
        record('PostgreSQL', await figures(pg));
        const delay = await announcementMs(url, table);
        rows.push(
          '',
          `Announcement (NOTIFY with the write), from the write's start to its arrival in a watcher of another process: median ${delay.median.toFixed(2)} ms, worst ${delay.worst.toFixed(2)} ms of 30.`,
        );
        targets.push({
          name: 'PostgreSQL: an announcement arrives in another process < 100 ms',
          ok: delay.median < 100,
          detail: `median ${delay.median.toFixed(2)} ms, worst ${delay.worst.toFixed(2)} ms (of 30 writes, from each write's start)`,
        });
      } finally {
        for (const run of await pg.list()) await pg.delete(run.runId);
        await pg.close();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    title: 'Fleet: the waiting query (issue 51)',
    markdown: [
      `${RUNS.toLocaleString('en')} stored runs, ${WAITING} waiting; medians. Baseline: \`list()\` and a filter, as hosts did before.`,
      process.env.AGT_TEST_PG_URL ? '' : '(PostgreSQL not measured: AGT_TEST_PG_URL not set)',
      '',
      '| store | `list({ waiting: true })` | `list()` + filter | ratio |',
      '| --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
    targets,
  };
}
