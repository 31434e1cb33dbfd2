/**
 * Host composition costs (issue 13), `npm run bench -- hosts`:
 * - provider adapters: converting a 100-call batch (model payload → calls,
 *   results → provider messages) per call, against the pipeline's own per-call
 *   cost measured in the same run (a no-op delegate route); target ≤ 5 %;
 * - SQLite RunStore: suspend({ store }) + resume(runId, { store }) of a run with
 *   8 Python mounts against resume(state) alone; target ≤ 1.1×;
 * - otelAuditSink: the pipeline per call with it (the API alone, and the SDK
 *   with a batch processor whose exporter drops everything) against a no-op
 *   sink, beyond the SDK's own cost of the spans; target ≤ 2 µs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { fromAnthropicToolUse, toAnthropicToolResults } from '../src/providers/anthropic/index.js';
import { fromOpenAIToolCalls, toOpenAIToolMessages } from '../src/providers/openai/index.js';
import { otelAuditSink } from '../src/otel/index.js';
import { type AuditSink, MemoryStore, NativeRun, policies, ResourceService, type ToolResult } from '../src/index.js';
import { SqliteRunStore } from '../src/storage/sqlite.js';
import { type BenchReport, formatNs, measure, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = path.join(root, 'test/fixtures/mcp_server.py');
type Targets = BenchReport['targets'];
const ARGS = { agent: 'bench/other', task: 'do the thing', context: 'with some context' };

async function noopRun(audit?: AuditSink): Promise<NativeRun> {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: {} });
  return NativeRun.start({
    agent: 'bench/agent',
    service,
    policy: policies.autoAllow('*'),
    delegates: [{ name: 'noop', targets: ['bench/other'], handler: async () => 'ok' }],
    ...(audit ? { audit } : {}),
  });
}

let batchNo = 0;

/** Median µs per call of 100-call batches through `run`. */
async function pipelinePerCall(run: NativeRun): Promise<number> {
  const calls = Array.from({ length: 100 }, (_, i) => ({ callId: `c${i}`, name: 'noop', arguments: ARGS }));
  const samples: number[] = [];
  for (let round = 0; round < 9; round++) {
    const started = performance.now();
    for (let i = 0; i < 40; i++) await run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${batchNo++}`, calls });
    samples.push(((performance.now() - started) * 1000) / 4000);
  }
  return median(samples);
}

async function adapterRows(targets: Targets): Promise<string[]> {
  const run = await noopRun();
  const pipeline = await pipelinePerCall(run);
  const tools = run.tools();
  const text = JSON.stringify(ARGS);
  const openai = {
    role: 'assistant',
    content: null,
    tool_calls: Array.from({ length: 100 }, (_, i) => ({ id: `call_${i}`, type: 'function', function: { name: 'noop', arguments: text } })),
  };
  const anthropic = {
    content: Array.from({ length: 100 }, (_, i) => ({ type: 'tool_use', callId: `toolu_${i}`, name: 'noop', input: ARGS })),
  };
  const result = {
    results: Array.from({ length: 100 }, (_, i): ToolResult => ({
      callId: `c${i}`,
      status: 'ok',
      content: [{ type: 'text', text: 'ok' }],
    })),
  };
  const cases = [
    [
      'OpenAI Chat (tool_calls → calls → tool messages)',
      () => toOpenAIToolMessages(result, { api: 'chat' }) && fromOpenAIToolCalls(openai, { tools }),
    ],
    ['Anthropic (tool_use → calls → tool_result blocks)', () => toAnthropicToolResults(result) && fromAnthropicToolUse(anthropic)],
  ] as const;
  const rows = [
    `| 100-call batch, per call | conversion | share of the pipeline's ${formatNs(pipeline * 1000)} per call |`,
    '| --- | --- | --- |',
  ];
  for (const [name, fn] of cases) {
    const perCall = measure(name, fn, { opsPerRound: 300 }).nsPerOp / 100;
    const share = perCall / (pipeline * 1000);
    rows.push(`| ${name} | ${formatNs(perCall)} | ${(share * 100).toFixed(1)} % |`);
    targets.push({
      name: `${name.split(' (')[0]} conversion ≤ 5 % of the pipeline per call`,
      ok: share <= 0.05,
      detail: `${(share * 100).toFixed(1)} %`,
    });
  }
  await run.close();
  return rows;
}

