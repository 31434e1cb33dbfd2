/**
 * Stored records (found by a hostile trial): tampered or corrupt stored rows
 * and two hosts resuming one run. Real SQLite files, real
 * Python servers, the real bin.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NativeRun, policies, ResourceService, StoreAuditSink, toolAlias } from '../../src/index.js';
import type { AuditEvent } from '../../src/index.js';
import { SqliteAuditStore, SqliteRunStore, SqliteStore } from '../../src/storage/sqlite.js';
import { failure, pythonConfig, runAgt, setup, tempDir } from '../support/index.js';
import { rawSqlite } from '../support/sqlite.js';

const tmp = tempDir('agt-stores-');
afterAll(() => tmp.cleanup());
let n = 0;
const file = () => path.join(tmp.dir, `s-${n++}.db`);
const sql = (db: string, statement: string, ...params: unknown[]) => {
  const raw = rawSqlite(db);
  try {
    raw.prepare(statement).run(...params);
  } finally {
    raw.close();
  }
};

describe('corrupt rows are reported, never a raw SyntaxError', () => {
  it('R2: a corrupt resource row: get is store_unavailable corrupt_record; list returns the rest and marks it; agt mcp list shows both', async () => {
    const db = file();
    const store = new SqliteStore({ path: db });
    const service = new ResourceService({ store });
    for (const name of ['good', 'bad'])
      await service.write({ kind: 'mcp', reference: `tools/${name}`, create: true, data: { mcpServers: { [name]: pythonConfig() } } });
    sql(db, "UPDATE agt_resources SET data = '{\"mcpServers\": {' WHERE reference = 'tools/bad'");
    expect(await failure(store.get('mcp', 'tools/bad'))).toMatchObject({
      code: 'store_unavailable',
      details: { reason: 'corrupt_record' },
    });
    const listed = await store.list('mcp');
    expect(listed.map((r) => [r.reference, r.problem?.code ?? 'ok'])).toEqual([
      ['tools/bad', 'corrupt_record'],
      ['tools/good', 'ok'],
    ]);
    await store.close();
    const cli = await runAgt(['mcp', 'list'], { home: tmp.dir, db });
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/tools\/bad .*not valid JSON/);
    expect(cli.stdout).toMatch(/tools\/good  stdio  python3 .*  \(revision 1\)/);
  });

  it('A6: a hand-edited agent row (skills: 5, enabled: "no") is store_unavailable corrupt_record naming the field, never enabled by default; a write repairs it', async () => {
    const db = file();
    const service = new ResourceService({ store: new SqliteStore({ path: db }) });
    await service.write({ kind: 'agent', reference: 'team/bob', create: true, data: { enabled: false } });
    sql(db, `UPDATE agt_resources SET data = '{"skills": 5, "enabled": false}' WHERE reference = 'team/bob'`);
    expect(await failure(service.describeAgent('team/bob'))).toMatchObject({
      code: 'store_unavailable',
      details: { reason: 'corrupt_record', field: 'skills' },
    });
    const shown = await runAgt(['agent', 'show', 'team/bob'], { home: tmp.dir, db });
    expect(shown.code).toBe(5);
    expect(shown.stderr).toMatch(/store_unavailable: the stored agent's "skills" is not what an agent holds/);
    // An enabled that is not a boolean must not read as the default (enabled).
    sql(db, `UPDATE agt_resources SET data = '{"enabled": "no"}' WHERE reference = 'team/bob'`);
    expect(await failure(NativeRun.start({ service, agent: 'team/bob', policy: policies.autoAllow('*') }))).toMatchObject({
      code: 'store_unavailable',
      details: { field: 'enabled' },
    });
    await service.write({ kind: 'agent', reference: 'team/bob', create: false, data: { enabled: false } });
    expect((await service.describeAgent('team/bob')).enabled).toBe(false);
  });

  it('B2: corrupt run and audit rows are store_unavailable corrupt_record from get, list, resume and query', async () => {
    const db = file();
    const runs = new SqliteRunStore({ path: db });
    const audit = new SqliteAuditStore({ path: db });
    const state = {
      version: 1 as const,
      runId: 'r1',
      agent: 'team/a',
      fingerprint: 'f',
      settingsHash: 's',
      mountsHash: 'm',
      seenBatchIds: [],
    };
    await runs.put({ runId: 'r1', agent: 'team/a', state }, { expectedRevision: null });
    await audit.append({
      type: 'batch_started',
      at: new Date().toISOString(),
      runId: 'r1',
      agent: 'team/a',
      batchId: 'b',
      calls: 1,
    } as AuditEvent);
    sql(db, "UPDATE agt_runs SET state = 'not json'");
    sql(db, "UPDATE agt_audit SET event = '{'");
    for (const attempt of [runs.get('r1'), runs.list(), audit.query({ runId: 'r1' })])
      expect(await failure(attempt)).toMatchObject({ code: 'store_unavailable', details: { reason: 'corrupt_record' } });
    const env = await setup();
    expect(await failure(NativeRun.resume('r1', { store: runs, service: env.service, policy: policies.autoAllow('*') }))).toMatchObject({
      code: 'store_unavailable',
    });
    await runs.close();
    await audit.close();
    env.tmp.cleanup();
  });

  it('B2: a cyclic or over-deep audit event is invalid_input and nothing is stored', async () => {
    const audit = new SqliteAuditStore({ path: file() });
    const cyclic: Record<string, unknown> = { type: 'batch_started', at: 'x', runId: 'r1' };
    cyclic.self = cyclic;
    expect(await failure(audit.append(cyclic as unknown as AuditEvent))).toMatchObject({
      code: 'invalid_input',
      details: { reason: 'cyclic' },
    });
    expect(await audit.query({ runId: 'r1' })).toEqual([]);
    await audit.close();
  });
});

describe('tampered run records never resume as something else', () => {
  async function suspendedRuns() {
    const env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    await env.service.write({ kind: 'agent', reference: 'team/boss', create: true, data: { mcps: ['tools/py'], role: 'manager' } });
    const db = file();
    const store = new SqliteRunStore({ path: db });
    const options = { service: env.service, policy: policies.autoAllow('*'), store };
    const own = { agent: 'team/alice', service: env.service, policy: options.policy }; // start takes no store: suspend and resume do
    const a = await NativeRun.start(own);
    const b = await NativeRun.start(own);
    await a.suspend({ store });
    await b.suspend({ store });
    await a.close();
    await b.close();
    return { env, db, store, options, a: a.id, b: b.id };
  }

  it("B2: a row holding another run's state, a swapped agent, and seenBatchIds null are store_unavailable tampered_record", async () => {
    const { env, db, store, options, a, b } = await suspendedRuns();
    sql(db, 'UPDATE agt_runs SET state = (SELECT state FROM agt_runs WHERE run_id = ?) WHERE run_id = ?', b, a);
    expect(await failure(NativeRun.resume(a, options))).toMatchObject({
      code: 'store_unavailable',
      details: { reason: 'tampered_record' },
    });
    sql(db, "UPDATE agt_runs SET state = json_set(state, '$.agent', 'team/boss') WHERE run_id = ?", b);
    expect(await failure(NativeRun.resume(b, options))).toMatchObject({
      code: 'store_unavailable',
      details: { reason: 'tampered_record' },
    });
    sql(db, "UPDATE agt_runs SET state = json_set(state, '$.agent', 'team/alice', '$.seenBatchIds', json('null')) WHERE run_id = ?", b);
    expect(await failure(NativeRun.resume(b, options))).toMatchObject({
      code: 'store_unavailable',
      details: { reason: 'tampered_record' },
    });
    await store.close();
    env.tmp.cleanup();
  });

  it('B2/F7: a record swapped to the manager agent, or an agent promoted between suspend and resume, is fingerprint_mismatch', async () => {
    const { env, db, store, options, a, b } = await suspendedRuns();
    sql(db, "UPDATE agt_runs SET agent = 'team/boss', state = json_set(state, '$.agent', 'team/boss') WHERE run_id = ?", a);
    expect(await failure(NativeRun.resume(a, options))).toMatchObject({ code: 'fingerprint_mismatch', details: { part: 'settings' } });
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: false, data: { capabilities: ['resource_management'] } });
    expect(await failure(NativeRun.resume(b, options))).toMatchObject({ code: 'fingerprint_mismatch', details: { part: 'settings' } });
    await store.close();
    env.tmp.cleanup();
  });
});

describe('a batch is claimed before it runs', () => {
  it('B3: two hosts that resumed one run both send step-1: the server sees it once; the other gets revision_conflict with nothing executed', async () => {
    const env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    const db = file();
    const first = new SqliteRunStore({ path: db });
    const second = new SqliteRunStore({ path: db }); // a second host: its own handle on the shared file
    const options = { service: env.service, policy: policies.autoAllow('*') };
    const run = await NativeRun.start({ agent: 'team/alice', ...options });
    await run.suspend({ store: first });
    await run.close();
    const hostA = await NativeRun.resume(run.id, { ...options, store: first });
    const hostB = await NativeRun.resume(run.id, { ...options, store: second });
    const step = (host: NativeRun) =>
      host.executeBatch({
        runId: host.id,
        agent: host.agent,
        batchId: 'step-1',
        calls: [{ callId: 'c1', name: toolAlias('tools/py', 'echo'), arguments: { message: 'step-1' } }],
      });
    const outcomes = await Promise.allSettled([step(hostA), step(hostB)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: 'revision_conflict' });
    expect(env.calls().filter((c) => c.tool === 'echo')).toHaveLength(1);
    // The winner's claim is stored: the batch id is seen by the next resume.
    const stored = await first.get(run.id);
    expect(stored?.state.seenBatchIds).toContain('step-1');
    await hostA.close();
    await hostB.close();
    await first.close();
    await second.close();
    env.tmp.cleanup();
  });

  it('B3: a run with an audit sink on the same file keeps working across claims (each batch one stored revision)', async () => {
    const env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    const db = file();
    const store = new SqliteRunStore({ path: db });
    const run = await NativeRun.start({
      agent: 'team/alice',
      service: env.service,
      policy: policies.autoAllow('*'),
      audit: new StoreAuditSink(new SqliteAuditStore({ path: db })),
    });
    await run.suspend({ store });
    for (const id of ['b1', 'b2', 'b3'])
      await run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: id,
        calls: [{ callId: 'c', name: toolAlias('tools/py', 'echo'), arguments: { message: id } }],
      });
    expect((await store.get(run.id))?.revision).toBe(4);
    await run.close();
    await store.close();
    env.tmp.cleanup();
  });
});
