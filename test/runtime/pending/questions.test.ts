/**
 * Server questions that wait (E4): a run with `elicitation: 'defer'` leaves a
 * call whose 2026-07-28 server asks a question pending like an approval
 * (`waitingFor: 'input'`); the host answers it with run.decide — in the same
 * run, or in another that resumed the run from a SQLite RunStore — and the
 * call is retried with the answers and the server's state. Against the SDK v2
 * fixture server over loopback HTTP (test/mcp/fixtures/v2-server.ts).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditEvent,
  type BatchResult,
  isAgtError,
  MemoryRunStore,
  McpPool,
  MemoryStore,
  NativeRun,
  type NativeRunOptions,
  type RunStore,
  policies,
  ResourceService,
  runAgentLoop,
  toolAlias,
} from '../../../src/index.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { PostgresRunStore } from '../../../src/storage/postgres.js';
import { ScriptedModel } from '../../../src/testing/index.js';
import { aiSdkTools } from '../../../src/providers/ai-sdk/index.js';
import { REPO_ROOT, tempDir, text, waitFor, waitingOf } from '../../support/index.js';
import { startV2Http, type V2HttpServer } from '../../mcp/fixtures/v2-server.js';
import { startHostileModern } from '../../mcp/fixtures/hostile-modern.js';
import { MAX_INPUT_ANSWERS_BYTES } from '../../../src/bounds.js';

const tool = (name: string) => toolAlias('tools/v2', name);

let server: V2HttpServer;
const tmp = tempDir('agt-questions-');
beforeAll(async () => {
  server = await startV2Http({ legacy: 'stateless' });
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const runs: NativeRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((r) => r.close()));
});

async function registry() {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: server.url } } } });
  await service.write({ kind: 'agent', reference: 'team/q', create: true, data: { mcps: ['tools/v2'] } });
  return service;
}

async function start(extra: Partial<NativeRunOptions> = {}, service?: ResourceService) {
  const run = await NativeRun.start({
    agent: 'team/q',
    service: service ?? (await registry()),
    policy: policies.autoAllow('*'),
    elicitation: 'defer',
    ...extra,
  });
  runs.push(run);
  return run;
}

const call = (run: NativeRun, batchId: string, name: string, args: Record<string, unknown> = {}, callId = 'c1') =>
  run.executeBatch({ runId: run.id, agent: run.agent, batchId, calls: [{ callId, name: tool(name), arguments: args }] });

describe('E4: a call whose server asks a question waits like an approval', () => {
  it('E4: the question is pending (waitingFor input, keys kept, no state shown); the audit names keys only', async () => {
    const events: AuditEvent[] = [];
    const run = await start({ audit: { record: (e) => void events.push(e) } });
    const out = await call(run, 'b1', 'ask', { what: 'deploy' });
    expect(out.results).toEqual([]);
    expect(out.pending).toHaveLength(1);
    const pending = out.pending![0]!;
    expect(pending).toMatchObject({ callId: 'c1', waitingFor: 'input', round: 1, arguments: { what: 'deploy' } });
    expect(waitingOf(pending, 'input').requests).toEqual({
      confirm: { method: 'elicitation/create', params: expect.objectContaining({ message: 'Really deploy?' }) },
    });
    expect(JSON.stringify(pending)).not.toMatch(/requestState/);
    const asked = events.find((e) => e.type === 'input_requested');
    expect(asked).toMatchObject({ requests: [{ key: 'confirm', method: 'elicitation/create' }], round: 1 });
    expect(JSON.stringify(events)).not.toMatch(/Really deploy|"deploy"/);
  });

  it('E4: answered in another run resumed from SQLite, the call is retried once and completes; the server asked once', async () => {
    const store = new SqliteRunStore({ path: path.join(tmp.dir, 'runs.db') });
    const service = await registry();
    const first = await start({}, service);
    const asked = server.state.asked;
    await call(first, 'b1', 'ask', { what: 'ship' });
    await first.suspend({ store });
    await first.close();
    const second = await NativeRun.resume(first.id, { service, policy: policies.autoAllow('*'), elicitation: 'defer', store });
    runs.push(second);
    expect(second.pending('b1').map((p) => [p.callId, p.waitingFor])).toEqual([['c1', 'input']]);
    const decided = await second.decide('b1', { c1: { answers: { confirm: { confirm: true } } } });
    expect(decided.results.map((r) => [r.status, text(r)])).toEqual([['ok', 'ship: confirmed (modern)']]);
    expect(decided.pending).toBeUndefined();
    expect(server.state.asked).toBe(asked + 1);
  });

  it('E4: an answer that does not match the requested schema is invalid_input naming the key and path; the call still waits', async () => {
    const run = await start();
    await call(run, 'b1', 'ask', { what: 'x' });
    const bad = await run.decide('b1', { c1: { answers: { confirm: { confirm: 'yes' } } } }).catch((e: unknown) => e);
    expect(isAgtError(bad) && bad.code).toBe('invalid_input');
    expect((bad as { details: Record<string, unknown> }).details).toMatchObject({ callId: 'c1', key: 'confirm' });
    expect((bad as Error).message).toMatch(/at "\/confirm"/);
    const unknown = await run.decide('b1', { c1: { answers: { confirm: { confirm: true }, other: 1 } } }).catch((e: unknown) => e);
    expect(isAgtError(unknown) && unknown.details?.key).toBe('other');
    const approval = await run.decide('b1', { c1: { approve: true } }).catch((e: unknown) => e);
    expect(isAgtError(approval) && approval.code).toBe('invalid_input'); // a question is answered, not approved
    expect(run.pending('b1')).toHaveLength(1);
    const done = await run.decide('b1', { c1: { answers: { confirm: { confirm: false } } } });
    expect(text(done.results[0]!)).toBe('x: not confirmed (modern)');
  });

  it('E4: a decline goes to the server as the protocol defines; the server decides what it means', async () => {
    const run = await start();
    await call(run, 'b1', 'ask', { what: 'drop' });
    const out = await run.decide('b1', { c1: { decline: true } });
    expect(out.results[0]).toMatchObject({ status: 'tool_error' });
    expect(JSON.stringify(out.results[0])).toMatch(/declined drop/);
  });

  it('E4: two rounds in sequence, the state sealed by the server, each round waits and is answered', async () => {
    const run = await start();
    const calls = server.state.calls;
    const first = await call(run, 'b1', 'wipe');
    expect(Object.keys(waitingOf(first.pending?.[0], 'input').requests)).toEqual(['confirm']);
    const second = await run.decide('b1', { c1: { answers: { confirm: { confirm: true } } } });
    expect(second.results).toEqual([]);
    expect(second.pending?.map((p) => [p.callId, waitingOf(p, 'input').round, Object.keys(waitingOf(p, 'input').requests)])).toEqual([
      ['c1', 2, ['scope']],
    ]);
    const done = await run.decide('b1', { c1: { answers: { scope: { scope: 'sessions' } } } });
    expect(done.results.map(text)).toEqual(['wiped sessions']);
    expect(server.state.calls).toBe(calls + 1);
  });

  it('E4: several questions in one round: all are pending, each needs its answer, all go back in one retry', async () => {
    const run = await start();
    const out = await call(run, 'b1', 'survey');
    expect(Object.keys(waitingOf(out.pending?.[0], 'input').requests)).toEqual(['name', 'age']);
    const missing = await run.decide('b1', { c1: { answers: { name: { name: 'Ada' } } } }).catch((e: unknown) => e);
    expect(isAgtError(missing) && [missing.code, missing.details?.key]).toEqual(['invalid_input', 'age']);
    const negative = await run.decide('b1', { c1: { answers: { name: { name: 'Ada' }, age: { age: -1 } } } }).catch((e: unknown) => e);
    expect(isAgtError(negative) && negative.details?.key).toBe('age');
    const done = await run.decide('b1', { c1: { answers: { name: { name: 'Ada' }, age: { age: 36 } } } });
    expect(done.results.map(text)).toEqual(['Ada is 36']);
  });

  it("E4: sampling and roots deferred too: both wait in one round, the host's draft and roots go back in one retry", async () => {
    const run = await start({ sampling: 'defer', roots: 'defer' });
    const out = await call(run, 'b1', 'think');
    expect(out.results).toEqual([]);
    expect(out.pending?.[0]).toMatchObject({
      waitingFor: 'input',
      round: 1,
      requests: { draft: { method: 'sampling/createMessage' }, roots: { method: 'roots/list' } },
    });
    // A sampling answer must be a sampling result; nothing is sent while it is not.
    await expect(run.decide('b1', { c1: { answers: { draft: 'a title', roots: [{ uri: 'file:///srv' }] } } })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { key: 'draft' },
    });
    const done = await run.decide('b1', {
      c1: {
        answers: {
          draft: { role: 'assistant', content: { type: 'text', text: 'Quarterly report' }, model: 'host-model' },
          roots: [{ uri: 'file:///srv/reports', name: 'reports' }],
        },
      },
    });
    expect(done.results.map((r) => [r.status, text(r)])).toEqual([['ok', 'Quarterly report in file:///srv/reports']]);
  });

  it('E4: through an McpPool, a run that defers and a run that answers the same question each get their own way', async () => {
    const service = await registry();
    await using pool = new McpPool({ service });
    const deferring = await start({ pool, scope: 'q' }, service);
    const answering = await start(
      { pool, scope: 'q', elicitation: async () => ({ action: 'accept', content: { confirm: true } }) },
      service,
    );
    const waiting = await call(deferring, 'b1', 'ask', { what: 'ship' });
    expect(waiting.pending?.[0]).toMatchObject({ waitingFor: 'input', requests: { confirm: { method: 'elicitation/create' } } });
    const inline = await call(answering, 'b1', 'ask', { what: 'deploy' });
    expect(inline.results.map(text)).toEqual(['deploy: confirmed (modern)']);
    const done = await deferring.decide('b1', { c1: { answers: { confirm: { confirm: false } } } });
    expect(done.results.map(text)).toEqual(['ship: not confirmed (modern)']);
    // Two connections: the pool's key keeps a connection whose questions come back to the host apart from one that answers them.
    expect(pool.stats().connections).toBe(2);
    await deferring.close(); // before the pool goes: a pool closed under live leases waits for them
    await answering.close();
  });

  it('E4: a server that asks forever ends the call as input_rounds_exceeded', async () => {
    const run = await start();
    let out = await call(run, 'b1', 'nag');
    let rounds = 1;
    while (out.pending !== undefined) {
      out = await run.decide('b1', { c1: { answers: { again: { ok: true } } } });
      rounds += 1;
    }
    expect(out.results[0]).toMatchObject({ status: 'tool_failed', error: { code: 'input_rounds_exceeded' } });
    expect(rounds).toBe(11);
  });

  it('E4: a state the server refuses ends the call as tool_failed with its words', async () => {
    const store = new MemoryRunStore();
    const run = await start();
    await call(run, 'b1', 'wipe');
    await run.decide('b1', { c1: { answers: { confirm: { confirm: true } } } }); // round 2 carries a sealed state
    const state = await run.suspend();
    const waiting = state.pending!.find((p) => p.callId === 'c1')!;
    expect(typeof (waiting as { requestState?: unknown }).requestState).toBe('string'); // stored verbatim with the run
    (waiting as { requestState?: string }).requestState = 'tampered';
    await store.put({ runId: run.id, agent: run.agent, state }, { expectedRevision: null });
    const service = await registry();
    const resumed = await NativeRun.resume(run.id, { service, policy: policies.autoAllow('*'), elicitation: 'defer', store });
    runs.push(resumed);
    const out = await resumed.decide('b1', { c1: { answers: { scope: { scope: 'all' } } } });
    expect(out.results[0]).toMatchObject({ status: 'tool_failed', error: { code: 'server_error' } });
    expect(JSON.stringify(out.results[0])).toMatch(/requestState/i);
    expect(JSON.stringify(out.results[0])).toMatch(/requestStateKey/); // says what a shared key is for
  });

  it('E4: a tool that changed while its call waited ends the call as input_stale, not retried', async () => {
    const run = await start();
    await call(run, 'b1', 'ask', { what: 'old' });
    await call(run, 'b2', 'reshape'); // the server changes ask's schema and announces it
    await waitFor(() => run.staleMounts.includes('tools/v2'));
    const calls = server.state.calls;
    const out = await run.decide('b1', { c1: { answers: { confirm: { confirm: true } } } });
    expect(out.results[0]).toMatchObject({ status: 'tool_failed', error: { code: 'input_stale', details: { tool: tool('ask') } } });
    expect(server.state.calls).toBe(calls);
    await call(run, 'b3', 'reshape'); // back as it was, for the other tests
  });

  it('E4: aiSdkTools (the SDK runs its own loop and cannot wait) declines a question at once: one result per call', async () => {
    const run = await start();
    const tools = aiSdkTools(run);
    const execute = tools[tool('ask')]!.execute as (input: unknown, options: { toolCallId: string }) => Promise<string>;
    const text = await execute({ what: 'auto' }, { toolCallId: 'a1' });
    expect(text).toMatch(/declined auto/);
    expect(run.pending()).toEqual([]);
  });

  it('E4: runAgentLoop ends as awaiting_input with the question, and goes on with the answers', async () => {
    const run = await start();
    const model = new ScriptedModel([{ toolCalls: [{ callId: 'q1', name: tool('ask'), arguments: { what: 'go' } }] }, { text: 'done' }]);
    const waiting = await runAgentLoop({ run, model, maxSteps: 4 });
    expect(waiting.status).toBe('awaiting_input');
    expect(waiting.pending?.map((p) => [p.callId, p.waitingFor])).toEqual([['q1', 'input']]);
    const done = await runAgentLoop({
      run,
      model,
      maxSteps: 4,
      history: waiting.history,
      decisions: { q1: { answers: { confirm: { confirm: true } } } },
    });
    expect(done.status).toBe('completed');
    const results = done.history.find((m) => m.role === 'tool');
    expect(JSON.stringify(results)).toMatch(/go: confirmed \(modern\)/);
  });
});

// The stores two deciders share: in memory, a SQLite file, and PostgreSQL when .ci/run started one.
const pgUrl = process.env.AGT_TEST_PG_URL;
const pgTable = `agt_runs_questions_${process.pid}_${Date.now() % 100000}`;
const stores: [string, () => Promise<RunStore & { close?(): Promise<void> }>, boolean][] = [
  ['memory', async () => new MemoryRunStore(), true],
  ['SQLite', async () => new SqliteRunStore({ path: path.join(tmp.dir, `deciders-${Date.now()}.db`) }), true],
  [
    `PostgreSQL${pgUrl ? '' : ' (skipped: AGT_TEST_PG_URL is not set; .ci/run starts a throwaway PostgreSQL)'}`,
    async () => {
      const store = new PostgresRunStore({ connectionString: pgUrl as string, table: pgTable });
      await store.migrate();
      return store;
    },
    pgUrl !== undefined,
  ],
];

describe('E4: two deciders, one retry', () => {
  afterAll(async () => {
    if (!pgUrl) return;
    const driver = 'pg';
    const pg = (
      (await import(driver)) as { default: { Pool: new (o: object) => { query(q: string): Promise<unknown>; end(): Promise<void> } } }
    ).default;
    const pool = new pg.Pool({ connectionString: pgUrl });
    for (const name of [pgTable, `${pgTable}_ap`]) await pool.query(`DROP TABLE IF EXISTS ${name}`);
    await pool.end();
  });

  for (const [label, open, available] of stores) {
    it.skipIf(!available)(
      `E4: of two hosts that resumed the run (${label}), one retries the call; the other gets revision_conflict, or its stored result`,
      async () => {
        const store = await open();
        try {
          const service = await registry();
          const first = await start({}, service);
          await call(first, 'b1', 'ask', { what: 'once' });
          await first.suspend({ store });
          const options = { service, policy: policies.autoAllow('*'), elicitation: 'defer' as const, store };
          const [a, b] = [await NativeRun.resume(first.id, options), await NativeRun.resume(first.id, options)];
          runs.push(a, b);
          const calls = server.state.calls;
          const outcomes = await Promise.allSettled([
            a.decide('b1', { c1: { answers: { confirm: { confirm: true } } } }),
            b.decide('b1', { c1: { answers: { confirm: { confirm: true } } } }),
          ]);
          // The loser ran nothing: it gets revision_conflict, or — once the winner recorded the end — the winner's result.
          const won = outcomes.filter((o) => o.status === 'fulfilled' && o.value.decidedElsewhere === undefined);
          expect(won).toHaveLength(1);
          const lost = outcomes.find((o) => o !== won[0])!;
          if (lost.status === 'rejected') expect(isAgtError(lost.reason) && lost.reason.code).toBe('revision_conflict');
          else
            expect(lost.value).toEqual({ results: (won[0] as PromiseFulfilledResult<BatchResult>).value.results, decidedElsewhere: true });
          expect(server.state.calls).toBe(calls + 1);
        } finally {
          await store.close?.();
        }
      },
    );
  }
});

describe('E4: across processes and a restarted server', () => {
  // A server in a process of its own (restartable on the same port), and what it says of itself.
  async function serverProcess(port?: number) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'test/hardening/fixtures/v2-http-child.ts'), ...(port ? ['--port', String(port)] : [])],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [url] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    return { child, url, port: Number(new URL(url).port), exited: once(child, 'exit') };
  }

  it('E4: host A waits on a sealed second round and is killed; the server restarts; host B resumes from SQLite and answers; one retry', async () => {
    const first = await serverProcess();
    const file = path.join(tmp.dir, 'killed.db');
    const host = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'test/runtime/fixtures/ask-and-die.ts'), file, first.url],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const hostExited = once(host, 'exit');
    const [line] = (await once(createInterface({ input: host.stdout! }), 'line')) as [string];
    const out = JSON.parse(line) as { runId: string; batchId: string; round: number; pid: number };
    expect(out.round).toBe(2);
    host.kill('SIGKILL'); // A exits without closing anything
    first.child.kill('SIGKILL'); // and the server instance that minted the state is gone
    await Promise.all([hostExited, first.exited]);
    const second = await serverProcess(first.port); // a new instance: nothing of the first survives but the shared key
    const store = new SqliteRunStore({ path: file });
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: second.url } } } });
    await service.write({ kind: 'agent', reference: 'team/q', create: true, data: { mcps: ['tools/v2'] } });
    const resumed = await NativeRun.resume(out.runId, { store, service, policy: policies.autoAllow('*'), elicitation: 'defer' });
    try {
      expect(resumed.pending(out.batchId).map((p) => [p.callId, p.waitingFor, waitingOf(p, 'input').round])).toEqual([['w1', 'input', 2]]);
      const decided = await resumed.decide(out.batchId, { w1: { answers: { scope: { scope: 'sessions' } } } });
      expect(decided.results.map(text)).toEqual(['wiped sessions']);
      const stats = await resumed.executeBatch({
        runId: resumed.id,
        agent: resumed.agent,
        batchId: 'stats',
        calls: [{ callId: 's', name: tool('stats'), arguments: {} }],
      });
      // The new instance asked nothing and served one call: the answered retry.
      expect(JSON.parse(text(stats.results[0]!))).toEqual({ asked: 0, calls: 1 });
    } finally {
      await resumed.close();
      await store.close();
      second.child.kill('SIGKILL');
      await second.exited;
    }
  }, 90_000);
});

describe('E4: answers in the protocol own shape, per question', () => {
  it('E4: one question of a round answered, the other declined, in one decision; the server sees each as its result', async () => {
    const run = await start();
    const out = await call(run, 'p1', 'poll');
    expect(Object.keys(waitingOf(out.pending?.[0], 'input').requests).sort()).toEqual(['age', 'name']);
    const decided = await run.decide('p1', {
      c1: { answers: { name: { action: 'accept', content: { name: 'Ada' } }, age: { action: 'decline' } } },
    });
    expect(decided.results.map(text)).toEqual(['name: accept {"name":"Ada"}; age: decline']);
  });

  it('E4: short forms still hold: a plain object is an accepted form, and cancel is the protocol result', async () => {
    const run = await start();
    await call(run, 'p2', 'poll');
    const decided = await run.decide('p2', { c1: { answers: { name: { name: 'Bo' }, age: { action: 'cancel' } } } });
    expect(decided.results.map(text)).toEqual(['name: accept {"name":"Bo"}; age: cancel']);
  });

  it('E4: answers over their bound are invalid_input and the call still waits; a second decision of the right size completes it', async () => {
    const run = await start();
    await call(run, 'p3', 'poll');
    const huge = 'x'.repeat(MAX_INPUT_ANSWERS_BYTES);
    const refused = await run.decide('p3', { c1: { answers: { name: { name: huge }, age: { age: 3 } } } }).catch((e: unknown) => e);
    expect(isAgtError(refused) && [refused.code, refused.details?.reason, refused.details?.limitBytes]).toEqual([
      'invalid_input',
      'too_large',
      MAX_INPUT_ANSWERS_BYTES,
    ]);
    expect((refused as Error).message).not.toContain('xxxx');
    expect(run.pending('p3').map((p) => p.callId)).toEqual(['c1']); // still waits
    const decided = await run.decide('p3', { c1: { answers: { name: { name: 'Cy' }, age: { age: 3 } } } });
    expect(decided.results.map(text)).toEqual(['name: accept {"name":"Cy"}; age: accept {"age":3}']);
  });

  it('E7: a run that defers only elicitation, asked for sampling, ends the call input_unanswerable naming the method; nothing waits', async () => {
    const hostile = await startHostileModern();
    try {
      const service = new ResourceService({ store: new MemoryStore() });
      await service.write({ kind: 'mcp', reference: 'tools/h', create: true, data: { mcpServers: { h: { url: hostile.url } } } });
      await service.write({ kind: 'agent', reference: 'team/q', create: true, data: { mcps: ['tools/h'] } });
      const run = await start({}, service);
      const out = await run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: 's1',
        calls: [{ callId: 'c1', name: toolAlias('tools/h', 'asks_sampling'), arguments: {} }],
      });
      expect(out.pending ?? []).toEqual([]);
      expect(out.results[0]).toMatchObject({
        status: 'tool_failed',
        error: { code: 'protocol_error', details: { reason: 'input_unanswerable', method: 'sampling/createMessage' } },
      });
    } finally {
      await hostile.close();
    }
  });
});
