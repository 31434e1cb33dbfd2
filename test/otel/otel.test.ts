/**
 * otelAuditSink with the OpenTelemetry SDK's in-memory exporter: a span per
 * batch and per call with the GenAI / MCP semantic-convention attributes,
 * errors typed by code, and never an argument value (B3, B6).
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { otelAuditSink } from 'agt-mcp/otel';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { startV2Http } from '../mcp/fixtures/v2-server.js';
import { batch, py, runFixture } from '../support/index.js';

const fx = runFixture();

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, sink: otelAuditSink({ tracer: provider.getTracer('agt-test') }) };
}

describe('otelAuditSink', () => {
  it('B3: a batch span with one child span per call, named and attributed by the GenAI and MCP conventions', async () => {
    const { exporter, sink } = tracing();
    const run = await fx.start({ audit: sink, policy: policies.autoAllow(py('echo')) });
    await run.executeBatch({
      ...batch(run, [
        { callId: 'ok-1', name: py('echo'), arguments: { message: 'SECRET-ARGUMENT' } },
        { callId: 'bad-1', name: py('add'), arguments: { a: 'x' } },
        { callId: 'no-1', name: py('withdraw'), arguments: { amount: 1 } },
      ]),
      batchId: 'b-otel',
    });
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === 'batch team/alice');
    expect(root?.attributes).toMatchObject({
      'agt.run.id': run.id,
      'agt.batch.id': 'b-otel',
      'agt.batch.size': 3,
      'agt.batch.failed': 2,
      'gen_ai.agent.name': 'team/alice',
    });
    const calls = spans.filter((s) => s.name.startsWith('tools/call '));
    expect(calls.map((s) => s.name).sort()).toEqual(['tools/call add', 'tools/call echo', 'tools/call withdraw']);
    for (const span of calls) {
      expect(span.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(root?.spanContext().traceId);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.type': 'extension',
        'agt.mount': 'tools/py',
      });
    }
    const echo = calls.find((s) => s.name === 'tools/call echo');
    expect(echo?.attributes).toMatchObject({ 'gen_ai.tool.name': 'echo', 'gen_ai.tool.call.id': 'ok-1', 'agt.call.status': 'ok' });
    expect(echo?.status.code).toBe(0); // UNSET: success is not marked
    const add = calls.find((s) => s.name === 'tools/call add');
    expect(add?.attributes['error.type']).toBe('invalid_arguments');
    expect(add?.status).toMatchObject({ code: 2, message: 'invalid_arguments' });
    expect(calls.find((s) => s.name === 'tools/call withdraw')?.attributes['error.type']).toBe('permission_denied');
    expect(JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })))).not.toContain(
      'SECRET-ARGUMENT',
    );
  });

  it('B6: a rejected batch is one error span typed by its reason; framework calls are execute_tool spans', async () => {
    const { exporter, sink } = tracing();
    const run = await fx.start({ audit: sink }, { role: 'manager' });
    await run.executeBatch(batch(run, [{ callId: 'u', name: 'nope', arguments: {} }])).catch(() => undefined);
    await run.executeBatch(batch(run, [{ callId: 'r', name: 'resource_read', arguments: { kind: 'mcp', reference: 'tools/py' } }]));
    const spans = exporter.getFinishedSpans();
    expect(spans.find((s) => s.attributes['error.type'] === 'unknown_tool')?.name).toBe('batch team/alice');
    expect(spans.find((s) => s.name === 'execute_tool resource_read')?.attributes).toMatchObject({
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.name': 'resource_read',
    });
  });
});

describe('otelAuditSink trace context', () => {
  it("E1: each MCP call carries the batch span's traceparent in its _meta, so the server joins the host's trace", async () => {
    const server = await startV2Http({ legacy: 'reject' });
    const { exporter, sink } = tracing();
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: server.url } } } });
    await service.write({ kind: 'agent', reference: 'team/traced', create: true, data: { mcps: ['tools/v2'] } });
    const run = await NativeRun.start({ agent: 'team/traced', service, policy: policies.autoAllow('*'), audit: sink });
    try {
      const { results } = await run.executeBatch({
        ...batch(run, [{ callId: 't', name: toolAlias('tools/v2', 'trace'), arguments: {} }]),
        batchId: 'b-trace',
      });
      const seen = (results[0] as { content?: { text?: string }[] }).content?.[0]?.text ?? '';
      const root = exporter.getFinishedSpans().find((s) => s.name === 'batch team/traced');
      const { traceId, spanId } = root!.spanContext();
      expect(seen).toMatch(new RegExp(`^00-${traceId}-${spanId}-0[01]$`));
    } finally {
      await run.close();
      await server.close();
    }
  });

  it('E1: without a sink that gives a trace context, calls carry none', async () => {
    const server = await startV2Http({ legacy: 'reject' });
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: server.url } } } });
    await service.write({ kind: 'agent', reference: 'team/plain', create: true, data: { mcps: ['tools/v2'] } });
    const run = await NativeRun.start({
      agent: 'team/plain',
      service,
      policy: policies.autoAllow('*'),
      audit: { record: () => undefined },
    });
    try {
      const { results } = await run.executeBatch(batch(run, [{ callId: 't', name: toolAlias('tools/v2', 'trace'), arguments: {} }]));
      expect((results[0] as { content?: { text?: string }[] }).content?.[0]?.text).toBe('none');
    } finally {
      await run.close();
      await server.close();
    }
  });
});
