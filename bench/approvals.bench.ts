/**
 * Durable approvals (issue 24): what carrying 8 pending approvals through a
 * suspend and resume, and deciding them, costs against today's suspend +
 * resume of the same run. SQLite run store (a real file); the run's one
 * Python mount started fresh on resume (no pool), and again with a pool
 * (resume then costs about a millisecond, so the 8 approved calls weigh more).
 * Target: ≤ 1.2× without the pool.
 */
import path from 'node:path';
import { type McpPool, NativeRun, policies, type ResourceService, toolAlias } from '../src/index.js';
import { SqliteRunStore } from '../src/storage/sqlite.js';
import { median } from './harness.js';

const ms = (n: number) => `${n.toFixed(2)} ms`;

/** Median suspend + resume, and suspend with 8 pending + resume + decide, of `bench/agent` (one mount, bench/py0). */
async function measurePair(service: ResourceService, store: SqliteRunStore, pool: McpPool | undefined, rounds: number) {
  const echo = toolAlias('bench/py0', 'echo');
  const policy = policies.chain(policies.approval(echo), policies.autoAllow('*'));
  const options = { service, policy, ...(pool ? { pool, scope: 'approvals' } : {}) };
  const plain: number[] = [];
  const pending: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const run = await NativeRun.start({ agent: 'bench/agent', ...options });
    let t = performance.now();
    await run.suspend({ store });
    const again = await NativeRun.resume(run.id, { store, ...options });
    plain.push(performance.now() - t);
    await Promise.all([run.close(), again.close()]);

    const waiting = await NativeRun.start({ agent: 'bench/agent', ...options });
    const calls = Array.from({ length: 8 }, (_, i) => ({ callId: `c${i}`, name: echo, arguments: { message: `m${i}` } }));
    const out = await waiting.executeBatch({ runId: waiting.id, agent: waiting.agent, batchId: 'b', calls });
    if (out.pending?.length !== 8) throw new Error('expected 8 pending approvals');
    t = performance.now();
    await waiting.suspend({ store });
    const resumed = await NativeRun.resume(waiting.id, { store, ...options });
    const decided = await resumed.decide('b', Object.fromEntries(calls.map((c) => [c.callId, { approve: true as const }])));
    pending.push(performance.now() - t);
    if (decided.results.some((r) => r.status !== 'ok')) throw new Error('expected 8 approved calls to succeed');
    await Promise.all([waiting.close(), resumed.close()]);
  }
  return { plain: median(plain), pending: median(pending) };
}

/** The approvals rows of the pool report, and the ratio without a pool (the target's). */
export async function approvalRows(service: ResourceService, pool: McpPool, dir: string): Promise<{ rows: string[]; ratio: number }> {
  const store = new SqliteRunStore({ path: path.join(dir, 'approvals.db') });
  try {
    const fresh = await measurePair(service, store, undefined, 7);
    const pooled = await measurePair(service, store, pool, 25);
    const ratio = fresh.pending / fresh.plain;
    return {
      rows: [
        '| one Python mount, SQLite run store | suspend + resume | suspend with 8 pending + resume + decide (8 approved calls) | ratio |',
        '| --- | --- | --- | --- |',
        `| server started on resume (median of 7) | ${ms(fresh.plain)} | ${ms(fresh.pending)} | ${ratio.toFixed(2)}× |`,
        `| pooled (median of 25) | ${ms(pooled.plain)} | ${ms(pooled.pending)} | ${(pooled.pending / pooled.plain).toFixed(2)}× |`,
      ],
      ratio,
    };
  } finally {
    await store.close();
  }
}
