/**
 * The pipeline's cost per call in two trees, alternately, for a refactor's
 * "not slower than before": `git worktree add /tmp/base <rev>` (with a
 * node_modules link), then `npx tsx bench/pipeline-ab.ts /tmp/base` from this
 * tree. The same setup as `npm run bench -- runtime` (a delegate that returns
 * at once, auto-allow); medians of 9 rounds per tree and run, 3 runs each
 * (AB_RUNS=N for more). AB_SETUP=hooked: a policy that answers through a
 * promise (policies.human) and one before and one after hook, so the frozen
 * arguments, the permission request and both hook stages are paid for.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Api from '../src/index.js';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const base = process.argv[2];
const SIZES = [1, 10, 100];

async function measure(root: string): Promise<number[]> {
  const { MemoryStore, NativeRun, policies, ResourceService } = (await import(path.join(root, 'src/index.ts'))) as typeof Api;
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: {} });
  const hooked = process.env.AB_SETUP === 'hooked';
  const run = await NativeRun.start({
    agent: 'bench/agent',
    service,
    policy: hooked ? policies.human(async () => true) : policies.autoAllow('*'),
    ...(hooked ? { hooks: { before: [() => undefined], after: [() => undefined] } } : {}),
    delegates: [{ name: 'noop', targets: ['bench/other'], handler: async () => 'ok' }],
  });
  const args = { agent: 'bench/other', task: 'do the thing', context: 'with some context' };
  let batchNo = 0;
  const perCall: number[] = [];
  for (const size of SIZES) {
    // `id`: the name every version of the batch accepts.
    const calls = Array.from({ length: size }, (_, i) => ({ callId: `c${i}`, name: 'noop', arguments: args }));
    const iterations = Math.max(20, Math.round(4000 / size));
    const rounds: number[] = [];
    for (let round = 0; round < 9; round++) {
      const started = performance.now();
      for (let i = 0; i < iterations; i++) await run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${batchNo++}`, calls });
      rounds.push(((performance.now() - started) * 1000) / (iterations * size));
    }
    perCall.push(rounds.sort((a, b) => a - b)[4] as number);
  }
  await run.close();
  return perCall;
}

if (process.argv[3] === '--child') {
  console.log(JSON.stringify(await measure(base as string)));
} else {
  if (base === undefined) throw new Error('usage: npx tsx bench/pipeline-ab.ts <base tree>');
  const once = (root: string) =>
    JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), root, '--child'], { encoding: 'utf8' }),
    ) as number[];
  const results: Record<'base' | 'this', number[][]> = { base: [], this: [] };
  const runs = Number(process.env.AB_RUNS ?? 3); // more runs for a noisy machine
  for (let i = 0; i < runs; i++) {
    results.base.push(once(path.resolve(base)));
    results.this.push(once(here));
  }
  const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  console.log('| batch size | base per call | this tree per call | this / base |');
  console.log('| --- | --- | --- | --- |');
  SIZES.forEach((size, i) => {
    const b = med(results.base.map((r) => r[i] as number));
    const t = med(results.this.map((r) => r[i] as number));
    console.log(`| ${size} | ${b.toFixed(2)} µs | ${t.toFixed(2)} µs | ${(t / b).toFixed(2)}× |`);
  });
}
