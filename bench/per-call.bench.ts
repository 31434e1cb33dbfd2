/**
 * The per-call path (issue 49), `npm run bench -- per-call`: agt-mcp's
 * NativeRun against a bare SDK v2 `Client` over stdio, on the Python fixture
 * (2025) and on an SDK v2 server in both eras (2025: the default client;
 * 2026-07-28: `versionNegotiation: { mode: 'auto' }`). Each round starts a
 * fresh server for each side (the order alternating round by round), warms
 * up, then times sequential calls (one call a batch) and batches of 10
 * against 10 parallel bare calls. Ratios are medians of per-round ratios.
 * Targets: one call a batch ≤ 1.10×, a batch of 10 ≤ 1.15× (the issue's).
 * It measures the built package (`dist/`, what a host imports: `npm run build`
 * first), not the sources under tsx, whose esbuild transform wraps every
 * named closure and would be counted against agt-mcp.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import fs from 'node:fs';
import type * as Api from '../src/index.js';
import type { McpServerConfig } from '../src/index.js';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.PER_CALL_ROUNDS ?? 9);
const SEQUENTIAL = 1000;
const BATCHES = 100;
const WARMUP = 50;
const BLOCKS = 10;

interface Target {
  name: string;
  config: McpServerConfig & { command: string; args: string[]; cwd: string };
  modern: boolean;
  tool: string;
  args: Record<string, unknown>;
}

const v2 = {
  command: process.execPath,
  args: ['--import', 'tsx', path.join(root, 'test/mcp/fixtures/v2-server.ts'), '--stdio'],
  cwd: root,
};
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

const built = path.join(root, 'dist/index.js');
async function api(): Promise<typeof Api> {
  if (!fs.existsSync(built)) throw new Error('bench per-call measures the built package: run npm run build first');
  return (await import(built)) as typeof Api;
}

/** µs per call, sequential and in groups of 10. */
interface Sample {
  sequential: number;
  ten: number;
}

/** One side of a round: a call, and ten calls at once (a batch of 10, or ten parallel bare calls). */
interface Side {
  one(): Promise<unknown>;
  ten(): Promise<unknown>;
  close(): Promise<void>;
}

async function bare(target: Target): Promise<Side> {
  const client = new Client({ name: 'bare', version: '1' }, target.modern ? { versionNegotiation: { mode: 'auto' } } : {});
  const { command, args, cwd } = target.config;
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'ignore' }));
  const call = () => client.callTool({ name: target.tool, arguments: target.args });
  return { one: call, ten: () => Promise.all(Array.from({ length: 10 }, call)), close: () => client.close() };
}

async function ours(target: Target): Promise<Side> {
  const { MemoryStore, NativeRun, policies, ResourceService } = await api();
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
  const name = run.tools().find((t) => t.name.endsWith(`__${target.tool}`))?.name;
  if (name === undefined) throw new Error(`no ${target.tool} tool on ${target.name}`);
  let batchNo = 0;
  const batch = async (size: number) => {
    batchNo += 1;
    const calls = Array.from({ length: size }, (_, i) => ({ callId: `c${i}`, name, arguments: target.args }));
    const { results } = await run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${batchNo}`, calls });
    if (results.some((r) => r.status !== 'ok')) throw new Error(`a call failed on ${target.name}`);
  };
  return { one: () => batch(1), ten: () => batch(10), close: () => run.close() };
}

// µs per operation of `op`, `count` times in a row.
async function timed(op: () => Promise<unknown>, count: number): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < count; i++) await op();
  return ((performance.now() - t) * 1000) / count;
}

// One round: both sides open at once, each on its own server; blocks of calls alternate between them, so a drift of
// the machine (or of a server's scheduling) falls on both alike.
async function round(target: Target, flip: boolean): Promise<{ bare: Sample; ours: Sample }> {
  const sides = flip ? [await ours(target), await bare(target)] : [await bare(target), await ours(target)];
  const [b, o] = flip ? [sides[1] as Side, sides[0] as Side] : [sides[0] as Side, sides[1] as Side];
  try {
    for (const side of sides) for (let i = 0; i < WARMUP; i++) await side.one();
    const sum = { bare: { sequential: 0, ten: 0 }, ours: { sequential: 0, ten: 0 } };
    for (let block = 0; block < BLOCKS; block++) {
      const first = (block + (flip ? 1 : 0)) % 2 === 0;
      for (const [key, side] of first
        ? ([
            ['bare', b],
            ['ours', o],
          ] as const)
        : ([
            ['ours', o],
            ['bare', b],
          ] as const)) {
        sum[key].sequential += await timed(side.one, SEQUENTIAL / BLOCKS);
        sum[key].ten += await timed(side.ten, BATCHES / BLOCKS);
      }
    }
    const per = (x: Sample): Sample => ({ sequential: x.sequential / BLOCKS, ten: x.ten / BLOCKS });
    return { bare: per(sum.bare), ours: per(sum.ours) };
  } finally {
    await Promise.all(sides.map((side) => side.close()));
  }
}

/** Runs the per-call benchmark. */
export async function runPerCallBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const rows: string[] = [];
  for (const target of TARGETS) {
    const ratios = { sequential: [] as number[], ten: [] as number[] };
    const times = { bare: [] as Sample[], ours: [] as Sample[] };
    for (let r = 0; r < ROUNDS; r++) {
      const { bare: b, ours: o } = await round(target, r % 2 === 1);
      times.bare.push(b);
      times.ours.push(o);
      ratios.sequential.push(o.sequential / b.sequential);
      ratios.ten.push(o.ten / b.ten);
    }
    const seq = median(ratios.sequential);
    const ten = median(ratios.ten);
    const us = (samples: Sample[], key: keyof Sample) => `${median(samples.map((s) => s[key])).toFixed(0)} µs`;
    const spread = (values: number[]) =>
      `${median(values).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
    rows.push(
      `| ${target.name} | ${us(times.bare, 'sequential')} | ${us(times.ours, 'sequential')} | ${spread(ratios.sequential)} | ${us(times.bare, 'ten')} | ${us(times.ours, 'ten')} | ${spread(ratios.ten)} |`,
    );
    targets.push({ name: `${target.name}: one call a batch ≤ 1.10× a bare v2 Client`, ok: seq <= 1.1, detail: `${seq.toFixed(2)}×` });
    targets.push({ name: `${target.name}: a batch of 10 ≤ 1.15× ten parallel bare calls`, ok: ten <= 1.15, detail: `${ten.toFixed(2)}×` });
  }
  return {
    title: 'Per call over stdio (issue 49): NativeRun against a bare SDK v2 Client',
    targets,
    markdown: [
      `Medians of ${ROUNDS} rounds. Each round opens both sides at once, each on a fresh server of its own, warms each up with ${WARMUP} calls, then alternates ${BLOCKS} blocks between them: ${SEQUENTIAL} sequential calls in all (one call a batch) and ${BATCHES} groups of 10 (one batch of 10 against \`Promise.all\` of 10 bare calls). Ratios: medians of per-round ratios. The built package (\`dist/\`) is measured.`,
      '',
      '| server | bare, per call | NativeRun, per call | ratio (range of the rounds) | bare, 10 parallel | NativeRun, batch of 10 | ratio (range of the rounds) |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  };
}
