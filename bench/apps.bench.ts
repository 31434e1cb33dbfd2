/**
 * MCP Apps (issue 61), `npm run bench -- apps`: what a call an app makes
 * (run.callFromApp: a batch of one with the app as its origin, the visibility
 * check, the same pipeline) costs against the model's call of the same tool
 * (run.executeBatch, one call a batch), on the Python fixture over stdio. The
 * two alternate block by block in one run; the ratio is the median of the
 * per-round ratios. Target: ≤ 1.10×. Rendering is the host's, not measured.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../src/index.js';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.APPS_ROUNDS ?? 9);
const CALLS = 200;
const WARMUP = 50;

/** Runs the apps benchmark. */
export async function runAppsBench(): Promise<BenchReport> {
  const service = new ResourceService({ store: new MemoryStore() });
  const python = { command: 'python3', args: [path.join(root, 'test/fixtures/mcp_server.py'), '--feature', 'apps'], cwd: root };
  await service.write({ kind: 'mcp', reference: 'bench/apps', create: true, data: { mcpServers: { apps: python } } });
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: ['bench/apps'] } });
  const run = await NativeRun.start({ agent: 'bench/agent', service, apps: true, policy: policies.autoAllow('*') });
  const count = toolAlias('bench/apps', 'tally');
  const from = toolAlias('bench/apps', 'widget');
  let n = 0;
  const model = async () => {
    n += 1;
    const out = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: `m${n}`,
      calls: [{ callId: 'c', name: count, arguments: { n } }],
    });
    if (out.results[0]?.status !== 'ok') throw new Error('the model call failed');
  };
  const app = async () => {
    n += 1;
    const out = await run.callFromApp('tally', { n }, { from, batchId: `a${n}`, callId: 'c' });
    if (out.results[0]?.status !== 'ok') throw new Error('the app call failed');
  };
  const time = async (fn: () => Promise<void>) => {
    const t = performance.now();
    for (let i = 0; i < CALLS; i++) await fn();
    return (performance.now() - t) / CALLS;
  };
  try {
    for (let i = 0; i < WARMUP; i++) await Promise.all([model(), app()]);
    const modelMs: number[] = [];
    const appMs: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const first = round % 2 === 0;
      const a = first ? await time(model) : await time(app);
      const b = first ? await time(app) : await time(model);
      const [m, p] = first ? [a, b] : [b, a];
      modelMs.push(m);
      appMs.push(p);
      ratios.push(p / m);
    }
    const ratio = median(ratios);
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
    return {
      title: "MCP Apps: a call an app makes against the model's (issue 61)",
      markdown: [
        `| one call a batch, Python fixture over stdio (median of ${ROUNDS} rounds × ${CALLS} calls) | per call |`,
        '| --- | --- |',
        `| the model's call (run.executeBatch) | ${us(median(modelMs))} |`,
        `| the app's call (run.callFromApp) | ${us(median(appMs))} |`,
        `| ratio (median of per-round ratios) | ${ratio.toFixed(3)}× |`,
      ].join('\n'),
      targets: [{ name: "an app's call ≤ 1.10× the model's", ok: ratio <= 1.1, detail: `${ratio.toFixed(3)}×` }],
    };
  } finally {
    await run.close();
  }
}
