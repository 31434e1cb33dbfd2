/**
 * Tasks (issues 52, 64): what running a call as a task costs. Per call, each
 * era: a tool called on a connection that lets calls become tasks (ext-tasks,
 * tasks 'wait') against the same tool on the same server called plainly
 * (tasks false) — `quick`, whose handler ends at once (on 2026-07-28 within
 * the kit's grace: answered with its result), and `nap` {ms: 100}, which runs
 * past it (a task, its end read with tasks/get). Wall time and this process's
 * CPU time (process.cpuUsage: the client's; the servers run in processes of
 * their own) per call, medians of rounds with their range (each round runs
 * the two ways A B B A or B A A B, half its calls a block). Then a run
 * with 100 waiting tasks collected by one `run.collect`: the time of the
 * collect beyond the servers' (each task's `tasks/get` and result, timed at
 * the connection, are the servers' part). The kit task server on stdio
 * (bench/tasks-server.ts; the 100 over loopback HTTP). Targets: a task that
 * ends within the grace ≤ 1.2× a plain call, one that does not ≤ 1.5×;
 * ≤ 100 ms of our own time for the 100 (none for a quick 2025 task: three
 * round trips against one by the protocol). Each way is warmed up first, to
 * the steady state a long-lived host runs in. `TASKS_ROUNDS` (default 9).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMcp, type McpConnection, MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../src/index.js';
import { type BenchReport, median } from './harness.js';
import { createToolServer, serveHttp } from '../src/authoring/index.js';
import { mapLimit } from '../src/runtime/audit/run-audit.js';
import { taskTools } from '../test/authoring/fixtures/task-tools.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ms = (n: number) => `${n.toFixed(2)} ms`;
type Era = 'legacy' | '2026-07-28';
const server = (protocol: Era, graceMs?: number) => ({
  command: process.execPath,
  args: ['--import', 'tsx', path.join(root, 'bench/tasks-server.ts'), ...(graceMs === undefined ? [] : ['--grace-ms', String(graceMs)])],
  cwd: root,
  protocol,
});

/** One way's figures per round: wall and client CPU per call, in ms. */
interface Way {
  wall: number[];
  cpu: number[];
}

interface Case {
  era: Era;
  label: string;
  tool: string;
  args: Record<string, unknown>;
  calls: number;
  /** Calls of each way before the rounds: the client and the server warmed to the steady state a long-lived host runs in. */
  warmup: number;
  graceMs?: number;
  target?: number;
}

// A block of `count` calls on one connection: its wall and CPU per call.
async function block(connection: McpConnection, c: Case, count: number): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < count; i++) await connection.callTool(c.tool, c.args);
  const wall = (performance.now() - t) / count;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 / count };
}

// Each round runs the two ways A B B A (or B A A B, alternating), half its calls a block, and takes each way's mean:
// a way that runs second (its server idle the while) or a drift of the machine falls on both alike.
async function perCall(c: Case, rounds: number): Promise<{ plain: Way; task: Way }> {
  const open = (tasks: false | 'wait') => connectMcp(server(c.era, c.graceMs), { tasks, timeouts: { handshakeMs: 60_000 } });
  const [plain, tasked] = await Promise.all([open(false), open('wait')]);
  try {
    await Promise.all([plain.listTools(), tasked.listTools()]);
    for (let i = 0; i < c.warmup; i++) await Promise.all([plain.callTool(c.tool, c.args), tasked.callTool(c.tool, c.args)]); // warm-up
    const ways = { plain: { wall: [], cpu: [] } as Way, task: { wall: [], cpu: [] } as Way };
    const half = Math.max(1, Math.round(c.calls / 2));
    for (let r = 0; r < rounds; r++) {
      const [first, second] = r % 2 === 0 ? (['plain', 'task'] as const) : (['task', 'plain'] as const);
      const on = (way: 'plain' | 'task') => block(way === 'plain' ? plain : tasked, c, half);
      const a1 = await on(first);
      const b1 = await on(second);
      const b2 = await on(second);
      const a2 = await on(first);
      for (const [way, x, y] of [
        [first, a1, a2],
        [second, b1, b2],
      ] as const) {
        ways[way].wall.push((x.wall + y.wall) / 2);
        ways[way].cpu.push((x.cpu + y.cpu) / 2);
      }
    }
    return ways;
  } finally {
    await Promise.all([plain.close(), tasked.close()]);
  }
}

const range = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
const cell = (values: number[]) => `${ms(median(values))} (${range(values)})`;
// The round-by-round ratios of task to plain: their median and range.
const ratios = (w: { plain: Way; task: Way }, key: keyof Way) => w.task[key].map((t, i) => t / (w.plain[key][i] as number));

