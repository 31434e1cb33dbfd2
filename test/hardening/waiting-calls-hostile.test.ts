/**
 * A run's waiting calls against a hostile store record, a hostile host and a server that forgets: what suspend()
 * stores (the form 0.1 reads), what hosts hold of the run (copies), what a decision is (read once, copied as
 * checked), a record that lies (a call pending and in flight, a malformed kept result, too many questions), a task
 * gone while its question waited, racing collects, and a recover() whose rerun throws. Real servers: the Python
 * fixture (stdio), the SDK v2 fixture and a kit task server (loopback HTTP).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolServer, type HttpToolService, serveHttp } from '../../src/authoring/index.js';
import {
  type AuditEvent,
  MemoryRunStore,
  MemoryStore,
  NativeRun,
  type NativeRunOptions,
  policies,
  ResourceService,
  type SuspendedRun,
  toolAlias,
} from '../../src/index.js';
import { MAX_INPUT_REQUESTS } from '../../src/bounds.js';
import type { StoredInFlightCall } from '../../src/runtime/pending/in-flight.js';
import { isStoredCall, type StoredCall } from '../../src/runtime/pending/waiting-call.js';
import { batch, failure, py, REPO_ROOT, runFixture, tempDir, text } from '../support/index.js';
import { startV2Http, type V2HttpServer } from '../mcp/fixtures/v2-server.js';
import { taskTools } from '../authoring/fixtures/task-tools.js';

const fx = runFixture();
const tmp = tempDir('agt-waiting-hostile-');
let v2: V2HttpServer;
let tasks: HttpToolService;
beforeAll(async () => {
  v2 = await startV2Http({ legacy: 'stateless' });
  tasks = await serveHttp(() =>
    createToolServer({
      name: 'run-tasks',
      version: '1.0.0',
      tools: taskTools(path.join(tmp.dir, 'tools.log')),
      tasks: { pollIntervalMs: 50 },
    }),
  );
});
afterAll(async () => {
  await Promise.all([v2?.close(), tasks?.close()]);
  tmp.cleanup();
});

const deferAll = () => policies.chain(policies.approval(py('withdraw')), policies.approval(py('add')), policies.autoAllow('*'));
const withdraw = (callId: string, amount: number) => ({ callId, name: py('withdraw'), arguments: { amount } });
const lapsed = () => new Date(Date.now() - 60_000).toISOString();

// A run of team/alice (Python fixture) with `calls` deferred in batch b1, suspended to a memory store.
async function deferred(calls: { callId: string; name: string; arguments: Record<string, unknown> }[]) {
  const store = new MemoryRunStore();
  const run = await fx.start({ policy: deferAll() });
  await run.executeBatch({ ...batch(run, calls), batchId: 'b1' });
  await run.suspend({ store });
  const resume = (extra: Partial<NativeRunOptions> = {}) =>
    NativeRun.resume(run.id, { store, service: fx.env.service, policy: policies.denyAll(), ...extra });
  // Rewrites the stored record as someone who can write the store would.
  const forge = async (edit: (state: SuspendedRun) => object) => {
    const stored = (await store.get(run.id))!;
    await store.put(
      { runId: run.id, agent: run.agent, state: { ...stored.state, ...edit(stored.state) } },
      { expectedRevision: stored.revision },
    );
  };
  return { store, run, resume, forge };
}

// A registry with one agent mounting one HTTP server.
async function httpAgent(url: string) {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'tools/h', create: true, data: { mcpServers: { h: { url, protocol: '2026-07-28' } } } });
  await service.write({ kind: 'agent', reference: 'team/h', create: true, data: { mcps: ['tools/h'] } });
  return service;
}
const h = (name: string) => toolAlias('tools/h', name);

describe('what a run stores and what hosts hold of it', () => {
  it('F7: an approval is stored as 0.1 stored it (no waitingFor: a 0.1 host refuses one that has it as tampered), pending or in flight; it resumes and is decided', async () => {
    const { store, run, resume } = await deferred([withdraw('w1', 3), { callId: 'a1', name: py('add'), arguments: { a: 2, b: 3 } }]);
    const old = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test/runtime/fixtures/stored-records/approval.json'), 'utf8'));
    const stored = (await store.get(run.id))!.state;
    const keys = (call: object | undefined) => Object.keys(call ?? {}).sort();
    expect(stored.pending?.map(keys)).toEqual(old.pending.map(keys));
    expect(run.pending('b1').map((p) => p.waitingFor)).toEqual(['approval', 'approval']); // in memory and in views: always
    let during: SuspendedRun | undefined; // the record while w1 runs: in flight
    const resumed = await resume({ hooks: { before: [async () => void (during = (await store.get(run.id))!.state)] } });
    const decided = await resumed.decide('b1', { w1: { approve: true }, a1: { approve: false } });
    expect(decided.results.map((r) => r.status)).toEqual(['ok', 'permission_denied']);
    expect(during?.inFlight?.map((c) => [c.approval.callId, Object.hasOwn(c.approval, 'waitingFor')])).toEqual([['w1', false]]);
    await resumed.close();
  });

  it('F7: what suspend() returns is a copy — a host that redacts it for a log changes nothing of the run — and a state given to resume is copied', async () => {
    const { run } = await deferred([withdraw('w1', 7)]);
    const state = await run.suspend();
    const call = state.pending![0]! as StoredCall & { arguments: unknown };
    Object.assign(call, { expiresAt: '2000-01-01T00:00:00.000Z', arguments: '[redacted]', tool: 'x' });
    state.decided = [];
    expect(run.pending('b1')[0]).toMatchObject({ tool: py('withdraw'), arguments: { amount: 7 } });
    expect(Date.parse(run.pending('b1')[0]!.expiresAt)).toBeGreaterThan(Date.now());
    const clean = await run.suspend();
    const resumed = await NativeRun.resume(clean, { service: fx.env.service, policy: policies.denyAll() });
    Object.assign(clean.pending![0]!, { arguments: { amount: 9_999 } }); // after resume's checks
    expect((await resumed.decide('b1', { w1: { approve: true } })).results.map((r) => [r.status, text(r)])).toEqual([
      ['ok', '{"balance": 93}'],
    ]);
    await resumed.close();
  });

  it("E8: a resumed run's pending() views hold copies: a host editing a view's annotations changes neither the run nor its record", async () => {
    const { store, resume } = await deferred([withdraw('w1', 7)]);
    const resumed = await resume();
    const view = resumed.pending('b1')[0]!;
    expect(() => Object.assign(view.annotations!, { idempotentHint: true })).toThrow(TypeError);
    expect(resumed.pending('b1')[0]!.annotations?.idempotentHint).toBeUndefined();
    await resumed.suspend({ store });
    expect((await store.get(resumed.id))!.state.pending?.[0]?.annotations?.idempotentHint).toBeUndefined();
    await resumed.close();
  });
});

describe('a decision is what was checked', () => {
  it('E4: answers are copied as they are checked: a form reset after decide (here by the audit sink) is not what the server gets', async () => {
    const form: Record<string, unknown> = { confirm: true };
    const reset = (e: AuditEvent) => void (e.type === 'input_decided' && (form.confirm = 'reset'));
    const run = await NativeRun.start({
      agent: 'team/h',
      service: await httpAgent(v2.url),
      policy: policies.autoAllow('*'),
      elicitation: 'defer',
      audit: { record: reset },
    });
    try {
      await run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: 'b1',
        calls: [{ callId: 'c1', name: h('ask'), arguments: { what: 'x' } }],
      });
      const answered = await run.decide('b1', { c1: { answers: { confirm: form } } });
      expect(answered.results.map((r) => [r.status, text(r)])).toEqual([['ok', 'x: confirmed (modern)']]);
      expect(run.inFlightCalls()).toEqual([]);
    } finally {
      await run.close();
    }
  });

  it("G4: each field of a host's approval is read once: a reason getter that answers an object the second time leaves a string message", async () => {
    const { run } = await deferred([withdraw('w1', 7)]);
    let reads = 0;
    const decision = { approve: false, get reason() { return reads++ === 0 ? 'no' : { not: 'a string' }; } }; // prettier-ignore
    const [result] = (await run.decide('b1', { w1: decision as { approve: false; reason: string } })).results;
    expect(result).toMatchObject({ status: 'permission_denied', error: { message: 'no' } });
  });
});

describe('a record that lies', () => {
  it('E8: a call the record holds both pending and in flight on a live host is not offered again: deciding it is not_found, it does not run twice', async () => {
    const { resume, forge } = await deferred([withdraw('w1', 7), withdraw('w2', 1)]);
    const soon = new Date(Date.now() + 600_000).toISOString();
    await forge((s) => ({
      version: 3,
      inFlight: [{ approval: s.pending![1]!, decision: { approve: true }, host: 'other:1:x', decidedAt: soon, leaseUntil: soon }],
    }));
    const resumed = await resume();
    expect(resumed.pending('b1').map((p) => p.callId)).toEqual(['w1']);
    expect(await failure(resumed.decide('b1', { w2: { approve: true } }))).toMatchObject({ code: 'not_found' });
    expect(resumed.inFlightCalls().map((c) => [c.callId, c.host])).toEqual([['w2', 'other:1:x']]);
    expect(fx.env.calls()).toEqual([]);
    await resumed.close();
  });

  it("E8: a kept result that lies about its shape (no error, another call's id) is never handed out: resume refuses it, decide ignores one written later", async () => {
    const { resume, forge } = await deferred([withdraw('w1', 7)]);
    const bad = { batchId: 'b1', callId: 'w1', result: { callId: 'zz', status: 'tool_failed' }, endedAt: new Date().toISOString() };
    const resumed = await resume();
    await forge(() => ({ pending: undefined, version: 1, decided: [bad] })); // another host "ended" w1 meanwhile
    expect(await failure(resumed.decide('b1', { w1: { approve: true } }))).toMatchObject({ code: 'revision_conflict' });
    expect(await failure(resume())).toMatchObject({ code: 'store_unavailable', details: { reason: 'tampered_record' } });
    await resumed.close();
  });

  it('E7: a stored question holding more questions than one round may ask is refused as it is read', () => {
    const requests = Object.fromEntries(
      Array.from({ length: MAX_INPUT_REQUESTS + 1 }, (_, i) => [`q${i}`, { method: 'elicitation/create', params: {} }]),
    );
    const call = { batchId: 'b', callId: 'c', index: 0, tool: 't', kind: 'mcp', arguments: {}, by: 'p', toolHash: 'h' };
    const dates = { deferredAt: new Date().toISOString(), expiresAt: new Date().toISOString() };
    expect(isStoredCall({ ...call, ...dates, waitingFor: 'input', round: 1, requests })).toBe(false);
  });

  it('E8: a rerun that throws in recover() ends its calls interrupted; the calls recover() ended leave the record, never ended twice', async () => {
    const { store, resume, forge } = await deferred([withdraw('w1', 7), { callId: 'a1', name: py('add'), arguments: { a: 1, b: 2 } }]);
    const lease = { host: 'dead:1:x', decidedAt: lapsed(), leaseUntil: lapsed() };
    const schema = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] };
    await forge((s) => {
      const [w1, a1] = s.pending!;
      // add (idempotent, so it reruns) recorded as answering a question with answers its schema refuses.
      const asked = {
        ...a1!,
        waitingFor: 'input',
        round: 1,
        requests: { q: { method: 'elicitation/create', params: { message: 'x', requestedSchema: schema } } },
      };
      const inFlight = [
        { approval: w1!, decision: { approve: true }, ...lease },
        { approval: asked, decision: { answers: { q: {} } }, ...lease },
      ];
      return { pending: undefined, version: 3, inFlight: inFlight as StoredInFlightCall[] };
    });
    const events: AuditEvent[] = [];
    const resumed = await resume({ inFlightLeaseMs: 1_000, audit: { record: (e) => void events.push(e) } });
    const { recovered } = await resumed.recover();
    expect(recovered.map((r) => [r.result.callId, r.result.status, r.rerun])).toEqual([
      ['w1', 'interrupted', false],
      ['a1', 'interrupted', false],
    ]);
    expect((await store.get(resumed.id))!.state.inFlight).toBeUndefined();
    expect((await resumed.recover()).recovered).toEqual([]);
    expect(events.filter((e) => e.type === 'tool_call').map((e) => e.callId)).toEqual(['w1', 'a1']);
    await resumed.close();
  });
});

describe('tasks that wait', () => {
  const options = async () => ({ service: await httpAgent(tasks.url), tasks: 'defer' as const, elicitation: 'defer' as const });
  const start = async () => {
    const run = await NativeRun.start({ agent: 'team/h', ...(await options()), policy: policies.autoAllow('*') });
    const hold = (id: string) => path.join(tmp.dir, `hold-${id}`);
    const report = (batchId: string, id: string) =>
      run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId,
        calls: [{ callId: 'c1', name: h('report'), arguments: { id, hold: hold(id) } }],
      });
    return { run, hold, report };
  };

  it('E6: a question inside a task its server no longer knows (restarted) ends the call task_lost when answered: nothing throws, nothing stays in flight', async () => {
    const { run, report } = await start();
    const store = new MemoryRunStore();
    try {
      await report('b1', 'lost-1');
      const state = await run.suspend({ store });
      const call = state.pending![0]!;
      // Its task asked a question, and the server forgot the task since (a restart): an id the server does not know.
      const asked = { ...call, waitingFor: 'input', round: 1, task: { id: 'gone-after-restart', status: 'input_required' } };
      const question = { ok: { method: 'elicitation/create', params: { message: 'go?', requestedSchema: { type: 'object' } } } };
      await store.put(
        { runId: run.id, agent: run.agent, state: { ...state, pending: [{ ...asked, requests: question }] as StoredCall[] } },
        { expectedRevision: 1 },
      );
      const resumed = await NativeRun.resume(run.id, { ...(await options()), policy: policies.denyAll(), store });
      try {
        const answered = await resumed.decide('b1', { c1: { answers: { ok: {} } } });
        expect(answered.results).toEqual([
          expect.objectContaining({ callId: 'c1', status: 'tool_failed', error: expect.objectContaining({ code: 'task_lost' }) }),
        ]);
        expect(resumed.inFlightCalls()).toEqual([]);
        expect((await store.get(run.id))!.state.inFlight).toBeUndefined();
      } finally {
        await resumed.close();
      }
    } finally {
      await run.close();
    }
  });

  it('E6, E4: a collect that waits while its call waits for answers sees the call a decide puts back on its task, and collects it', async () => {
    const { run } = await start();
    try {
      const calls = [{ callId: 'c1', name: h('confirm'), arguments: { id: 'q' } }];
      await run.executeBatch({ runId: run.id, agent: run.agent, batchId: 'b1', calls });
      await run.collect('b1', { waitMs: 20_000 }); // the task asks: the call waits for the host's answers
      expect(run.pending('b1').map((p) => p.waitingFor)).toEqual(['input']);
      const started = performance.now();
      const collecting = run.collect('b1', { waitMs: 20_000 });
      expect((await run.decide('b1', { c1: { answers: { t1: { ok: true } } } })).pending?.map((p) => p.waitingFor)).toEqual(['task']);
      expect((await collecting).results.map((r) => [r.status, text(r)])).toEqual([['ok', 'acted on q']]);
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      await run.close();
    }
  });

  it('E6: collect with a batch id that is no string is not_found and looks at no batch; a collect that loses its call to a cancel or another collect of the run gets nothing', async () => {
    const { run, hold, report } = await start();
    try {
      await report('b1', 'race-1');
      await report('b2', 'race-2');
      for (const id of [undefined, 5])
        expect(await failure(run.collect(id as unknown as string, { waitMs: 5_000 }))).toMatchObject({ code: 'not_found' });
      const collecting = run.collect('b1', { waitMs: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the collect looks at b1's task meanwhile
      expect((await run.cancel('b1', 'c1')).results.map((r) => r.status)).toEqual(['tool_failed']);
      const lost = performance.now();
      expect((await collecting).results).toEqual([]);
      expect(performance.now() - lost).toBeLessThan(10_000); // its batch has nothing left to wait on: not its whole wait
      fs.writeFileSync(hold('race-2'), '');
      const both = await Promise.all([run.collect('b2', { waitMs: 20_000 }), run.collect('b2', { waitMs: 20_000 })]);
      expect(both.map((r) => r.results.map((x) => x.status).join()).sort()).toEqual(['', 'ok']);
    } finally {
      await run.close();
    }
  });
});
