/**
 * The per-call path (issues 49, 64), `npm run bench -- per-call`: agt-mcp's
 * NativeRun against a bare SDK v2 `Client` over stdio — one call a batch
 * against one `callTool`, and a batch of 10 against 10 parallel `callTool`s —
 * on the Python fixture (2025) and on an SDK v2 `McpServer`
 * (bench/kit-servers.ts `bare`) in both eras (2025: the default client;
 * 2026-07-28: `versionNegotiation: { mode: 'auto' }`). Each round starts a
 * fresh server for each side (which side starts first alternating round by
 * round), warms both up, then alternates blocks of calls between them. Wall
 * and the client's CPU (process.cpuUsage: both sides share this process, and
 * only one runs at a time) per operation; ratios are medians of per-round
 * ratios, with their range. Targets (issue 64): one call ≤ 1.05×, a batch of
 * 10 ≤ 1.10×. It measures the built package (`dist/`, what a host imports:
 * `npm run build` first; PER_CALL_DIST=<dir> another build), not the sources
 * under tsx. PER_CALL_ROUNDS (default 9), PER_CALL_ONLY=<substring of a
 * server's name>. PER_CALL_BARE_SESSION=own starts the bare side's server
 * in a session of its own (`setsid`), as agt-mcp starts every stdio server
 * (its own process group): on Linux with sched_autogroup each session is a
 * scheduling group of its own, and under load a server there answers later
 * (issue 64: the per-call gap under load was that, not the client).
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
const ROUNDS = Math.max(1, Number(process.env.PER_CALL_ROUNDS ?? 9));
const SEQUENTIAL = 600;
const BATCHES = 60;
const WARMUP = 50;
const BLOCKS = 6;
const ONE_TARGET = 1.05;
const TEN_TARGET = 1.1;

interface Target {
  name: string;
  config: McpServerConfig & { command: string; args: string[]; cwd: string };
  modern: boolean;
  tool: string;
  args: Record<string, unknown>;
}

const v2 = { command: process.execPath, args: ['--import', 'tsx', path.join(root, 'bench/kit-servers.ts'), 'bare'], cwd: root };
const ALL: Target[] = [
  {
    name: 'Python fixture, 2025',
    config: { command: 'python3', args: [path.join(root, 'test/fixtures/mcp_server.py')], cwd: root, protocol: 'legacy' },
    modern: false,
    tool: 'echo',
    args: { message: 'x' },
  },
  { name: 'SDK v2 server, 2025', config: { ...v2, protocol: 'legacy' }, modern: false, tool: 'add', args: { a: 1, b: 2 } },
  { name: 'SDK v2 server, 2026-07-28', config: { ...v2, protocol: '2026-07-28' }, modern: true, tool: 'add', args: { a: 1, b: 2 } },
];
const TARGETS = ALL.filter((t) => t.name.includes(process.env.PER_CALL_ONLY ?? ''));

const built = path.resolve(process.env.PER_CALL_DIST ?? path.join(root, 'dist'), 'index.js');
async function api(): Promise<typeof Api> {
  if (!fs.existsSync(built)) throw new Error(`bench per-call measures the built package: run npm run build first (no ${built})`);
  return (await import(built)) as typeof Api;
}

/** Wall and client CPU µs per operation. */
interface Cost {
  wall: number;
  cpu: number;
}
/** One side's costs in a round: one call, and ten at once. */
interface Sample {
  one: Cost;
  ten: Cost;
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
  // PER_CALL_BARE_SESSION=own: the bare side's server in a session of its own too (setsid), as agt-mcp's is.
  const own = process.env.PER_CALL_BARE_SESSION === 'own';
  const spawned = own ? { command: 'setsid', args: [command, ...args] } : { command, args };
  await client.connect(new StdioClientTransport({ ...spawned, cwd, stderr: 'ignore' }));
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

// Wall and CPU µs per operation of `op`, `count` times in a row.
async function timed(op: () => Promise<unknown>, count: number): Promise<Cost> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < count; i++) await op();
  const wall = ((performance.now() - t) * 1000) / count;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / count };
}

