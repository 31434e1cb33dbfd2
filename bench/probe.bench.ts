/**
 * Probe time of McpProber against a bare SDK connect + listTools + close on the
 * same servers, alternated in one run (median of the rounds), and 8 probes in
 * parallel against the slowest single probe. Targets (issue 4): prober ≤ 1.15×
 * the bare SDK; 8 parallel probes ≤ 1.5× the slowest single probe.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpProber } from '../src/index.js';
import { type StdioServerConfig } from '../src/config.js';
import { type BenchReport, formatNs, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = 7;

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

async function bareSdk(config: StdioServerConfig): Promise<number> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    cwd: config.cwd,
    ...(config.env ? { env: config.env } : {}),
    stderr: 'pipe',
  });
  await client.connect(transport);
  await client.listTools();
  await client.close();
  return performance.now() - started;
}

async function ours(prober: McpProber, config: StdioServerConfig): Promise<number> {
  const started = performance.now();
  const report = await prober.probe({ mcpServers: { s: config } });
  if (!report.ok) throw new Error('bench server failed its probe');
  return performance.now() - started;
}

/** Runs the probe benchmarks. */
export async function runProbeBench(): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-probe-'));
  try {
    const configs = servers(dir);
    const prober = new McpProber();
    const rows = ['| server | McpProber probe | bare SDK connect+list+close | ratio |', '| --- | --- | --- | --- |'];
    const targets: BenchReport['targets'] = [];
    const singles: Record<string, number> = {};
    for (const [name, config] of Object.entries(configs)) {
      const a: number[] = [];
      const b: number[] = [];
      await ours(prober, config); // warm the file cache for both
      for (let r = 0; r < ROUNDS; r++) {
        b.push(await bareSdk(config));
        a.push(await ours(prober, config));
      }
      const ratio = median(a) / median(b);
      singles[name] = median(a);
      rows.push(`| ${name} | ${formatNs(median(a) * 1e6)} | ${formatNs(median(b) * 1e6)} | ${ratio.toFixed(2)}× |`);
      targets.push({ name: `probe (${name}) ≤ 1.15× bare SDK`, ok: ratio <= 1.15, detail: `${ratio.toFixed(2)}×` });
    }
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
      await Promise.all(eight.map((config) => bareSdk(config)));
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
      '| 8 servers in parallel (3 everything, 3 memory, 2 python), median of 5 | time |',
      '| --- | --- |',
      `| McpProber, 8 probes at once | ${formatNs(median(parallel) * 1e6)} |`,
      `| bare SDK, 8 connect+list+close at once | ${formatNs(median(parallelBare) * 1e6)} |`,
      `| slowest single probe (everything) | ${formatNs(slowest * 1e6)} |`,
      `| CPU the 8 probes need (client + servers) / ${cores} cores | ${formatNs(floor * 1e6)} |`,
    ].join('\n');
    return { title: 'McpProber', markdown, targets };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
