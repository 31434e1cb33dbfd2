/**
 * A fleet of hosts on one PostgreSQL: four host processes find the
 * waiting runs by query and decide them in races; one kills itself (SIGKILL)
 * with a call in flight before the server saw it, one after the server ran it
 * but before its end was recorded. Once the dead hosts' leases ran out, this
 * process recovers what they left. Every approved call ends exactly once —
 * one final tool_call in the shared audit — a non-idempotent one reaches its
 * server at most once, and nothing is left pending or in flight. Real Python
 * server processes, the PostgreSQL `.ci/run` starts.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { NativeRun, policies, ResourceService, type ToolCall } from '../../src/index.js';
import { PostgresAuditStore, PostgresRunStore, PostgresStore } from '../../src/storage/postgres.js';
import { py, REPO_ROOT, setup } from '../support/index.js';

const PG = process.env.AGT_TEST_PG_URL;
const RUNS = 12;
const LEASE_MS = 1500;
const tables = {
  resources: `agt_fleet_res_${process.pid}`,
  runs: `agt_fleet_runs_${process.pid}`,
  audit: `agt_fleet_audit_${process.pid}`,
};

// A host process, started and connected ("ready"); `go()` lets it start, `ended` says how it ended (its exit signal).
async function host(killPoint: 'none' | 'before' | 'after', nth: number, offset: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO_ROOT, 'test/runtime/fixtures/fleet-host.ts'),
      ...[PG!, tables.resources, tables.runs, tables.audit, killPoint, String(nth), String(LEASE_MS), String(offset)],
    ],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const ended = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null }));
  await once(createInterface({ input: child.stdout! }), 'line'); // "ready"
  return { go: () => child.stdin!.end('go\n'), ended };
}

describe.skipIf(PG === undefined)('a fleet of hosts on one PostgreSQL (needs the server .ci/run starts)', () => {
  afterAll(async () => {
    if (PG === undefined) return;
    const { default: pg } = (await import('pg' as string)) as {
      default: { Pool: new (o: object) => { query(q: string): Promise<unknown>; end(): Promise<void> } };
    };
    const pool = new pg.Pool({ connectionString: PG });
    await pool.query(`DROP TABLE IF EXISTS ${tables.resources}, ${tables.runs}, ${tables.audit}`);
    await pool.end();
  });

  it('E8: 4 hosts race, 2 die mid-decide; after recover() every approved call ended once, none ran twice unless idempotent', async () => {
    const env = await setup({});
    const registry = new PostgresStore({ connectionString: PG!, table: tables.resources });
    const store = new PostgresRunStore({ connectionString: PG!, table: tables.runs });
    const audit = new PostgresAuditStore({ connectionString: PG!, table: tables.audit });
    try {
      const service = new ResourceService({ store: registry });
      const document = (await env.service.read({ kind: 'mcp', reference: 'tools/py' })).data;
      await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: document as never });
      await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
      // RUNS runs, each with add (idempotentHint) and withdraw (not idempotent) waiting for a human; the arguments name the run.
      const policy = policies.chain(policies.approval(py('withdraw')), policies.approval(py('add')), policies.autoAllow('*'));
      const runIds: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const run = await NativeRun.start({ agent: 'team/alice', service, policy });
        const calls: ToolCall[] = [
          { callId: 'a1', name: py('add'), arguments: { a: i, b: 1000 } },
          { callId: 'w1', name: py('withdraw'), arguments: { amount: i + 1 } },
        ];
        await run.executeBatch({ runId: run.id, agent: run.agent, batchId: 'b1', calls });
        await run.suspend({ store });
        runIds.push(run.id);
        await run.close();
      }
      expect(await store.list({ waiting: true })).toHaveLength(RUNS);

      // Four hosts, each starting at its own quarter of the waiting runs, then racing for the rest.
      const quarter = RUNS / 4;
      const hosts = await Promise.all([
        host('none', 0, 0),
        host('before', 2, quarter),
        host('after', 1, 2 * quarter),
        host('none', 0, 3 * quarter),
      ]);
      for (const h of hosts) h.go();
      expect(await Promise.all(hosts.map((h) => h.ended))).toEqual([
        { code: 0, signal: null },
        { code: null, signal: 'SIGKILL' },
        { code: null, signal: 'SIGKILL' },
        { code: 0, signal: null },
      ]);

      // What the dead hosts left in flight, once their leases ran out, is recovered here.
      const left = await store.list({ waiting: true });
      const until = Math.max(0, ...left.flatMap((r) => (r.state.inFlight ?? []).map((c) => Date.parse(c.leaseUntil))));
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(until), { timeout: 30_000 });
      let recovered = 0;
      for (const { runId } of left) {
        const run = await NativeRun.resume(runId, {
          store,
          service,
          policy: policies.denyAll(),
          audit: { record: (e) => audit.append(e) },
        });
        try {
          recovered += (await run.recover()).results.length;
        } finally {
          await run.close();
        }
      }
      expect(recovered).toBeGreaterThan(0); // the dead hosts left something
      expect(await store.list({ waiting: true })).toEqual([]); // nothing pending, nothing in flight

      // Exactly one end per approved call; a non-idempotent call at the server at most once.
      const calls = env.calls();
      for (const [i, runId] of runIds.entries()) {
        const ends = (await audit.query({ runId, type: 'tool_call' })) as { callId: string; status: string }[];
        expect(ends.map((e) => e.callId).sort(), runId).toEqual(['a1', 'w1']);
        const withdraws = calls.filter((c) => c.tool === 'withdraw' && (c.arguments as { amount: number }).amount === i + 1).length;
        const adds = calls.filter((c) => c.tool === 'add' && (c.arguments as { a: number }).a === i).length;
        const w1 = ends.find((e) => e.callId === 'w1')!.status;
        expect(withdraws).toBeLessThanOrEqual(1);
        if (w1 === 'ok') expect(withdraws).toBe(1);
        else expect(w1).toBe('interrupted');
        expect(ends.find((e) => e.callId === 'a1')!.status).toBe('ok');
        expect(adds).toBeGreaterThanOrEqual(1);
      }
      expect(calls.filter((c) => c.tool === 'withdraw').length).toBeLessThanOrEqual(RUNS);
    } finally {
      await Promise.all([registry.close(), store.close(), audit.close()]);
      env.tmp.cleanup();
    }
  }, 300_000);
});
