/**
 * The per-call path (issue 49), `npm run bench -- per-call`: agt-mcp's
 * NativeRun against a bare SDK v2 `Client` over stdio, on the Python fixture
 * (2025) and on an SDK v2 server in both eras (2025: the default client;
 * 2026-07-28: `versionNegotiation: { mode: 'auto' }`). Each round starts a
 * fresh server for each side (the order alternating round by round), warms
 * up, then times sequential calls (one call a batch) and batches of 10
 * against 10 parallel bare calls. Ratios are medians of per-round ratios.
 * Targets: one call a batch ≤ 1.10×, a batch of 10 ≤ 1.15× (the issue's).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type McpServerConfig, MemoryStore, NativeRun, policies, ResourceService } from '../src/index.js';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.PER_CALL_ROUNDS ?? 7);
const SEQUENTIAL = 300;
const BATCHES = 40;
const WARMUP = 30;

interface Target {
  name: string;
  config: McpServerConfig & { command: string; args: string[]; cwd: string };
  modern: boolean;
  tool: string;
  args: Record<string, unknown>;
}

const v2 = { command: process.execPath, args: ['--import', 'tsx', path.join(root, 'test/mcp/fixtures/v2-server.ts'), '--stdio'], cwd: root };
const TARGETS: Target[] = [
  {
    name: 'Python fixture (2025)',
    config: { command: 'python3', args: [path.join(root, 'test/fixtures/mcp_server.py')], cwd: root, protocol: 'legacy' },
    modern: false,
    tool: 'echo',
    args: { message: 'x' },
  },
  { name: 'SDK v2 server, 2025', config: { ...v2, protocol: 'legacy' }, modern: false, tool: 'echo', args: { text: 'x' } },
  { name: 'SDK v2 server, 2026-07-28', config: { ...v2, protocol: '2026-07-28' }, modern: true, tool: 'echo', args: { text: 'x' } },
];

/** µs per call, sequential and in groups of 10. */
interface Sample {
  sequential: number;
  ten: number;
}

async function bare(target: Target): Promise<Sample> {
  const client = new Client({ name: 'bare', version: '1' }, target.modern ? { versionNegotiation: { mode: 'auto' } } : {});
  const { command, args, cwd } = target.config;
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'ignore' }));
  try {
    const call = () => client.callTool({ name: target.tool, arguments: target.args });
    for (let i = 0; i < WARMUP; i++) await call();
    let t = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) await call();
    const sequential = ((performance.now() - t) * 1000) / SEQUENTIAL;
    t = performance.now();
    for (let i = 0; i < BATCHES; i++) await Promise.all(Array.from({ length: 10 }, call));
    return { sequential, ten: ((performance.now() - t) * 1000) / BATCHES };
  } finally {
    await client.close();
  }
}

async function ours(target: Target): Promise<Sample> {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'bench/server', create: true, data: { mcpServers: { s: target.config } } });
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: ['bench/server'] } });
  const run = await NativeRun.start({
    agent: 'bench/agent',
    service,
    policy: policies.autoAllow('*'),
    timeouts: { handshakeMs: 60_000 },
    concurrency: 10,
  });
  try {
    const name = run.tools().find((t) => t.name.endsWith(`__${target.tool}`))?.name;
    if (name === undefined) throw new Error(`no ${target.tool} tool on ${target.name}`);
    let batchNo = 0;
    const batch = (size: number) => {
      batchNo += 1;
      const calls = Array.from({ length: size }, (_, i) => ({ callId: `c${i}`, name, arguments: target.args }));
      return run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${batchNo}`, calls });
    };
    for (let i = 0; i < WARMUP; i++) await batch(1);
    let t = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) await batch(1);
    const sequential = ((performance.now() - t) * 1000) / SEQUENTIAL;
    t = performance.now();
    for (let i = 0; i < BATCHES; i++) {
      const { results } = await batch(10);
      if (results.some((r) => r.status !== 'ok')) throw new Error(`a call failed on ${target.name}`);
    }
    return { sequential, ten: ((performance.now() - t) * 1000) / BATCHES };
  } finally {
    await run.close();
  }
}

/** Runs the per-call benchmark. */
export async function runPerCallBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const rows: string[] = [];
  for (const target of TARGETS) {
    const ratios = { sequential: [] as number[], ten: [] as number[] };
    const times = { bare: [] as Sample[], ours: [] as Sample[] };
    for (let round = 0; round < ROUNDS; round++) {
      // The order alternates, so a drift of the machine hits both sides alike.
      const first = round % 2 === 0 ? await bare(target) : await ours(target);
      const second = round % 2 === 0 ? await ours(target) : await bare(target);
      const [b, o] = round % 2 === 0 ? [first, second] : [second, first];
      times.bare.push(b);
      times.ours.push(o);
      ratios.sequential.push(o.sequential / b.sequential);
      ratios.ten.push(o.ten / b.ten);
    }
    const seq = median(ratios.sequential);
    const ten = median(ratios.ten);
    const us = (samples: Sample[], key: keyof Sample) => `${median(samples.map((s) => s[key])).toFixed(0)} µs`;
    rows.push(
      `| ${target.name} | ${us(times.bare, 'sequential')} | ${us(times.ours, 'sequential')} | ${seq.toFixed(2)}× | ${us(times.bare, 'ten')} | ${us(times.ours, 'ten')} | ${ten.toFixed(2)}× |`,
    );
    targets.push({ name: `${target.name}: one call a batch ≤ 1.10× a bare v2 Client`, ok: seq <= 1.1, detail: `${seq.toFixed(2)}×` });
    targets.push({ name: `${target.name}: a batch of 10 ≤ 1.15× ten parallel bare calls`, ok: ten <= 1.15, detail: `${ten.toFixed(2)}×` });
  }
  return {
    title: 'Per call over stdio (issue 49): NativeRun against a bare SDK v2 Client',
    targets,
    markdown: [
      `Medians of ${ROUNDS} rounds; each round a fresh server per side, ${WARMUP} warm-up calls, ${SEQUENTIAL} sequential calls (one call a batch), ${BATCHES} groups of 10 (one batch of 10 against \`Promise.all\` of 10 bare calls). Ratios: medians of per-round ratios.`,
      '',
      '| server | bare, per call | NativeRun, per call | ratio | bare, 10 parallel | NativeRun, batch of 10 | ratio |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  };
}
