/**
 * Probe time of McpProber against a bare SDK v2 `Client` doing connect +
 * tools/list + close on the same servers (`npm run bench -- probe`). Each
 * round runs one of each, the order alternating round by round; the table
 * gives the medians of ≥ 9 rounds with their range, wall time and the
 * client's CPU time (process.cpuUsage) per probe. The Python fixture is
 * probed pinned to 2025 and with no remembered era (`auto`: a
 * server/discover first), each against the bare client's default (2025);
 * one more row puts the bare client in `auto` mode too, and where Linux lets
 * agt-mcp move each server into a cgroup of its own, one more moves the bare
 * client's server alike (the kernel's cost of the move on both sides).
 * Then 8 probes in parallel against the slowest single probe. Targets
 * (issue 64): probe ≤ 1.10× the bare client; 8 parallel probes ≤ 1.5× the
 * slowest single probe. It measures the built package (`dist/`, what a host
 * imports: `npm run build` first), as bench per-call does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type * as Api from '../src/index.js';
import { type StdioServerConfig } from '../src/config.js';
import { createServerCgroup, inCgroup } from '../src/mcp/process/cgroup.js';
import { type BenchReport, formatNs, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Math.max(9, Number(process.env.PROBE_ROUNDS ?? 9));

const built = path.join(root, 'dist/index.js');
async function api(): Promise<typeof Api> {
  if (!fs.existsSync(built)) throw new Error('bench probe measures the built package: run npm run build first');
  return (await import(built)) as typeof Api;
}

/** The servers both probe benches start: two reference servers and the Python fixture. */
export function servers(cwd: string): Record<string, StdioServerConfig> {
  const ref = (name: string) => path.join(root, 'node_modules/@modelcontextprotocol', `server-${name}`, 'dist/index.js');
  return {
    everything: { command: process.execPath, args: [ref('everything'), 'stdio'], cwd },
    memory: { command: process.execPath, args: [ref('memory')], cwd, env: { MEMORY_FILE_PATH: path.join(cwd, 'memory.jsonl') } },
    python: { command: 'python3', args: [path.join(root, 'test/fixtures/mcp_server.py')], cwd },
  };
}

// CPU of this process and its reaped children (the servers), in ms (Linux).
function cpuMsWithChildren(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]); // utime stime cutime cstime
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** Wall and client CPU milliseconds of one operation. */
interface Sample {
  wall: number;
  cpu: number;
}

