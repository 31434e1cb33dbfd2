/**
 * `agt mcp probe` against the library (issue 17); `agt mcp call` and `agt mcp list --probe` (issue 28,
 * below): the wall time of the CLI
 * process (start to exit, the close grace no longer waited out) against
 *  - the same probe by a fresh node process that imports the built library
 *    and calls McpProber (same start-up and module loading: the fair
 *    baseline for a command), target ≤ 1.3×;
 *  - the library probe's own time inside a warm process (McpProber.probe),
 *    reported: the gap is node's start and loading the SDK, which any command
 *    pays before it can speak MCP.
 * Alternated in one run, median of the rounds. Needs `npm run build` (dist/).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpProber } from '../src/index.js';
import { type StdioServerConfig } from '../src/config.js';
import { type BenchReport, formatNs, median } from './harness.js';
import { servers } from './probe.bench.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(root, 'dist', 'cli.js');
const ROUNDS = 7;

function timedProcess(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env, cwd: root }, (error) => (error ? reject(error) : resolve(performance.now() - started)));
  });
}

/** Runs the CLI probe benchmark. */
export async function runCliBench(): Promise<BenchReport> {
  if (!fs.existsSync(CLI)) throw new Error('the CLI bench needs the built package: run npm run build first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-cli-'));
  try {
    const env = { ...process.env, AGT_HOME: dir };
    const configs = servers(dir);
    const prober = new McpProber();
    const script = path.join(dir, 'library-probe.mjs');
    fs.writeFileSync(
      script,
      `import { McpProber } from ${JSON.stringify(path.join(root, 'dist', 'index.js'))};\nconst report = await new McpProber().probe(JSON.parse(process.argv[2]));\nif (!report.ok) process.exit(1);\n`,
    );
    const rows = [
      '| server | `agt mcp probe` wall | fresh process, library probe | library probe in a warm process | CLI ÷ fresh | CLI ÷ warm |',
      '| --- | --- | --- | --- | --- | --- |',
    ];
    const targets: BenchReport['targets'] = [];
    for (const [name, config] of Object.entries(configs)) {
      const document = { mcpServers: { [name]: config } };
      fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(document));
      execFileSync(process.execPath, [CLI, 'mcp', 'create', `bench/${name}`, '--from', path.join(dir, `${name}.json`)], {
        env,
        stdio: 'ignore',
      });
      const cli: number[] = [];
      const fresh: number[] = [];
      const warm: number[] = [];
      await timedProcess([CLI, 'mcp', 'probe', `bench/${name}`], env); // warm the file cache
      for (let r = 0; r < ROUNDS; r++) {
        cli.push(await timedProcess([CLI, 'mcp', 'probe', `bench/${name}`], env));
        fresh.push(await timedProcess([script, JSON.stringify(document)], env));
        const started = performance.now();
        await prober.probe(document);
        warm.push(performance.now() - started);
      }
      const [c, f, w] = [median(cli), median(fresh), median(warm)];
      rows.push(
        `| ${name} | ${formatNs(c * 1e6)} | ${formatNs(f * 1e6)} | ${formatNs(w * 1e6)} | ${(c / f).toFixed(2)}× | ${(c / w).toFixed(2)}× |`,
      );
      targets.push({
        name: `agt mcp probe (${name}) ≤ 1.3× the library probe in a fresh process`,
        ok: c / f <= 1.3,
        detail: `${(c / f).toFixed(2)}× (${(c / w).toFixed(2)}× a warm in-process probe)`,
      });
    }
    const call = await callBench(dir, env, configs.python as StdioServerConfig);
    const list = await listProbeBench(dir, env, configs);
    return {
      title: 'agt mcp probe, call and list --probe (CLI)',
      markdown: [rows.join('\n'), '', call.markdown, '', list.markdown].join('\n'),
      targets: [...targets, ...call.targets, ...list.targets],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type Part = Pick<BenchReport, 'markdown' | 'targets'>;

/**
 * `agt mcp call` (issue 28) against a fresh node process that imports the built library and makes the
 * same call: connectMcp, tools/list, the tool's schema compiled and the arguments validated, callTool, close.
 */
async function callBench(dir: string, env: NodeJS.ProcessEnv, python: StdioServerConfig): Promise<Part> {
  const document = { mcpServers: { py: python } };
  const script = path.join(dir, 'library-call.mjs');
  fs.writeFileSync(
    script,
    `import { connectMcp, ToolSchemaRegistry } from ${JSON.stringify(path.join(root, 'dist', 'index.js'))};
const c = await connectMcp(JSON.parse(process.argv[2]));
const tool = (await c.listTools()).find((t) => t.name === 'add');
const args = { a: 2, b: 3 };
if (!new ToolSchemaRegistry().compile(tool.inputSchema, { tool: 'add' }).validate(args).ok) process.exit(2);
const result = await c.callTool('add', args);
await c.close();
process.stdout.write(JSON.stringify(result.content) + '\\n');
`,
  );
  const cli: number[] = [];
  const fresh: number[] = [];
  const callArgs = [CLI, 'mcp', 'call', 'bench/python', 'add', '--arg', 'a=2', '--arg', 'b=3'];
  await timedProcess(callArgs, env); // warm the file cache
  for (let r = 0; r < ROUNDS; r++) {
    cli.push(await timedProcess(callArgs, env));
    fresh.push(await timedProcess([script, JSON.stringify(document)], env));
  }
  const [c, f] = [median(cli), median(fresh)];
  return {
    markdown: [
      '| `agt mcp call bench/python add --arg a=2 --arg b=3` wall | fresh process, library call | CLI ÷ fresh |',
      '| --- | --- | --- |',
      `| ${formatNs(c * 1e6)} | ${formatNs(f * 1e6)} | ${(c / f).toFixed(2)}× |`,
    ].join('\n'),
    targets: [{ name: 'agt mcp call ≤ 1.1× the same library call in a fresh process', ok: c / f <= 1.1, detail: `${(c / f).toFixed(2)}×` }],
  };
}

// CPU of this process and its reaped children (the CLI processes and their servers), in ms (Linux).
function cpuMsWithChildren(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10; // utime stime cutime cstime; USER_HZ 100
}

/**
 * `agt mcp list --probe` of 8 servers (3 everything, 3 memory, 2 python) against the slowest single
 * `agt mcp probe` and the CPU floor (the CPU the 8 probes need, over the cores), measured in the same run.
 * Target: wall ≤ 1.3 × the slowest single probe + the CPU floor.
 */
async function listProbeBench(dir: string, env: NodeJS.ProcessEnv, configs: Record<string, StdioServerConfig>): Promise<Part> {
  const home = path.join(dir, 'eight');
  fs.mkdirSync(home);
  const eightEnv = { ...env, AGT_HOME: home };
  const names = ['everything', 'everything', 'everything', 'memory', 'memory', 'memory', 'python', 'python'];
  for (const [i, name] of names.entries()) {
    const config = {
      ...(configs[name] as StdioServerConfig),
      ...(name === 'memory' ? { env: { MEMORY_FILE_PATH: path.join(home, `m${i}.jsonl`) } } : {}),
    };
    fs.writeFileSync(path.join(home, `${i}.json`), JSON.stringify({ mcpServers: { [`s${i}`]: config } }));
    execFileSync(process.execPath, [CLI, 'mcp', 'create', `eight/${name}-${i}`, '--from', path.join(home, `${i}.json`)], {
      env: eightEnv,
      stdio: 'ignore',
    });
  }
  const list: number[] = [];
  const single: number[] = [];
  const cpu: number[] = [];
  await timedProcess([CLI, 'mcp', 'list', '--probe'], eightEnv);
  for (let r = 0; r < 5; r++) {
    const before = cpuMsWithChildren();
    list.push(await timedProcess([CLI, 'mcp', 'list', '--probe'], eightEnv));
    cpu.push(cpuMsWithChildren() - before);
    single.push(await timedProcess([CLI, 'mcp', 'probe', 'eight/everything-0'], eightEnv));
  }
  const cores = os.availableParallelism();
  const [l, s, floor] = [median(list), median(single), median(cpu) / cores];
  const bound = 1.3 * s + floor;
  return {
    markdown: [
      '| 8 servers (3 everything, 3 memory, 2 python), median of 5 | time |',
      '| --- | --- |',
      `| \`agt mcp list --probe\` wall | ${formatNs(l * 1e6)} |`,
      `| slowest single \`agt mcp probe\` (everything) wall | ${formatNs(s * 1e6)} |`,
      `| CPU floor: CPU of the list (CLI + 8 servers) / ${cores} cores | ${formatNs(floor * 1e6)} |`,
      `| list ÷ (1.3 × single + floor) | ${(l / bound).toFixed(2)} |`,
      `| list ÷ max(single, floor) | ${(l / Math.max(s, floor)).toFixed(2)}× |`,
    ].join('\n'),
    targets: [
      {
        name: 'agt mcp list --probe of 8 servers ≤ 1.3× the slowest single probe + the CPU floor',
        ok: l <= bound,
        detail: `${formatNs(l * 1e6)} vs ${formatNs(bound * 1e6)} (${(l / Math.max(s, floor)).toFixed(2)}× max(single, floor))`,
      },
    ],
  };
}
