/**
 * Protocol costs in runs (issue 12), part of `npm run bench -- runtime`:
 * - output-schema check per call against the input check of the same schema
 *   and object (the two stage functions); target ≤ 1.1×;
 * - a list_changed-driven refresh of 1 of 8 Python mounts (the batch whose
 *   call announces the change, plus the boundary refresh) against connect+list
 *   of that server; target ≤ 1.3×;
 * - a batch of 8 calls that never answer, with timeouts.callMs: how long past
 *   the timeout it returns (target ≤ 100 ms) and what is left in flight (0);
 * - a 1,000-call sequential run (issue 26): heap after 1,000 calls ≤ 1.1× the
 *   heap after 100, no abort listener left on the host signal.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMcp, MemoryStore, NativeRun, policies, ResourceService, ToolSchemaRegistry, toolAlias } from '../src/index.js';
import { parseAndValidate } from '../src/runtime/pipeline/stages.js';
import { checkOutput } from '../src/runtime/pipeline/result-checks.js';
import { type BenchReport, formatNs, measure, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = path.join(root, 'test/fixtures/mcp_server.py');
type Targets = BenchReport['targets'];

/** Output check vs input check, same schema (server-everything's get-structured-content outputSchema) and object. */
export function outputCheckRows(targets: Targets): string[] {
  const schema = {
    type: 'object',
    properties: { temperature: { type: 'number' }, conditions: { type: 'string' }, humidity: { type: 'number' } },
    required: ['temperature', 'conditions', 'humidity'],
    additionalProperties: false,
  };
  const compiled = new ToolSchemaRegistry().compile(schema, { tool: 'weather' });
  const value = { temperature: 22.5, conditions: 'Partly cloudy', humidity: 65 };
  const route = { validator: compiled, outputValidator: compiled };
  const call = { callId: 'c1', name: 'weather', arguments: value };
  const result = { callId: 'c1', status: 'ok' as const, content: [], structuredContent: value };
  const input = measure('input', () => parseAndValidate(call.callId, call.arguments, route), { opsPerRound: 20_000 });
  const output = measure('output', () => checkOutput(result, route), { opsPerRound: 20_000 });
  const ratio = output.nsPerOp / input.nsPerOp;
  targets.push({ name: 'output-schema check ≤ 1.1× the input check per call', ok: ratio <= 1.1, detail: `${ratio.toFixed(2)}×` });
  return [
    '| per call (same schema and object) | median |',
    '| --- | --- |',
    `| input stage (parse + validate arguments) | ${formatNs(input.nsPerOp)} |`,
    `| output stage (check structuredContent against outputSchema) | ${formatNs(output.nsPerOp)} |`,
    '',
    `Output / input: ${ratio.toFixed(2)}×.`,
  ];
}

/** A list_changed refresh of 1 of 8 mounts vs connect+list of one server. */
export async function listChangedRows(targets: Targets): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-listchanged-'));
  const config = (i: number) => ({ command: 'python3', args: [server, '--name', `py${i}`, '--feature', 'list-changed'], cwd: dir });
  try {
    const service = new ResourceService({ store: new MemoryStore() });
    const refs = Array.from({ length: 8 }, (_, i) => `bench/py${i}`);
    for (const [i, reference] of refs.entries())
      await service.write({ kind: 'mcp', reference, create: true, data: { mcpServers: { py: config(i) } } });
    await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: refs } });
    const run = await NativeRun.start({ agent: 'bench/agent', service, policy: policies.autoAllow('*') });
    const refresh: number[] = [];
    const plain: number[] = [];
    const connect: number[] = [];
    for (let round = 0; round < 9; round++) {
      const mount = refs[round % 8] as string;
      let started = performance.now();
      const out = await run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: `g${round}`,
        calls: [{ callId: 'g', name: toolAlias(mount, 'grow'), arguments: { name: `grown_${'abcdefghi'[round]}` } }],
      });
      refresh.push(performance.now() - started);
      if (out.refresh?.status !== 'applied') throw new Error('list_changed refresh failed in the benchmark');
      started = performance.now();
      await run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: `e${round}`,
        calls: [{ callId: 'e', name: toolAlias(mount, 'echo'), arguments: { message: 'x' } }],
      });
      plain.push(performance.now() - started);
      started = performance.now();
      const c = await connectMcp(config(0));
      await c.listTools();
      connect.push(performance.now() - started);
      await c.close();
    }
    await run.close();
    const ratio = median(refresh) / median(connect);
    targets.push({
      name: 'list_changed refresh of 1 of 8 mounts ≤ 1.3× connect+list of that server',
      ok: ratio <= 1.3,
      detail: `${ratio.toFixed(2)}×`,
    });
    return [
      '| 8 Python mounts, median of 9 | time |',
      '| --- | --- |',
      `| batch whose call announces list_changed + boundary refresh | ${formatNs(median(refresh) * 1e6)} |`,
      `| a batch of one plain call (no refresh) | ${formatNs(median(plain) * 1e6)} |`,
      `| connect + list of one server (baseline) | ${formatNs(median(connect) * 1e6)} |`,
      '',
      `list_changed refresh / connect+list: ${ratio.toFixed(2)}× (the mount is listed again on its live connection).`,
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const events = (file: string) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { event: string })
    : [];

