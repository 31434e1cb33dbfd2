/**
 * Announcements of a run store: every write that changes a
 * call says so to watchers — a call waits, was decided, ended, or was
 * interrupted — so a host stops polling. MemoryRunStore announces in this
 * process; PostgresRunStore to every process sharing the database
 * (LISTEN/NOTIFY, sent with the write only if its compare-and-set landed);
 * SqliteRunStore does not announce (no `watch`: poll `list({ waiting })`).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MemoryRunStore, NativeRun, policies, type RunStore } from '../../../src/index.js';
import type { RunAnnouncement } from '../../../src/adapters.js';
import { PostgresRunStore, PostgresStore } from '../../../src/storage/postgres.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { batch, py, REPO_ROOT, runFixture } from '../../support/index.js';

const fx = runFixture();
const PG = process.env.AGT_TEST_PG_URL;
const deferWithdraw = () => policies.chain(policies.approval(py('withdraw')), policies.autoAllow('*'));
const changes = (seen: RunAnnouncement[]) => seen.flatMap((a) => a.changes.map((c) => `${c.change} ${c.callId}`));

describe('a run store announces what happens to calls', () => {
  it('E8: MemoryRunStore: waiting on suspend, decided then ended on decide, each with the revision the write made', async () => {
    const store = new MemoryRunStore();
    const seen: RunAnnouncement[] = [];
    const watch = await store.watch((a) => seen.push(a));
    const run = await fx.start({ policy: deferWithdraw() });
    await run.executeBatch({
      ...batch(run, [
        { callId: 'w1', name: py('withdraw'), arguments: { amount: 1 } },
        { callId: 'w2', name: py('withdraw'), arguments: { amount: 2 } },
      ]),
      batchId: 'b1',
    });
    await run.suspend({ store });
    await vi.waitFor(() => expect(changes(seen)).toEqual(['waiting w1', 'waiting w2']));
    expect(seen[0]).toMatchObject({ runId: run.id, agent: 'team/alice', revision: 1 });
    await run.decide('b1', { w1: { approve: true }, w2: { approve: false } });
    await vi.waitFor(() => expect(changes(seen)).toEqual(['waiting w1', 'waiting w2', 'decided w1', 'decided w2', 'ended w1']));
    expect(seen.map((a) => a.revision)).toEqual([1, 2, 3]);
    await run.suspend({ store }); // nothing changed: nothing announced
    await watch.stop(); // API.md's name; close() is the same
    await run.decide('b1', {}).catch(() => undefined);
    expect(seen).toHaveLength(3);
  });

  it('E8: a SQLite run store does not announce (no watch): hosts poll list({ waiting: true })', () => {
    const store: RunStore = new SqliteRunStore({ path: ':memory:' });
    expect(store.watch).toBeUndefined();
  });
});

describe.skipIf(PG === undefined)('PostgreSQL announcements reach other processes (needs the server .ci/run starts)', () => {
  const tables = { resources: `agt_ann_res_${process.pid}`, runs: `agt_ann_runs_${process.pid}` };
  afterAll(async () => {
    if (PG === undefined) return;
    const { default: pg } = (await import('pg' as string)) as {
      default: { Pool: new (o: object) => { query(q: string): Promise<unknown>; end(): Promise<void> } };
    };
    const pool = new pg.Pool({ connectionString: PG });
    await pool.query(`DROP TABLE IF EXISTS ${tables.resources}, ${tables.runs}`);
    await pool.end();
  });

  it('E8: a host process decides a call; this process is told decided then ended; a conflicting write announces nothing', async () => {
    const registry = new PostgresStore({ connectionString: PG!, table: tables.resources });
    const store = new PostgresRunStore({ connectionString: PG!, table: tables.runs });
    const seen: RunAnnouncement[] = [];
    try {
      await fx.start({ policy: deferWithdraw() });
      // The registry on PostgreSQL, as the other host reads it.
      const document = (await fx.env.service.read({ kind: 'mcp', reference: 'tools/py' })).data;
      const { ResourceService } = await import('../../../src/index.js');
      const service = new ResourceService({ store: registry });
      await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: document as never });
      await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
      const run = await NativeRun.start({ agent: 'team/alice', service, policy: deferWithdraw() });
      try {
        await run.executeBatch({ ...batch(run, [{ callId: 'w1', name: py('withdraw'), arguments: { amount: 3 } }]), batchId: 'b1' });
        const watch = await store.watch((a) => seen.push(a));
        await run.suspend({ store });
        await vi.waitFor(() => expect(changes(seen)).toEqual(['waiting w1']), { timeout: 20_000 });
        // A stale write (the revision moved on) lands nothing and announces nothing.
        await expect(
          store.put(
            {
              runId: run.id,
              agent: run.agent,
              state: (await store.get(run.id))!.state,
              announce: [{ change: 'ended', batchId: 'b1', callId: 'zz' }],
            },
            { expectedRevision: 7 },
          ),
        ).rejects.toMatchObject({ code: 'revision_conflict' });
        const decided = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            path.join(REPO_ROOT, 'test/runtime/fixtures/decide-elsewhere.ts'),
            PG!,
            tables.resources,
            tables.runs,
            run.id,
            'b1',
            'w1',
          ],
          { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
        );
        const code = await new Promise<number | null>((resolve) => decided.on('exit', (c) => resolve(c)));
        expect(code).toBe(0);
        await vi.waitFor(() => expect(changes(seen)).toEqual(['waiting w1', 'decided w1', 'ended w1']), { timeout: 20_000 });
        expect(seen.map((a) => a.revision)).toEqual([1, 2, 3]);
        await watch.close();
      } finally {
        await run.close();
      }
    } finally {
      await Promise.all([store.close(), registry.close()]);
    }
  }, 120_000);
});
