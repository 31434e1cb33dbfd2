/**
 * Runtime costs.
 * - Pipeline overhead per call (issue 5): NativeRun.executeBatch with
 *   auto-allow and a no-op in-memory route (a delegate tool whose handler
 *   returns at once), against the compiled validator alone, for batches of 1,
 *   10 and 100 calls. Target: ≤ 1.3× validator-only + 5 µs per call.
 * - Refresh (issue 6): 8 Python mounts, one changed vs all changed, against
 *   connect+list of one server. Target: one-changed ≤ 1.3× connect+list.
 *   And the cost of suspend + resume against a fresh start.
 * - Output schemas, list_changed and timeouts (issue 12): bench/protocol.bench.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMcp, MemoryStore, NativeRun, policies, ResourceService, ToolSchemaRegistry } from '../src/index.js';
import { DELEGATE_INPUT_SCHEMA } from '../src/runtime/assembly/snapshot.js';
import { type BenchReport, formatNs, median } from './harness.js';
import { cancelRows, heapRows, listChangedRows, outputCheckRows } from './protocol.bench.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = path.join(root, 'test/fixtures/mcp_server.py');

async function pipelineRows(targets: BenchReport['targets']): Promise<string[]> {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: {} });
  const run = await NativeRun.start({
    agent: 'bench/agent',
    service,
    policy: policies.autoAllow('*'),
    delegates: [{ name: 'noop', targets: ['bench/other'], handler: async () => 'ok' }],
  });
  const validator = new ToolSchemaRegistry().compile(DELEGATE_INPUT_SCHEMA, { tool: 'noop' });
  const args = { agent: 'bench/other', task: 'do the thing', context: 'with some context' };
  const rows = [
    '| batch size | pipeline per call | validator alone per call | budget (1.3× + 5 µs) | within |',
    '| --- | --- | --- | --- | --- |',
  ];
  let batchNo = 0;
  for (const size of [1, 10, 100]) {
    const calls = Array.from({ length: size }, (_, i) => ({ callId: `c${i}`, name: 'noop', arguments: args }));
    const iterations = Math.max(20, Math.round(4000 / size));
    const pipeline: number[] = [];
    const alone: number[] = [];
    for (let round = 0; round < 7; round++) {
      let started = performance.now();
      for (let i = 0; i < iterations; i++) await run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${batchNo++}`, calls });
      pipeline.push(((performance.now() - started) * 1000) / (iterations * size));
      started = performance.now();
      for (let i = 0; i < iterations * size; i++) validator.validate(args);
      alone.push(((performance.now() - started) * 1000) / (iterations * size));
    }
    const p = median(pipeline);
    const v = median(alone);
    const budget = 1.3 * v + 5;
    rows.push(`| ${size} | ${formatNs(p * 1000)} | ${formatNs(v * 1000)} | ${formatNs(budget * 1000)} | ${p <= budget ? 'yes' : 'no'} |`);
    targets.push({
      name: `pipeline (batch of ${size}) ≤ 1.3× validator + 5 µs per call`,
      ok: p <= budget,
      detail: `${p.toFixed(2)} µs vs ${budget.toFixed(2)} µs`,
    });
  }
  await run.close();
  return rows;
}

async function refreshRows(targets: BenchReport['targets']): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-refresh-'));
  try {
    const service = new ResourceService({ store: new MemoryStore() });
    const refs = Array.from({ length: 8 }, (_, i) => `bench/py${i}`);
    const doc = (i: number, version: number) => ({
      mcpServers: { py: { command: 'python3', args: [server, '--name', `py${i}-v${version}`], cwd: dir } },
    });
    for (const [i, reference] of refs.entries()) await service.write({ kind: 'mcp', reference, create: true, data: doc(i, 0) });
    await service.write({ kind: 'agent', reference: 'bench/boss', create: true, data: { role: 'manager', mcps: refs } });
    const run = await NativeRun.start({ agent: 'bench/boss', service, policy: policies.autoAllow('*') });
    let version = 0;
    let batchNo = 0;
    const change = async (which: number[]) => {
      version += 1;
      const calls = which.map((i) => ({
        callId: `w${i}`,
        name: 'resource_write',
        arguments: { kind: 'mcp', reference: refs[i], data: doc(i, version) },
      }));
      const started = performance.now();
      const result = await run.executeBatch({ runId: run.id, agent: run.agent, batchId: `r${batchNo++}`, calls });
      if (result.refresh?.status !== 'applied') throw new Error('refresh failed in the benchmark');
      return performance.now() - started;
    };
    const one: number[] = [];
    const all: number[] = [];
    const connect: number[] = [];
    const resume: number[] = [];
    const start: number[] = [];
    for (let round = 0; round < 7; round++) {
      one.push(await change([round % 8]));
      all.push(await change([0, 1, 2, 3, 4, 5, 6, 7]));
      let started = performance.now();
      const c = await connectMcp(doc(0, 99));
      await c.listTools();
      connect.push(performance.now() - started);
      await c.close();
      const state = await run.suspend();
      started = performance.now();
      const resumed = await NativeRun.resume(state, { service, policy: policies.autoAllow('*') });
      resume.push(performance.now() - started);
      await resumed.close();
      started = performance.now();
      const fresh = await NativeRun.start({ agent: 'bench/boss', service, policy: policies.autoAllow('*') });
      start.push(performance.now() - started);
      await fresh.close();
    }
    await run.close();
    const ratio = median(one) / median(connect);
    targets.push({
      name: 'one-changed refresh (8 mounts) ≤ 1.3× connect+list of that server',
      ok: ratio <= 1.3,
      detail: `${ratio.toFixed(2)}×`,
    });
    return [
      '| 8 Python mounts | median of 7 |',
      '| --- | --- |',
      `| batch + refresh, one mount changed | ${formatNs(median(one) * 1e6)} |`,
      `| batch + refresh, all 8 changed | ${formatNs(median(all) * 1e6)} |`,
      `| connect + list of one server (baseline) | ${formatNs(median(connect) * 1e6)} |`,
      `| resume (suspend state → running, fingerprint checked) | ${formatNs(median(resume) * 1e6)} |`,
      `| fresh start of the same agent | ${formatNs(median(start) * 1e6)} |`,
      '',
      `One-changed refresh / connect+list: ${ratio.toFixed(2)}×; resume / start: ${(median(resume) / median(start)).toFixed(2)}×.`,
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the runtime benchmarks. */
export async function runRuntimeBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const markdown = [
    ...(await pipelineRows(targets)),
    '',
    ...(await refreshRows(targets)),
    '',
    '### Output schemas, list_changed, timeouts (issue 12)',
    '',
    ...outputCheckRows(targets),
    '',
    ...(await listChangedRows(targets)),
    '',
    ...(await cancelRows(targets)),
    '',
    '### A 1,000-call run holds constant memory (issue 26)',
    '',
    ...heapRows(targets),
  ].join('\n');
  return { title: 'NativeRun', markdown, targets };
}