/** A batch of 8 never-answered calls with a call timeout; and the same calls cancelled by a signal. */
export async function cancelRows(targets: Targets): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-cancel-'));
  const log = path.join(dir, 'events.log');
  const timeoutMs = 300;
  try {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({
      kind: 'mcp',
      reference: 'bench/slow',
      create: true,
      data: { mcpServers: { py: { command: 'python3', args: [server, '--feature', 'slow', '--events', log], cwd: dir } } },
    });
    await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: ['bench/slow'] } });
    const run = await NativeRun.start({
      agent: 'bench/agent',
      service,
      policy: policies.autoAllow('*'),
      timeouts: { callMs: timeoutMs },
      concurrency: 8,
    });
    const calls = Array.from({ length: 8 }, (_, i) => ({ callId: `n${i}`, name: toolAlias('bench/slow', 'never'), arguments: {} }));
    const over: number[] = [];
    const aborted: number[] = [];
    for (let round = 0; round < 5; round++) {
      let started = performance.now();
      const { results } = await run.executeBatch({ runId: run.id, agent: run.agent, batchId: `t${round}`, calls });
      over.push(performance.now() - started - timeoutMs);
      if (!results.every((r) => r.status === 'tool_failed' && r.error.code === 'call_timeout'))
        throw new Error('expected call_timeout for every call');
      const controller = new AbortController();
      started = performance.now();
      const pending = run.executeBatch({ runId: run.id, agent: run.agent, batchId: `a${round}`, calls }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      await pending;
      aborted.push(performance.now() - started - 100);
    }
    await run.close();
    // Every call must have been cancelled on the server: 8 calls × 2 batches × 5 rounds.
    const deadline = Date.now() + 5_000;
    while (events(log).filter((e) => e.event === 'cancelled').length < 80 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const leftover = 80 - events(log).filter((e) => e.event === 'cancelled').length;
    // And nothing left in flight on a connection after 8 timed-out calls.
    const direct = await connectMcp({ command: 'python3', args: [server, '--feature', 'slow'], cwd: dir });
    await Promise.allSettled(Array.from({ length: 8 }, () => direct.callTool('never', {}, { timeoutMs })));
    const inFlight = direct.inFlight;
    await direct.close();
    const worst = Math.max(...over);
    targets.push({
      name: `8 never-answered calls return within timeouts.callMs + 100 ms`,
      ok: median(over) <= 100,
      detail: `median +${median(over).toFixed(0)} ms, worst +${worst.toFixed(0)} ms`,
    });
    targets.push({
      name: 'cancelled batches leave 0 requests in flight (client) and 0 uncancelled (server)',
      ok: leftover === 0 && inFlight === 0,
      detail: `${inFlight} in flight, ${leftover} never cancelled on the server`,
    });
    return [
      `| batch of 8 calls that never answer, median of 5 | past the deadline |`,
      '| --- | --- |',
      `| timeouts.callMs ${timeoutMs}: returns after the timeout by | ${median(over).toFixed(1)} ms |`,
      `| signal aborted at 100 ms: returns after the abort by | ${median(aborted).toFixed(1)} ms |`,
      '',
      `Left in flight on the client: ${inFlight}; calls the server never saw cancelled: ${leftover} of 80.`,
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A 1,000-call sequential run: heap after 1,000 calls against heap after 100 (a child with --expose-gc). */
export function heapRows(targets: Targets): string[] {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join(root, 'test/hardening/fixtures/heap-calls.ts'), '1000'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  const { after100, afterAll, listeners } = JSON.parse(out) as { after100: number; afterAll: number; listeners: number };
  const ratio = afterAll / after100;
  targets.push({
    name: '1,000-call run: heap after 1,000 calls ≤ 1.1× heap after 100',
    ok: ratio <= 1.1 && listeners === 0,
    detail: `${ratio.toFixed(3)}×, ${listeners} listeners`,
  });
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  return [
    '| one run, sequential calls (1 KB results) | heap (after gc) |',
    '| --- | --- |',
    `| after 100 calls | ${mb(after100)} |`,
    `| after 1,000 calls | ${mb(afterAll)} |`,
    '',
    `After 1,000 / after 100: ${ratio.toFixed(3)}×; abort listeners left on the host signal: ${listeners}.`,
  ];
}
