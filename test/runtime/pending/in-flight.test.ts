/**
 * Decided calls in flight: deciding records the call as in
 * flight with the deciding host's lease, in the same compare-and-set; its end
 * is recorded when it comes (merged into what another host wrote since). A
 * host that dies mid-call leaves it in flight; once its lease ran out any
 * host's `run.recover()` runs it again when its tool declares
 * `idempotentHint: true`, and otherwise ends it `interrupted`, audited —
 * never nothing. Real Python server processes, a real SQLite file, a host
 * process killed with SIGKILL.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { type AuditEvent, MemoryRunStore, NativeRun, policies } from '../../../src/index.js';
import { HOST_ID } from '../../../src/runtime/pending/in-flight.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { batch, py, REPO_ROOT, runFixture, setup } from '../../support/index.js';
import { rawSqlite } from '../../support/sqlite.js';

const fx = runFixture();
// add (idempotentHint: true) and withdraw (destructive, no idempotentHint) wait for a human.
const deferBoth = () => policies.chain(policies.approval(py('withdraw')), policies.approval(py('add')), policies.autoAllow('*'));
const calls = [
  { callId: 'a1', name: py('add'), arguments: { a: 1, b: 2 } },
  { callId: 'w1', name: py('withdraw'), arguments: { amount: 7 } },
];

// A before hook that holds each call until the test lets it go: the call is decided and in flight meanwhile.
function gate() {
  const reached: string[] = [];
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { reached, open, hook: async (call: { callId: string }) => void (reached.push(call.callId), await opened) };
}

describe('a decided call is in flight until it ends', () => {
  it('E8: deciding records the call in flight with this host and its lease (format 3) before it runs; its end is recorded', async () => {
    const store = new MemoryRunStore();
    const held = gate();
    const run = await fx.start({ policy: deferBoth(), hooks: { before: [held.hook] }, inFlightLeaseMs: 120_000 });
    await run.executeBatch({ ...batch(run, calls.slice(1)), batchId: 'b1' });
    await run.suspend({ store });
    const deciding = run.decide('b1', { w1: { approve: true } });
    await vi.waitFor(() => expect(held.reached).toEqual(['w1']), { timeout: 20_000 });
    const during = (await store.get(run.id))!.state;
    expect(during).toMatchObject({
      version: 3,
      inFlight: [{ approval: { callId: 'w1', batchId: 'b1' }, decision: { approve: true }, host: HOST_ID }],
    });
    expect(during.pending).toBeUndefined(); // taken out of the pending calls in the same write
    const lease = Date.parse(during.inFlight![0]!.leaseUntil) - Date.parse(during.inFlight![0]!.decidedAt);
    expect(lease).toBe(120_000);
    expect(run.inFlightCalls()).toEqual([expect.objectContaining({ callId: 'w1', host: HOST_ID, arguments: { amount: 7 } })]);
    expect(fx.env.calls()).toEqual([]); // in flight, not yet at the server
    held.open();
    expect((await deciding).results.map((r) => r.status)).toEqual(['ok']);
    const after = (await store.get(run.id))!.state;
    expect(after.inFlight).toBeUndefined();
    expect(after.version).toBe(1);
    expect(run.inFlightCalls()).toEqual([]);
  });

  it('E8: the end of a call is merged into what another host wrote meanwhile (it decided another call of the run)', async () => {
    const store = new MemoryRunStore();
    const held = gate();
    const run = await fx.start({ policy: deferBoth() });
    await run.executeBatch({ ...batch(run, calls), batchId: 'b2' });
    await run.suspend({ store });
    const options = { store, service: fx.env.service, policy: policies.denyAll(), hooks: { before: [held.hook] } };
    const a = await NativeRun.resume(run.id, options);
    const b = await NativeRun.resume(run.id, { ...options, hooks: {} });
    try {
      const first = a.decide('b2', { a1: { approve: true } });
      await vi.waitFor(() => expect(held.reached).toEqual(['a1']), { timeout: 20_000 });
      // b read the run before a decided: its decide loses; read again, it decides the other call while a1 is in flight.
      await expect(b.decide('b2', { w1: { approve: true } })).rejects.toMatchObject({ code: 'revision_conflict' });
      const c = await NativeRun.resume(run.id, { ...options, hooks: {} });
      try {
        expect(c.inFlightCalls().map((p) => p.callId)).toEqual(['a1']);
        expect((await c.decide('b2', { w1: { approve: true } })).results.map((r) => r.status)).toEqual(['ok']);
        expect((await store.get(run.id))!.state.inFlight?.map((f) => f.approval.callId)).toEqual(['a1']); // a's call still runs
        held.open();
        expect((await first).results.map((r) => [r.callId, r.status])).toEqual([['a1', 'ok']]);
      } finally {
        await c.close();
      }
      const stored = (await store.get(run.id))!.state;
      expect(stored.inFlight).toBeUndefined(); // a's end, merged into c's write
      expect(stored.pending).toBeUndefined();
      // Both results are kept for a host deciding them again (decidedRetentionMs): c's, and a's merged beside it.
      expect(stored.decided?.map((d) => [d.callId, d.result.status]).sort()).toEqual([
        ['a1', 'ok'],
        ['w1', 'ok'],
      ]);
      expect(await b.decide('b2', { a1: { approve: true } })).toMatchObject({
        decidedElsewhere: true,
        results: [{ callId: 'a1', status: 'ok' }],
      });
      expect(
        fx.env
          .calls()
          .map((x) => x.tool)
          .sort(),
      ).toEqual(['add', 'withdraw']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('E8: recover() leaves a call whose lease still runs (its host may be alive)', async () => {
    const store = new MemoryRunStore();
    const held = gate();
    const run = await fx.start({ policy: deferBoth(), hooks: { before: [held.hook] } });
    await run.executeBatch({ ...batch(run, calls.slice(1)), batchId: 'b3' });
    await run.suspend({ store });
    const deciding = run.decide('b3', { w1: { approve: true } });
    await vi.waitFor(() => expect(held.reached).toEqual(['w1']), { timeout: 20_000 });
    const other = await NativeRun.resume(run.id, { store, service: fx.env.service, policy: policies.denyAll() });
    try {
      expect(await other.recover()).toEqual({ results: [], recovered: [] });
      expect((await store.get(run.id))!.state.inFlight).toHaveLength(1);
    } finally {
      await other.close();
      held.open();
      await deciding;
    }
    expect(fx.env.calls()).toEqual([{ tool: 'withdraw', arguments: { amount: 7 } }]); // once
  });
});

describe('a host killed mid-call (SIGKILL)', () => {
  it('E8: another host recovers: the idempotent call runs again once, the other ends interrupted, audited; nothing is lost', async () => {
    const run = await fx.start({ policy: deferBoth() });
    const file = path.join(fx.env.tmp.dir, 'runs.db');
    const markers = fs.mkdtempSync(path.join(fx.env.tmp.dir, 'markers-'));
    const store = new SqliteRunStore({ path: file });
    try {
      await run.executeBatch({ ...batch(run, calls), batchId: 'b-kill' });
      await run.suspend({ store });
      const document = (await fx.env.service.read({ kind: 'mcp', reference: 'tools/py' })).data;
      const host = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(REPO_ROOT, 'test/runtime/fixtures/decide-and-die.ts'),
          ...[file, JSON.stringify(document), markers, run.id, 'b-kill', '1000'],
        ],
        { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
      );
      const exited = once(host, 'exit');
      await vi.waitFor(() => expect(fs.readdirSync(markers).sort()).toEqual(['before-a1', 'before-w1']), { timeout: 60_000, interval: 50 });
      host.kill('SIGKILL');
      expect((await exited)[1]).toBe('SIGKILL');
      const left = (await store.get(run.id))!.state;
      expect(left.version).toBe(3);
      expect(left.inFlight?.map((c) => [c.approval.callId, c.host.split(':')[1]])).toEqual([
        ['a1', String(host.pid)],
        ['w1', String(host.pid)],
      ]);
      expect(fx.env.calls()).toEqual([]); // decided, recorded, never reached the server
      // The dead host's lease (1 s) runs out; then any host finds the calls.
      const until = Math.max(...left.inFlight!.map((c) => Date.parse(c.leaseUntil)));
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(until), { timeout: 30_000 });
      const audit: AuditEvent[] = [];
      const held = gate();
      const recovering = await NativeRun.resume(run.id, {
        store,
        service: fx.env.service,
        policy: policies.denyAll(),
        audit: { record: (e) => void audit.push(e) },
        hooks: { before: [held.hook] },
      });
      try {
        expect(recovering.inFlightCalls().map((c) => c.callId)).toEqual(['a1', 'w1']);
        const recovering1 = recovering.recover();
        // Claimed first: both calls are leased to this host in the record while it works, so if it died too they
        // would still be found; they leave the record only when they end.
        await vi.waitFor(() => expect(held.reached).toEqual(['a1']), { timeout: 20_000 });
        expect((await store.get(run.id))!.state.inFlight?.map((c) => [c.approval.callId, c.host])).toEqual([
          ['a1', HOST_ID],
          ['w1', HOST_ID],
        ]);
        held.open();
        const { results, recovered } = await recovering1;
        expect(recovered.map((r) => [r.batchId, r.result.callId, r.result.status, r.rerun])).toEqual([
          ['b-kill', 'w1', 'interrupted', false],
          ['b-kill', 'a1', 'ok', true],
        ]);
        expect(results).toEqual(recovered.map((r) => r.result)); // a BatchResult: its results, in the order they ended
        const interrupted = recovered[0]!.result;
        expect(interrupted.status !== 'ok' && interrupted.error).toMatchObject({
          code: 'interrupted',
          message: expect.stringMatching(/may or may not have run/),
        });
        expect(fx.env.calls()).toEqual([{ tool: 'add', arguments: { a: 1, b: 2 } }]); // withdraw never ran twice: not at all
        expect(audit.filter((e) => e.type === 'tool_call').map((e) => [e.callId, e.status])).toEqual(
          expect.arrayContaining([
            ['w1', 'interrupted'],
            ['a1', 'ok'],
          ]),
        );
        expect(await recovering.recover()).toEqual({ results: [], recovered: [] }); // once
      } finally {
        await recovering.close();
      }
      const stored = (await store.get(run.id))!.state;
      expect(stored.inFlight).toBeUndefined();
      expect(stored.pending).toBeUndefined();
    } finally {
      await store.close();
    }
  }, 120_000);
});

describe('E8: waiting runs are found by query, not a scan', () => {
  it('E8: list({ waiting: true }) reads the partial index of waiting runs (SQLite query plan), with or without an agent', async () => {
    const env = await setup({});
    const file = path.join(env.tmp.dir, 'runs.db');
    const store = new SqliteRunStore({ path: file });
    try {
      await store.migrate();
      const db = rawSqlite(file);
      try {
        const plan = (where: string) =>
          (db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM agt_runs WHERE ${where} ORDER BY run_id LIMIT -1`).all() as { detail: string }[])
            .map((r) => r.detail)
            .join('; ');
        // The statements SqliteRunStore.list builds for a waiting filter.
        expect(plan('format >= 2')).toMatch(/USING INDEX agt_runs_waiting\b/);
        expect(plan("format >= 2 AND agent = 'team/a'")).toMatch(/USING INDEX agt_runs_waiting_by_agent\b/);
        expect(plan('format >= 2')).not.toMatch(/SCAN agt_runs\b(?! USING)/);
      } finally {
        db.close();
      }
    } finally {
      await store.close();
      env.tmp.cleanup();
    }
  });
});