async function timed(op: () => Promise<void>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await op();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

/** How the bare client runs: its default (2025), `auto` (server/discover first), or its server in a cgroup of its own. */
type Bare = 'default' | 'auto' | 'cgroup';

// The bare SDK v2 client: its default speaks 2025 (initialize only); `auto` probes the era with server/discover first;
// `cgroup` starts its server the way agt-mcp does on Linux (moved into a fresh cgroup2 before exec), to show what the
// kernel's move costs apart from the client.
function bareSdk(config: StdioServerConfig, mode: Bare): Promise<Sample> {
  const cgroup = mode === 'cgroup' ? createServerCgroup() : undefined;
  const program =
    cgroup === undefined ? { command: config.command, args: config.args ?? [] } : inCgroup(cgroup, config.command, config.args ?? []);
  return timed(async () => {
    const client = new Client({ name: 'bench', version: '1.0.0' }, mode === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {});
    const transport = new StdioClientTransport({
      command: program.command,
      args: program.args,
      ...(config.cwd ? { cwd: config.cwd } : {}),
      ...(config.env ? { env: config.env } : {}),
      stderr: 'pipe',
    });
    await client.connect(transport);
    await client.listTools();
    await client.close();
  }).finally(async () => {
    // The SDK's close may return before its server is reaped: the cgroup is removed once it is empty (at most ~2 s).
    for (let i = 0; cgroup !== undefined && cgroup.procs().length > 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    cgroup?.remove();
  });
}

function ours(prober: Api.McpProber, config: StdioServerConfig): Promise<Sample> {
  return timed(async () => {
    const report = await prober.probe({ mcpServers: { s: config } });
    if (!report.ok) throw new Error('bench server failed its probe');
  });
}

const ms = (values: number[]) => `${median(values).toFixed(1)} ms (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;

/** Runs the probe benchmarks. */
export async function runProbeBench(): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-probe-'));
  try {
    const configs = servers(dir);
    const { McpProber } = await api();
    const prober = new McpProber();
    const rows = [
      `| server | McpProber probe: wall | bare SDK v2 connect+list+close: wall | wall ratio | probe: client CPU | bare: client CPU | CPU ratio |`,
      '| --- | --- | --- | --- | --- | --- | --- |',
    ];
    const targets: BenchReport['targets'] = [];
    const singles: Record<string, number> = {};
    const { python, everything, memory } = configs as Record<'python' | 'everything' | 'memory', StdioServerConfig>;
    // Each probe against the bare client's default (2025, initialize only); the last row against the bare client's own era probe.
    const cases: [string, StdioServerConfig, Bare][] = [
      ['python, 2025 pinned', { ...python, protocol: 'legacy' }, 'default'],
      ['python, no remembered era (auto)', python, 'default'],
      ['everything (auto)', everything, 'default'],
      ['memory (auto)', memory, 'default'],
      ['python (auto), bare client also auto', python, 'auto'],
    ];
    // Where agt-mcp moves each server into a cgroup of its own (Linux, cgroup2 delegated), the same against a bare client
    // whose server is moved alike: the kernel's cost of the move (an RCU grace period, ~8 ms) falls on both.
    const probeCgroup = createServerCgroup();
    if (probeCgroup !== undefined) {
      probeCgroup.remove();
      cases.push(['python, 2025 pinned, bare server in a cgroup too', { ...python, protocol: 'legacy' }, 'cgroup']);
    }
    for (const [name, config, mode] of cases) {
      const a: Sample[] = [];
      const b: Sample[] = [];
      await ours(prober, config); // warm the file cache and the code for both
      await bareSdk(config, mode);
      for (let r = 0; r < ROUNDS; r++) {
        if (r % 2 === 0) {
          b.push(await bareSdk(config, mode));
          a.push(await ours(prober, config));
        } else {
          a.push(await ours(prober, config));
          b.push(await bareSdk(config, mode));
        }
      }
      const wall = (xs: Sample[]) => xs.map((x) => x.wall);
      const cpu = (xs: Sample[]) => xs.map((x) => x.cpu);
      const ratio = median(wall(a)) / median(wall(b));
      const cpuRatio = median(cpu(a)) / median(cpu(b));
      singles[name] = median(wall(a));
      rows.push(
        `| ${name} | ${ms(wall(a))} | ${ms(wall(b))} | ${ratio.toFixed(2)}× | ${ms(cpu(a))} | ${ms(cpu(b))} | ${cpuRatio.toFixed(2)}× |`,
      );
      if (mode !== 'auto')
        targets.push({
          name: `probe (${name}) ≤ 1.10× bare SDK v2`,
          ok: ratio <= 1.1,
          detail: `${ratio.toFixed(2)}× wall, ${cpuRatio.toFixed(2)}× client CPU`,
        });
    }
    rows.push(
      '',
      `Medians of ${ROUNDS} alternating rounds (range in brackets); client CPU is this process's (process.cpuUsage), not the server's.`,
    );
    // 8 servers at once: 3 everything, 3 memory, 2 python.
    const eight = [
      ...Array(3).fill(configs.everything),
      ...Array(3).fill(configs.memory),
      ...Array(2).fill(configs.python),
    ] as StdioServerConfig[];
    const parallel: number[] = [];
    const parallelBare: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < 5; r++) {
      const cpuBefore = cpuMsWithChildren();
      let started = performance.now();
      await Promise.all(eight.map((config) => ours(prober, config)));
      parallel.push(performance.now() - started);
      cpu.push(cpuMsWithChildren() - cpuBefore);
      started = performance.now();
      await Promise.all(eight.map((config) => bareSdk(config, 'default')));
      parallelBare.push(performance.now() - started);
    }
    const slowest = Math.max(...Object.values(singles));
    const cores = os.availableParallelism();
    const floor = median(cpu) / cores; // no client can beat the CPU the servers need
    const pRatio = median(parallel) / slowest;
    const floorRatio = median(parallel) / Math.max(slowest, floor);
    const bareRatio = median(parallel) / median(parallelBare);
    targets.push({
      name: '8 parallel probes ≤ 1.5× the slowest single probe',
      ok: pRatio <= 1.5,
      detail: `${pRatio.toFixed(2)}× (the CPU floor alone is ${(floor / slowest).toFixed(2)}× on ${cores} cores)`,
    });
    targets.push({
      name: '8 parallel probes ≤ 1.5× max(slowest single probe, CPU floor)',
      ok: floorRatio <= 1.5,
      detail: `${floorRatio.toFixed(2)}×`,
    });
    targets.push({
      name: '8 parallel probes ≤ 1.15× 8 parallel bare SDK connects',
      ok: bareRatio <= 1.15,
      detail: `${bareRatio.toFixed(2)}×`,
    });
    const markdown = [
      ...rows,
      '',
      '| 8 servers in parallel (3 everything, 3 memory, 2 python; auto), median of 5 | time |',
      '| --- | --- |',
      `| McpProber, 8 probes at once | ${formatNs(median(parallel) * 1e6)} |`,
      `| bare SDK, 8 connect+list+close at once | ${formatNs(median(parallelBare) * 1e6)} |`,
      `| slowest single probe | ${formatNs(slowest * 1e6)} |`,
      `| CPU the 8 probes need (client + servers) / ${cores} cores | ${formatNs(floor * 1e6)} |`,
    ].join('\n');
    return { title: 'McpProber', markdown, targets };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