async function collectHundred(log: string): Promise<{ collectMs: number; serverMs: number; ownMs: number }> {
  // Over loopback HTTP, so a second connection reaches the same tasks (the kit server in this process).
  // graceMs 0: every call becomes a task however soon it ends (what is measured is the collect of waiting tasks).
  const http = await serveHttp(() =>
    createToolServer({ name: 'bench-tasks', version: '1.0.0', tools: taskTools(log), tasks: { graceMs: 0 } }),
  );
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'bench/tasks', create: true, data: { mcpServers: { tasks: { url: http.url } } } });
  await service.write({ kind: 'agent', reference: 'bench/t', create: true, data: { mcps: ['bench/tasks'] } });
  const run = await NativeRun.start({
    agent: 'bench/t',
    service,
    policy: policies.autoAllow('*'),
    tasks: 'defer',
    limits: { maxBatchCalls: 100 },
  });
  const direct = await connectMcp({ url: http.url }, { tasks: 'defer' });
  try {
    const calls = Array.from({ length: 100 }, (_, i) => ({
      callId: `c${i}`,
      name: toolAlias('bench/tasks', 'quick'),
      arguments: { text: `t${i}` },
    }));
    const started = await run.executeBatch({ runId: run.id, agent: run.agent, batchId: 'b', calls });
    const ids = (started.pending ?? []).flatMap((p) => (p.waitingFor === 'task' ? [p.task.id] : []));
    if (ids.length !== 100) throw new Error(`expected 100 waiting tasks, got ${ids.length}`);
    // The servers' part: the same requests (a status and a result per task), at the run's concurrency, on a bare connection.
    let t = performance.now();
    await mapLimit(ids, 4, async (id) => {
      // the run's default concurrency
      await direct.getTask(id);
      await direct.getTaskResult(id);
    });
    const serverMs = performance.now() - t;
    t = performance.now();
    const collected = await run.collect('b', { waitMs: 10_000 });
    const collectMs = performance.now() - t;
    if (collected.results.length !== 100) throw new Error(`expected 100 results, got ${collected.results.length}`);
    return { collectMs, serverMs, ownMs: Math.max(0, collectMs - serverMs) };
  } finally {
    await Promise.all([run.close(), direct.close()]);
    await http.close();
  }
}

/** `npm run bench -- tasks`. */
export async function runTasksBench(): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-tasks-'));
  const log = path.join(dir, 'tools.log');
  const rounds = Math.max(9, Number(process.env.TASKS_ROUNDS ?? 9));
  const quick = { tool: 'quick', args: { text: 'x' }, calls: 1000, warmup: 1000 };
  const nap = { tool: 'nap', args: { ms: 100 }, calls: 4, warmup: 4 };
  const cases: Case[] = [
    { era: '2026-07-28', label: '`quick` (ends within the grace)', ...quick, target: 1.2 },
    { era: '2026-07-28', label: '`quick`, graceMs 0 (answered with its task, as before issue 64)', ...quick, graceMs: 0 },
    { era: '2026-07-28', label: '`nap` 100 ms (runs past the grace)', ...nap, target: 1.5 },
    // No target: in 2025 a task the client asks for is three round trips (call, tasks/get, tasks/result) against one.
    { era: 'legacy', label: '`quick` (2025: a task asked for is a task: three round trips)', ...quick },
    { era: 'legacy', label: '`nap` 100 ms', ...nap, target: 1.5 },
  ];
  try {
    const measured: { c: Case; w: { plain: Way; task: Way } }[] = [];
    for (const c of cases) measured.push({ c, w: await perCall(c, rounds) });
    const hundred = await collectHundred(log);
    const rows = measured.map(({ c, w }) => {
      const wall = ratios(w, 'wall');
      const cpu = ratios(w, 'cpu');
      return `| ${c.era === 'legacy' ? '2025' : c.era} | ${c.label} | ${cell(w.plain.wall)} | ${cell(w.task.wall)} | ${median(wall).toFixed(2)}× (${range(wall)}) | ${cell(w.plain.cpu)} | ${cell(w.task.cpu)} | ${median(cpu).toFixed(2)}× |`;
    });
    return {
      title: 'Tasks (issues 52, 64)',
      markdown: [
        `Per call, the kit task server on stdio (pollIntervalMs 50; graceMs the kit's 50 unless said), each way warmed up first (1,000 quick calls), medians of ${rounds} rounds (range), each running the two ways A B B A or B A A B; CPU: this process's (the client's) per call:`,
        '',
        '| era | tool | plain wall | as a task (tasks "wait") wall | wall ratio | plain CPU | task CPU | CPU ratio |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        ...rows,
        '',
        `100 waiting tasks (2026-07-28, graceMs 0) collected by one \`run.collect\`: ${ms(hundred.collectMs)} in all; the same requests one by one at the connection ${ms(hundred.serverMs)}; our own time beyond the servers' ≈ ${ms(hundred.ownMs)}.`,
      ].join('\n'),
      targets: [
        ...measured.flatMap(({ c, w }) =>
          c.target === undefined
            ? []
            : [
                {
                  name: `${c.era === 'legacy' ? '2025' : c.era} ${c.tool} as a task vs plain ≤ ${c.target}×`,
                  ok: median(ratios(w, 'wall')) <= c.target,
                  detail: `${median(ratios(w, 'wall')).toFixed(2)}×`,
                },
              ],
        ),
        { name: '100 tasks collected: ≤ 100 ms of our own time', ok: hundred.ownMs <= 100, detail: ms(hundred.ownMs) },
      ],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