const add = (a: Cost, b: Cost): Cost => ({ wall: a.wall + b.wall, cpu: a.cpu + b.cpu });
const per = (x: Cost): Cost => ({ wall: x.wall / BLOCKS, cpu: x.cpu / BLOCKS });

// One round: both sides open at once, each on its own server; blocks of calls alternate between them, so a drift of
// the machine (or of a server's scheduling) falls on both alike.
async function round(target: Target, flip: boolean): Promise<{ bare: Sample; ours: Sample }> {
  const sides = flip ? [await ours(target), await bare(target)] : [await bare(target), await ours(target)];
  const [b, o] = flip ? [sides[1] as Side, sides[0] as Side] : [sides[0] as Side, sides[1] as Side];
  try {
    for (const side of sides) for (let i = 0; i < WARMUP; i++) await side.one();
    const zero = { wall: 0, cpu: 0 };
    const sum = { bare: { one: zero, ten: zero }, ours: { one: zero, ten: zero } };
    for (let block = 0; block < BLOCKS; block++) {
      const order = (block + (flip ? 1 : 0)) % 2 === 0 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const);
      for (const key of order) {
        const side = key === 'bare' ? b : o;
        sum[key].one = add(sum[key].one, await timed(side.one, SEQUENTIAL / BLOCKS));
        sum[key].ten = add(sum[key].ten, await timed(side.ten, BATCHES / BLOCKS));
      }
    }
    return { bare: { one: per(sum.bare.one), ten: per(sum.bare.ten) }, ours: { one: per(sum.ours.one), ten: per(sum.ours.ten) } };
  } finally {
    await Promise.all(sides.map((side) => side.close()));
  }
}

const spread = (values: number[]) => `${median(values).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
const us = (values: number[]) => `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

/** Runs the per-call benchmark. */
export async function runPerCallBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const rows: string[] = [];
  for (const target of TARGETS) {
    const samples: { bare: Sample; ours: Sample }[] = [];
    for (let r = 0; r < ROUNDS; r++) samples.push(await round(target, r % 2 === 1));
    for (const [what, key, goal] of [
      ['one call', 'one', ONE_TARGET],
      ['10 at once', 'ten', TEN_TARGET],
    ] as const) {
      const of = (side: 'bare' | 'ours', cost: keyof Cost) => samples.map((s) => s[side][key][cost]);
      const ratio = (cost: keyof Cost) => samples.map((s) => s.ours[key][cost] / s.bare[key][cost]);
      rows.push(
        `| ${target.name} | ${what} | ${us(of('bare', 'wall'))} | ${us(of('ours', 'wall'))} | ${spread(ratio('wall'))} | ${us(of('bare', 'cpu'))} | ${us(of('ours', 'cpu'))} | ${spread(ratio('cpu'))} |`,
      );
      const wall = median(ratio('wall'));
      const against = key === 'one' ? 'a bare v2 Client' : 'ten parallel bare calls';
      const name = `${target.name}: ${key === 'one' ? 'one call' : 'a batch of 10'} ≤ ${goal.toFixed(2)}× ${against} (wall)`;
      targets.push({ name, ok: wall <= goal, detail: `${wall.toFixed(2)}×, CPU ${median(ratio('cpu')).toFixed(2)}×` });
    }
  }
  return {
    title: 'Per call over stdio (issues 49, 64): NativeRun against a bare SDK v2 Client',
    targets,
    markdown: [
      `Medians of ${ROUNDS} rounds, with their range. Each round opens both sides at once, each on a fresh server of its own, warms each up with ${WARMUP} calls, then alternates ${BLOCKS} blocks between them: ${SEQUENTIAL} sequential calls in all (one call a batch against one \`callTool\`) and ${BATCHES} groups of 10 (one batch of 10 against \`Promise.all\` of 10 bare calls). µs per operation: wall, and the client's CPU (\`process.cpuUsage\`, all threads of the client). Ratios: medians of per-round ratios. The built package (\`dist/\`) is measured.`,
      '',
      '| server | operation | bare wall µs | NativeRun wall µs | wall ratio | bare CPU µs | NativeRun CPU µs | CPU ratio |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  };
}
