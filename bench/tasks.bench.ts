/**
 * Tasks (issue 52): what running a call as a task costs. Per call, both eras:
 * a tool that returns at once, called as a task through ext-tasks (tasks
 * 'wait': the task created, its end read) against the same tool on the same
 * server called plainly (tasks false), medians of interleaved rounds. Then a
 * run with 100 waiting tasks collected by one `run.collect`: the time of the
 * collect beyond the servers' (each task's `tasks/get` and result, timed at the
 * connection, are the servers' part). The kit task server on stdio
 * (test/authoring/fixtures/task-server.ts; the 100 over loopback HTTP). Targets: ≤ 1.5× per call; ≤ 100 ms
 * of our own time for the 100.
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
const server = (log: string, protocol: 'legacy' | '2026-07-28') => ({
  command: process.execPath,
  args: ['--import', 'tsx', path.join(root, 'test/authoring/fixtures/task-server.ts'), '--log', log],
  cwd: root,
  protocol,
});

async function perCall(log: string, protocol: 'legacy' | '2026-07-28', rounds: number) {
  const open = (tasks: false | 'wait') => connectMcp(server(log, protocol), { tasks, timeouts: { handshakeMs: 60_000 } });
  const [plain, tasked] = await Promise.all([open(false), open('wait')]);
  try {
    await Promise.all([plain.listTools(), tasked.listTools()]);
    const call = (c: McpConnection) => c.callTool('quick', { text: 'x' });
    for (let i = 0; i < 20; i++) await Promise.all([call(plain), call(tasked)]); // warm-up (ext-tasks loaded, JIT)
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < rounds; i++) {
      let t = performance.now();
      await call(plain);
      a.push(performance.now() - t);
      t = performance.now();
      await call(tasked);
      b.push(performance.now() - t);
    }
    return { plain: median(a), task: median(b) };
  } finally {
    await Promise.all([plain.close(), tasked.close()]);
  }
}

async function collectHundred(log: string): Promise<{ collectMs: number; serverMs: number; ownMs: number }> {
  // Over loopback HTTP, so a second connection reaches the same tasks (the kit server in this process).
  const http = await serveHttp(() => createToolServer({ name: 'bench-tasks', version: '1.0.0', tools: taskTools(log) }));
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
  try {
    const modern = await perCall(log, '2026-07-28', 300);
    const legacy = await perCall(log, 'legacy', 300);
    const hundred = await collectHundred(log);
    const ratio = (x: { plain: number; task: number }) => x.task / x.plain;
    return {
      title: 'Tasks (issue 52)',
      markdown: [
        'A tool that returns at once, on the kit task server over stdio (median of 300 interleaved calls per way):',
        '',
        '| era | plain call | as a task (ext-tasks, waited inline) | ratio |',
        '| --- | --- | --- | --- |',
        `| 2026-07-28 | ${ms(modern.plain)} | ${ms(modern.task)} | ${ratio(modern).toFixed(2)}× |`,
        `| 2025 | ${ms(legacy.plain)} | ${ms(legacy.task)} | ${ratio(legacy).toFixed(2)}× |`,
        '',
        `100 waiting tasks (2026-07-28) collected by one \`run.collect\`: ${ms(hundred.collectMs)} in all; the same requests one by one at the connection ${ms(hundred.serverMs)}; our own time beyond the servers' ≈ ${ms(hundred.ownMs)}.`,
      ].join('\n'),
      targets: [
        { name: 'task call vs plain, 2026-07-28 ≤ 1.5×', ok: ratio(modern) <= 1.5, detail: `${ratio(modern).toFixed(2)}×` },
        { name: 'task call vs plain, 2025 ≤ 1.5×', ok: ratio(legacy) <= 1.5, detail: `${ratio(legacy).toFixed(2)}×` },
        { name: '100 tasks collected: ≤ 100 ms of our own time', ok: hundred.ownMs <= 100, detail: ms(hundred.ownMs) },
      ],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