async function runStoreRows(targets: Targets): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-runstore-'));
  try {
    const service = new ResourceService({ store: new MemoryStore() });
    const refs = Array.from({ length: 8 }, (_, i) => `bench/py${i}`);
    for (const [i, reference] of refs.entries())
      await service.write({
        kind: 'mcp',
        reference,
        create: true,
        data: { mcpServers: { py: { command: 'python3', args: [server, '--name', `py${i}`], cwd: dir } } },
      });
    await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: refs } });
    const store = new SqliteRunStore({ path: path.join(dir, 'runs.db') });
    const options = { service, policy: policies.autoAllow('*') };
    let run = await NativeRun.start({ agent: 'bench/agent', ...options });
    const plain: number[] = [];
    const stored: number[] = [];
    for (let round = 0; round < 7; round++) {
      let started = performance.now();
      const resumed = await NativeRun.resume(await run.suspend(), options);
      plain.push(performance.now() - started);
      await resumed.close();
      started = performance.now();
      await run.suspend({ store });
      const again = await NativeRun.resume(run.id, { ...options, store });
      stored.push(performance.now() - started);
      await run.close();
      run = again;
    }
    await run.close();
    await store.close();
    const ratio = median(stored) / median(plain);
    targets.push({
      name: 'SQLite RunStore suspend + resume (8 mounts) ≤ 1.1× resume alone',
      ok: ratio <= 1.1,
      detail: `${ratio.toFixed(2)}×`,
    });
    return [
      '| 8 Python mounts, median of 7 | time |',
      '| --- | --- |',
      `| resume(state) (baseline) | ${formatNs(median(plain) * 1e6)} |`,
      `| suspend({ store }) + resume(runId, { store }), SQLite | ${formatNs(median(stored) * 1e6)} |`,
      '',
      `Through the store / alone: ${ratio.toFixed(2)}×.`,
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function otelRows(targets: Targets): Promise<string[]> {
  const drop: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };
  const sdkTracer = () => new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(drop)] }).getTracer('bench');
  const runs = {
    none: await noopRun(),
    noop: await noopRun({ record: () => undefined }),
    api: await noopRun(otelAuditSink({ tracer: trace.getTracer('bench') })),
    sdk: await noopRun(otelAuditSink({ tracer: sdkTracer() })),
  };
  const samples: Record<keyof typeof runs, number[]> = { none: [], noop: [], api: [], sdk: [] };
  for (let i = 0; i < 3; i++)
    for (const name of Object.keys(runs) as (keyof typeof runs)[]) samples[name].push(await pipelinePerCall(runs[name]));
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])) as Record<keyof typeof runs, number>;
  // What the SDK itself costs for the same spans (one per call, one per 100-call batch), started and ended directly.
  // The same attributes as a call span, started in a batch span's context.
  const tracer = sdkTracer();
  const parent = trace.setSpan(context.active(), tracer.startSpan('batch'));
  const attributes = {
    'agt.run.id': 'r',
    'gen_ai.agent.name': 'bench/agent',
    'agt.batch.id': 'b',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'noop',
    'gen_ai.tool.type': 'function',
    'agt.tool.alias': 'noop',
    'gen_ai.tool.call.id': 'c1',
    'agt.call.status': 'ok',
    'agt.permission.decided_by': 'auto',
  };
  const sdkSpan =
    measure(
      'sdk span',
      () => tracer.startSpan('execute_tool noop', { kind: SpanKind.INTERNAL, startTime: Date.now(), attributes }, parent).end(Date.now()),
      { opsPerRound: 5000 },
    ).nsPerOp / 1000;
  const ours = m.sdk - m.noop - sdkSpan * 1.01;
  targets.push({
    name: "otelAuditSink ≤ 2 µs per call (over a no-op sink, beyond the SDK's own span cost)",
    ok: ours <= 2,
    detail: `${ours.toFixed(2)} µs`,
  });
  await Promise.all(Object.values(runs).map((r) => r.close()));
  return [
    '| pipeline per call, 100-call batches | median |',
    '| --- | --- |',
    `| no audit sink | ${formatNs(m.none * 1000)} |`,
    `| a no-op sink (events built and awaited) | ${formatNs(m.noop * 1000)} |`,
    `| otelAuditSink, API only (no SDK: non-recording spans) | ${formatNs(m.api * 1000)} |`,
    `| otelAuditSink, SDK with a batch processor and an exporter that drops | ${formatNs(m.sdk * 1000)} |`,
    `| the SDK's own cost of one call span (same attributes and parent, started and ended directly) | ${formatNs(sdkSpan * 1000)} |`,
    '',
    `otelAuditSink over a no-op sink: ${(m.api - m.noop).toFixed(2)} µs per call without an SDK; ${(m.sdk - m.noop).toFixed(2)} µs with the SDK, of which the SDK's spans are ${(sdkSpan * 1.01).toFixed(2)} µs and the sink ${ours.toFixed(2)} µs.`,
  ];
}

/** Runs the host composition benchmarks. */
export async function runHostsBench(): Promise<BenchReport> {
  const targets: Targets = [];
  const markdown = [...(await adapterRows(targets)), '', ...(await runStoreRows(targets)), '', ...(await otelRows(targets))].join('\n');
  return { title: 'Hosts: provider adapters, RunStore, OpenTelemetry', markdown, targets };
}
