/**
 * A run suspended on one host resumes on another that shares PostgreSQL: two
 * processes, one registry, one run store (F6, B1); and a call deferred on
 * one host is approved on the other, exactly once (G4).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NativeRun, policies, ResourceService } from '../../../src/index.js';
import { PostgresRunStore, PostgresStore } from '../../../src/storage/postgres.js';
import { batch, py, pythonConfig, runTs, tempDir } from '../../support/index.js';

const url = process.env.AGT_TEST_PG_URL;
const why = url ? '' : ' (skipped: AGT_TEST_PG_URL is not set; .ci/run starts a throwaway PostgreSQL)';
const suffix = `${process.pid}_${Date.now() % 100000}`;
const tables = { resources: `agt_res_hosts_${suffix}`, runs: `agt_runs_hosts_${suffix}` };
const tmp = tempDir('agt-hosts-');

afterAll(async () => {
  tmp.cleanup();
  if (!url) return;
  const driver = 'pg';
  const pg = (
    (await import(driver)) as { default: { Pool: new (o: object) => { query(q: string): Promise<unknown>; end(): Promise<void> } } }
  ).default;
  const pool = new pg.Pool({ connectionString: url });
  for (const t of Object.values(tables)) for (const name of [t, `${t}_ap`]) await pool.query(`DROP TABLE IF EXISTS ${name}`);
  await pool.end();
});

describe.skipIf(!url)(`runs across hosts on PostgreSQL${why}`, () => {
  it("F6: host A suspends; host B (another process) resumes by id, runs a batch and suspends; A's stale copy cannot overwrite it", async () => {
    const registry = new PostgresStore({ connectionString: url as string, table: tables.resources });
    const store = new PostgresRunStore({ connectionString: url as string, table: tables.runs });
    await Promise.all([registry.migrate(), store.migrate()]);
    const service = new ResourceService({ store: registry });
    await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig() } } });
    await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    const run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*') });
    await run.executeBatch({
      ...batch(run, [{ callId: 'a1', name: py('echo'), arguments: { message: 'on host a' } }]),
      batchId: 'on-host-a',
    });
    await run.suspend({ store });

    const other = JSON.parse(
      await runTs('test/runtime/fixtures/resume-elsewhere.ts', [url as string, tables.resources, tables.runs, run.id]),
    );
    expect(other.pid).not.toBe(process.pid);
    expect(other.statuses).toEqual(['ok']);
    expect(other.seen).toEqual(['on-host-a', 'on-host-b']);
    expect(other.fingerprint).toBe(run.snapshot.fingerprint);
    // Revisions: A's suspend (1), B's claim of its batch (2), B's suspend (3).
    expect(await store.get(run.id)).toMatchObject({ revision: 3, state: { seenBatchIds: ['on-host-a', 'on-host-b'] } });
    await expect(run.suspend({ store })).rejects.toMatchObject({ code: 'revision_conflict' });
    await run.close();
    await Promise.all([registry.close(), store.close()]);
  }, 60_000);

  it('G4: host A defers a call and suspends; host B (another process) approves it; A deciding it after gets the result B recorded, the call ran once', async () => {
    const registry = new PostgresStore({ connectionString: url as string, table: `${tables.resources}_ap` });
    const store = new PostgresRunStore({ connectionString: url as string, table: `${tables.runs}_ap` });
    await Promise.all([registry.migrate(), store.migrate()]);
    const log = path.join(tmp.dir, 'calls.log');
    const service = new ResourceService({ store: registry });
    await service.write({
      kind: 'mcp',
      reference: 'tools/py',
      create: true,
      data: { mcpServers: { py: pythonConfig({ extra: ['--log', log] }) } },
    });
    await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    const policy = policies.chain(policies.approval(py('withdraw')), policies.autoAllow('*'));
    const run = await NativeRun.start({ agent: 'team/alice', service, policy });
    const out = await run.executeBatch({
      ...batch(run, [{ callId: 'w1', name: py('withdraw'), arguments: { amount: 6 } }]),
      batchId: 'on-a',
    });
    expect(out.pending?.map((p) => p.callId)).toEqual(['w1']);
    await run.suspend({ store });

    const other = JSON.parse(
      await runTs('test/runtime/fixtures/decide-elsewhere.ts', [
        url as string,
        `${tables.resources}_ap`,
        `${tables.runs}_ap`,
        run.id,
        'on-a',
        'w1',
      ]),
    );
    expect(other.pid).not.toBe(process.pid);
    expect(other.pending).toEqual([{ callId: 'w1', arguments: { amount: 6 } }]);
    expect(other.results).toEqual([['w1', 'ok']]);
    // The run record keeps B's result (decidedRetentionMs): A runs nothing and reads what happened.
    const seen = await run.decide('on-a', { w1: { approve: true } });
    expect(seen.decidedElsewhere).toBe(true);
    expect(seen.results.map((r) => [r.callId, r.status])).toEqual([['w1', 'ok']]);
    const calls = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).tool);
    expect(calls).toEqual(['withdraw']); // once, on host B
    expect((await store.get(run.id))?.state.pending).toBeUndefined();
    await run.close();
    await Promise.all([registry.close(), store.close()]);
  }, 60_000);
});
