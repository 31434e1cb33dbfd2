/**
 * Durable approvals: a policy defers a call, the batch returns the
 * others' results and the call pending; `run.decide` ends it — in this
 * process, or in another that resumed the run from its store — exactly once,
 * checked again on the live snapshot (G4, B3, B4, B5, F2, F6).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import {
  type AuditEvent,
  type BatchResult,
  MemoryRunStore,
  NativeRun,
  type PermissionRequest,
  policies,
  runAgentLoop,
  type SuspendedRun,
} from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing/index.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { batch, failure, py, REPO_ROOT, runFixture } from '../../support/index.js';

const fx = runFixture(['list-changed']);
const approvalOfWithdraw = () => policies.chain(policies.approval(py('withdraw'), 'money moves need a human'), policies.autoAllow('*'));

describe('deferring a call', () => {
  it('G4: policies.approval defers matching calls: the others run, the deferred one waits with its validated arguments and reaches no server', async () => {
    const audit: AuditEvent[] = [];
    const run = await fx.start({ policy: approvalOfWithdraw(), audit: { record: (e) => void audit.push(e) } });
    const out = await run.executeBatch({
      ...batch(run, [
        { callId: 'e1', name: py('echo'), arguments: { message: 'hi' } },
        { callId: 'w1', name: py('withdraw'), arguments: '{"amount": 7.654321}' },
      ]),
      batchId: 'b-defer',
    });
    expect(out.results.map((r) => [r.callId, r.status])).toEqual([['e1', 'ok']]);
    expect(out.pending).toEqual([
      expect.objectContaining({
        batchId: 'b-defer',
        callId: 'w1',
        tool: py('withdraw'),
        kind: 'mcp',
        mount: 'tools/py',
        remoteTool: 'withdraw',
        annotations: expect.objectContaining({ destructiveHint: true }),
        arguments: { amount: 7.654321 },
        reason: 'money moves need a human',
      }),
    ]);
    const [p] = out.pending ?? [];
    expect(Date.parse(p!.expiresAt) - Date.parse(p!.deferredAt)).toBe(24 * 60 * 60 * 1000); // the default approvalTtlMs
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['echo']);
    expect(run.pending()).toEqual(out.pending);
    const requested = audit.filter((e) => e.type === 'approval_requested');
    expect(requested).toEqual([expect.objectContaining({ callId: 'w1', batchId: 'b-defer', decidedBy: 'policy', mount: 'tools/py' })]);
    expect(audit.filter((e) => e.type === 'tool_call').map((e) => e.callId)).toEqual(['e1']); // the pending call has no end yet
    expect(JSON.stringify(audit)).not.toContain('7.654321'); // no argument values in audit events (a value no timestamp or duration can hold)
  });

  it('B4: an invalid call is never deferred: it is invalid_arguments and no approval is created', async () => {
    const run = await fx.start({ policy: approvalOfWithdraw() });
    const out = await run.executeBatch(batch(run, [{ callId: 'w1', name: py('withdraw'), arguments: { amount: -1 } }]));
    expect(out.results.map((r) => [r.callId, r.status])).toEqual([['w1', 'invalid_arguments']]);
    expect(out.pending).toBeUndefined();
    expect(run.pending()).toEqual([]);
  });
});

describe('run.decide', () => {
  it('B3: an approved call runs once through before → execute → after; a rejected one is permission_denied with the reason', async () => {
    const order: string[] = [];
    const audit: AuditEvent[] = [];
    const run = await fx.start({
      policy: approvalOfWithdraw(),
      audit: { record: (e) => void audit.push(e) },
      hooks: {
        before: [(c: PermissionRequest) => void order.push(`before ${c.callId}`)],
        after: [(c: PermissionRequest) => void order.push(`after ${c.callId}`)],
      },
    });
    const out = await run.executeBatch({
      ...batch(run, [
        { callId: 'w1', name: py('withdraw'), arguments: { amount: 1 } },
        { callId: 'w2', name: py('withdraw'), arguments: { amount: 2 } },
      ]),
      batchId: 'b-decide',
    });
    expect(out.results).toEqual([]);
    expect(order).toEqual([]);
    const decided = await run.decide('b-decide', { w2: { approve: false, reason: 'not today' }, w1: { approve: true } });
    expect(decided.results.map((r) => [r.callId, r.status])).toEqual([
      ['w1', 'ok'],
      ['w2', 'permission_denied'],
    ]); // call order, whatever the order of the decisions
    expect(decided.results[1]).toMatchObject({ error: { code: 'permission_denied', message: 'not today', details: { by: 'human' } } });
    expect(decided.pending).toBeUndefined();
    expect(order).toEqual(['before w1', 'after w1']);
    expect(fx.env.calls()).toEqual([{ tool: 'withdraw', arguments: { amount: 1 } }]);
    const ends = audit.filter((e) => e.type === 'tool_call');
    expect(ends.map((e) => [e.callId, e.status, e.decidedBy])).toEqual(
      expect.arrayContaining([
        ['w1', 'ok', 'human'],
        ['w2', 'permission_denied', 'human'],
      ]),
    );
    // Exactly one result per call id: a second decide finds nothing pending.
    expect(await failure(run.decide('b-decide', { w1: { approve: true } }))).toMatchObject({ code: 'not_found' });
    expect(fx.env.calls()).toHaveLength(1);
  });

  it('decisions are checked before anything is taken: an unknown call or a malformed decision changes nothing', async () => {
    const run = await fx.start({ policy: approvalOfWithdraw() });
    await run.executeBatch({ ...batch(run, [{ callId: 'w1', name: py('withdraw'), arguments: { amount: 1 } }]), batchId: 'b-check' });
    expect(await failure(run.decide('nope', { w1: { approve: true } }))).toMatchObject({ code: 'not_found', details: { batchId: 'nope' } });
    expect(await failure(run.decide('b-check', { w1: { approve: true }, zz: { approve: true } }))).toMatchObject({
      code: 'not_found',
      details: { callId: 'zz' },
    });
    expect(await failure(run.decide('b-check', { w1: { approve: 'yes' } as never }))).toMatchObject({ code: 'invalid_input' });
    expect(await failure(run.decide('b-check', {}))).toMatchObject({ code: 'invalid_input' });
    expect(fx.env.calls()).toEqual([]);
    expect(run.pending().map((p) => p.callId)).toEqual(['w1']);
    expect((await run.decide('b-check', { w1: { approve: true } })).results.map((r) => r.status)).toEqual(['ok']);
  });

  it('approvalTtlMs: an approval decided after it expired ends as permission_denied (approval expired) and never runs', async () => {
    const run = await fx.start({ policy: approvalOfWithdraw(), approvalTtlMs: 20 });
    const out = await run.executeBatch(batch(run, [{ callId: 'w1', name: py('withdraw'), arguments: { amount: 1 } }]));
    const expires = Date.parse(out.pending![0]!.expiresAt);
    await new Promise<void>((resolve) => {
      const wait = () => (Date.now() > expires ? resolve() : setTimeout(wait, expires - Date.now() + 1));
      wait();
    }); // waits for the deadline itself, whatever the machine's load
    const decided = await run.decide(out.pending![0]!.batchId, { w1: { approve: true } });
    expect(decided.results[0]).toMatchObject({
      status: 'permission_denied',
      error: { code: 'permission_denied', details: { reason: 'approval_expired' } },
    });
    expect(fx.env.calls()).toEqual([]);
    await expect(fx.start({ approvalTtlMs: 0 })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'approvalTtlMs' } });
  });

  it('F2: a tool whose annotations changed (or that went away) since its call was deferred ends that call as approval_stale, unrun', async () => {
    const run = await fx.start({ policy: policies.chain(policies.approval([py('echo'), py('add')]), policies.autoAllow('*')) });
    const out = await run.executeBatch({
      ...batch(run, [
        { callId: 'e1', name: py('echo'), arguments: { message: 'later' } },
        { callId: 'a1', name: py('add'), arguments: { a: 1, b: 2 } },
        { callId: 'r1', name: py('reshape'), arguments: { name: 'echo' } },
        { callId: 'r2', name: py('reshape'), arguments: { name: 'add', drop: true } },
      ]),
      batchId: 'b-stale',
    });
    expect(out.pending?.map((p) => p.callId)).toEqual(['e1', 'a1']);
    expect(out.refresh?.status).toBe('applied'); // the boundary relisted the changed tools
    const decided = await run.decide('b-stale', { e1: { approve: true }, a1: { approve: true } });
    expect(decided.results.map((r) => [r.callId, r.status === 'ok' ? 'ok' : r.error.code])).toEqual([
      ['e1', 'approval_stale'],
      ['a1', 'approval_stale'],
    ]);
    expect(decided.results[0]).toMatchObject({ error: { message: expect.stringMatching(/changed.*call it again/) } });
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['reshape', 'reshape']);
  });
});

describe('approvals that wait across runs and processes', () => {
  it('F6: suspend keeps pending approvals (format 2, arguments included); a resumed run decides them', async () => {
    const store = new MemoryRunStore();
    const run = await fx.start({ policy: approvalOfWithdraw() });
    await run.executeBatch({ ...batch(run, [{ callId: 'w1', name: py('withdraw'), arguments: { amount: 3 } }]), batchId: 'b-carry' });
    const state: SuspendedRun = await run.suspend({ store });
    expect(state).toMatchObject({ version: 2, pending: [{ callId: 'w1', arguments: { amount: 3 }, batchId: 'b-carry' }] });
    const other = await NativeRun.resume(run.id, { store, service: fx.env.service, policy: policies.denyAll() });
    try {
      expect(other.pending()).toEqual(run.pending());
      const decided = await other.decide('b-carry', { w1: { approve: true } });
      expect(decided.results.map((r) => r.status)).toEqual(['ok']); // decided, not reviewed again by this host's policy
      expect((await store.get(run.id))?.state).toMatchObject({ version: 1 }); // nothing pending any more
      expect((await store.get(run.id))?.state.pending).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('exactly once: two hosts that resumed one run decide the same call; one runs it, the other runs nothing and learns what happened', async () => {
    const store = new MemoryRunStore();
    const run = await fx.start({ policy: approvalOfWithdraw() });
    await run.executeBatch({ ...batch(run, [{ callId: 'w1', name: py('withdraw'), arguments: { amount: 4 } }]), batchId: 'b-race' });
    await run.suspend({ store });
    const options = { store, service: fx.env.service, policy: policies.denyAll() };
    const [a, b] = await Promise.all([NativeRun.resume(run.id, options), NativeRun.resume(run.id, options)]);
    try {
      const outcomes = await Promise.allSettled([
        a.decide('b-race', { w1: { approve: true } }),
        b.decide('b-race', { w1: { approve: true } }),
      ]);
      const won = outcomes.filter((o) => o.status === 'fulfilled' && o.value.decidedElsewhere === undefined);
      expect(won).toHaveLength(1);
      const winner = (won[0] as PromiseFulfilledResult<BatchResult>).value;
      const lost = outcomes.find((o) => o !== won[0])!;
      if (lost.status === 'rejected') {
        // Before the winner recorded the end: it says what happened and what to do, not "read it again and retry".
        expect(lost.reason).toMatchObject({ code: 'revision_conflict', details: { reason: 'decided_elsewhere', batchId: 'b-race' } });
        expect((lost.reason as Error).message).toMatch(/another host decided or wrote this run first.*do not retry/);
      } else expect(lost.value).toEqual({ results: winner.results, decidedElsewhere: true }); // after: the winner's result
      expect(fx.env.calls()).toEqual([{ tool: 'withdraw', arguments: { amount: 4 } }]);
      // The original host still holds its copy: deciding now, it gets the stored result and runs nothing.
      expect(await run.decide('b-race', { w1: { approve: true } })).toEqual({ results: winner.results, decidedElsewhere: true });
      expect(fx.env.calls()).toHaveLength(1);
      // Past decidedRetentionMs (0: keep none) the record keeps no result: the loser gets decided_elsewhere, as before.
      const forgetful = await NativeRun.resume(run.id, { ...options, decidedRetentionMs: 0 });
      try {
        await forgetful.suspend({ store }); // its write keeps no results
        expect((await store.get(run.id))?.state.decided).toBeUndefined();
        expect(await failure(run.decide('b-race', { w1: { approve: true } }))).toMatchObject({ code: 'revision_conflict' });
      } finally {
        await forgetful.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('F6: the host that deferred a call is killed (SIGKILL); another process resumes the run from SQLite and decides it', async () => {
    await fx.start(); // the registry (tools/py, team/alice) both hosts read
    const file = path.join(fx.env.tmp.dir, 'runs.db');
    const document = (await fx.env.service.read({ kind: 'mcp', reference: 'tools/py' })).data;
    const host = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'test/runtime/fixtures/defer-and-die.ts'), file, JSON.stringify(document)],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = once(host, 'exit');
    const [line] = (await once(createInterface({ input: host.stdout! }), 'line')) as [string];
    const out = JSON.parse(line) as { runId: string; batchId: string; pid: number };
    expect(out.pid).not.toBe(process.pid);
    host.kill('SIGKILL');
    expect((await exited)[1]).toBe('SIGKILL');
    const store = new SqliteRunStore({ path: file });
    const resumed = await NativeRun.resume(out.runId, { store, service: fx.env.service, policy: policies.denyAll() });
    try {
      expect(resumed.pending().map((p) => [p.callId, p.arguments])).toEqual([['w1', { amount: 5 }]]);
      const decided = await resumed.decide(out.batchId, { w1: { approve: true } });
      expect(decided.results.map((r) => r.status)).toEqual(['ok']);
      expect(fx.env.calls()).toEqual([{ tool: 'withdraw', arguments: { amount: 5 } }]);
    } finally {
      await resumed.close();
      await store.close();
    }
  }, 60_000);
});

describe('runAgentLoop', () => {
  it('B4: a waiting step ends the loop as awaiting_approval; called again with the history and decisions it completes the step and goes on', async () => {
    const run = await fx.start({ policy: approvalOfWithdraw() });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { callId: 'w1', name: py('withdraw'), arguments: '{"amount":1}' },
          { callId: 'e1', name: py('echo'), arguments: '{"message":"meanwhile"}' },
        ],
      },
      { text: 'withdrawn and echoed' },
    ]);
    const first = await runAgentLoop({ run, model, maxSteps: 4 });
    expect(first).toMatchObject({ status: 'awaiting_approval', steps: 1, pending: [{ callId: 'w1', arguments: { amount: 1 } }] });
    expect(model.inputs).toHaveLength(1); // the model is not asked again while a call waits
    const history = JSON.parse(JSON.stringify(first.history)); // as a host keeps it between requests
    const second = await runAgentLoop({ run, model, maxSteps: 4, history, decisions: { w1: { approve: true } } });
    expect(second).toMatchObject({ status: 'completed', steps: 2, text: 'withdrawn and echoed' });
    const shown = model.inputs[1]!.history.find((m) => m.role === 'tool');
    expect(shown).toEqual({
      role: 'tool',
      batchId: `${run.id}:1`,
      results: [expect.objectContaining({ callId: 'w1', status: 'ok' }), expect.objectContaining({ callId: 'e1', status: 'ok' })],
    });
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['echo', 'withdraw']);
  });
});
