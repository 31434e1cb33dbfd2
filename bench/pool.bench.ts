/**
 * McpPool (issue 24): what a pool saves a host that serves many users.
 * - NativeRun.start of an agent with 8 Python mounts, warm from the pool
 *   (each mount leased, its tools listed again on the live connection)
 *   against the same start cold (8 servers started). Target: warm ≤ 2 ms
 *   median and ≥ 50× faster than cold.
 * - 100 concurrent runs of 10 echo calls each on one pooled server against
 *   one run making the same 1,000 calls (batches of 100). Target: ≤ 1.3×,
 *   with exactly one server process.
 * - Memory: the host's RSS plus its servers' RSS with 100 runs × 4 pooled
 *   mounts open, against one run with the same 4 mounts. Target: ≤ 1.2×.
 * - Durable approvals: suspend with 8 pending + resume + decide against
 *   suspend + resume (approvals.bench.ts). Target: ≤ 1.2×.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpPool, MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../src/index.js';
import { approvalRows } from './approvals.bench.js';
import { type BenchReport, median, medianStartMs } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = path.join(root, 'test/fixtures/mcp_server.py');

async function registry(mounts: number, dir: string, mark = `agt-bench-pool-${process.pid}`) {
  const service = new ResourceService({ store: new MemoryStore() });
  const refs = Array.from({ length: mounts }, (_, i) => `bench/py${i}`);
  for (const [i, reference] of refs.entries()) {
    await service.write({
      kind: 'mcp',
      reference,
      create: true,
      data: { mcpServers: { py: { command: 'python3', args: [server, '--name', `py${i}`, '--marker', mark], cwd: dir } } },
    });
  }
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: refs } });
  return { service, refs };
}

const ms = (n: number) => `${n.toFixed(2)} ms`;

/** Runs the pool benchmarks. */
export async function runPoolBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-pool-'));
  try {
    const { service } = await registry(8, dir);
    const policy = policies.autoAllow('*');
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const run = await NativeRun.start({ agent: 'bench/agent', service, policy });
      cold.push(performance.now() - t);
      await run.close();
    }
    await using pool = new McpPool({ service });
    await (await NativeRun.start({ agent: 'bench/agent', service, policy, pool, scope: 'bench' })).close(); // warms the 8 connections
    const warm = await medianStartMs(25, () => NativeRun.start({ agent: 'bench/agent', service, policy, pool, scope: 'bench' }));
    const speedup = median(cold) / warm;
    targets.push({ name: 'start with 8 warm pooled mounts ≤ 2 ms median', ok: warm <= 2, detail: ms(warm) });
    targets.push({ name: 'start with 8 warm pooled mounts ≥ 50× faster than cold', ok: speedup >= 50, detail: `${speedup.toFixed(0)}×` });

    const one = await registry(1, dir);
    await using shared = new McpPool({ service: one.service });
    const echo = toolAlias('bench/py0', 'echo');
    const calls = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => ({ callId: `${prefix}${i}`, name: echo, arguments: { message: 'hi' } }));
    const single = await NativeRun.start({ agent: 'bench/agent', service: one.service, policy, pool: shared, scope: 'many' });
    const alone: number[] = [];
    const many: number[] = [];
    for (let round = 0; round < 3; round++) {
      let t = performance.now();
      for (let b = 0; b < 10; b++)
        await single.executeBatch({ runId: single.id, agent: single.agent, batchId: `r${round}-${b}`, calls: calls(100, 'c') }, {});
      alone.push(performance.now() - t);
      const runs = await Promise.all(
        Array.from({ length: 100 }, () =>
          NativeRun.start({ agent: 'bench/agent', service: one.service, policy, pool: shared, scope: 'many' }),
        ),
      );
      t = performance.now();
      await Promise.all(runs.map((r) => r.executeBatch({ runId: r.id, agent: r.agent, batchId: `m${round}`, calls: calls(10, 'c') })));
      many.push(performance.now() - t);
      await Promise.all(runs.map((r) => r.close()));
    }
    await single.close();
    const ratio = median(many) / median(alone);
    const processes = shared.stats().keys.reduce((n, k) => n + k.starts, 0);
    targets.push({
      name: '100 concurrent runs × 10 calls on one pooled server ≤ 1.3× one run making the 1,000 calls',
      ok: ratio <= 1.3,
      detail: `${ratio.toFixed(2)}×`,
    });
    targets.push({ name: 'those 100 runs use exactly one server process', ok: processes === 1, detail: `${processes} started` });
    const approvals = await approvalRows(one.service, shared, dir);
    targets.push({
      name: 'suspend with 8 pending approvals + resume + decide ≤ 1.2× suspend + resume',
      ok: approvals.ratio <= 1.2,
      detail: `${approvals.ratio.toFixed(2)}×`,
    });
    const memory = await memoryRows(dir, policy);
    targets.push({
      name: 'RSS (host + servers) of 100 runs × 4 pooled mounts ≤ 1.2× one run with the same 4 mounts',
      ok: memory.ratio <= 1.2,
      detail: `${memory.ratio.toFixed(2)}×`,
    });
    const markdown = [
      ...memory.rows,
      '',
      '| 8 Python mounts | median |',
      '| --- | --- |',
      `| NativeRun.start, cold (8 servers started), of 5 | ${ms(median(cold))} |`,
      `| NativeRun.start, warm from the pool (8 leases, tool lists cached per connection), of 25 | ${ms(warm)} |`,
      '',
      `Warm / cold: ${speedup.toFixed(0)}× faster.`,
      '',
      '| 1,000 echo calls on one pooled server, median of 3 | time |',
      '| --- | --- |',
      `| one run, 10 batches of 100 | ${ms(median(alone))} |`,
      `| 100 concurrent runs, 10 calls each | ${ms(median(many))} |`,
      '',
      `100 runs / one run: ${ratio.toFixed(2)}×; server processes started: ${processes}.`,
      '',
      ...approvals.rows,
    ].join('\n');
    return { title: 'McpPool (issue 24)', markdown, targets };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The RSS of this process and of the living processes whose command line holds `mark`, in MB.
function rssMb(mark: string): number {
  let kb = process.memoryUsage().rss / 1024;
  for (const pid of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid)) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mark)) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // exited while we looked
    }
  }
  return kb / 1024;
}

async function memoryRows(dir: string, policy: ReturnType<typeof policies.autoAllow>): Promise<{ rows: string[]; ratio: number }> {
  const mark = `agt-bench-pool-rss-${process.pid}`;
  const { service } = await registry(4, dir, mark);
  await using pool = new McpPool({ service });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
  const first = await NativeRun.start({ agent: 'bench/agent', service, policy, pool, scope: 'rss' });
  globalThis.gc?.();
  await settle();
  const one = rssMb(mark);
  const more = await Promise.all(
    Array.from({ length: 99 }, () => NativeRun.start({ agent: 'bench/agent', service, policy, pool, scope: 'rss' })),
  );
  globalThis.gc?.();
  await settle();
  const hundred = rssMb(mark);
  await Promise.all([first, ...more].map((r) => r.close()));
  const ratio = hundred / one;
  return {
    rows: [
      '| 4 pooled Python mounts | RSS, host + servers |',
      '| --- | --- |',
      `| 1 run | ${one.toFixed(1)} MB |`,
      `| 100 runs in one scope | ${hundred.toFixed(1)} MB |`,
      '',
      `100 runs / 1 run: ${ratio.toFixed(2)}×.`,
    ],
    ratio,
  };
}
