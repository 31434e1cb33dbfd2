/**
 * agt-mcp/otel: an AuditSink that turns a run's audit events into
 * OpenTelemetry spans (`@opentelemetry/api` is an optional peer):
 *
 * - one span per batch, `batch {agent}` (INTERNAL), from `batch_started` to `batch`;
 * - one child span per call, following the GenAI and MCP semantic conventions:
 *   MCP calls `tools/call {tool}` (CLIENT, `mcp.method.name`), framework and
 *   delegate calls `execute_tool {tool}` (INTERNAL); both with
 *   `gen_ai.operation.name = execute_tool`, `gen_ai.tool.name`,
 *   `gen_ai.tool.call.id`, `gen_ai.tool.type`, and `error.type` (the code) with
 *   an ERROR status when the call failed;
 * - a span per refresh and per rejected batch.
 *
 * Spans carry names, ids, statuses, codes and durations only: never argument
 * values or results, as the audit events they come from.
 */
import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { AuditEvent, AuditSink } from '../runtime/types.js';

/** Options of {@link otelAuditSink}. */
export interface OtelAuditSinkOptions {
  /** The tracer to start spans with (e.g. `trace.getTracer('my-host')`). */
  tracer: Tracer;
}

const ms = (date: string) => Date.parse(date);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
// OpenTelemetry attribute values must be defined: leave out what the event does not have.
function attrs(values: Record<string, string | number | undefined>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = v;
  return out;
}

/** An AuditSink that emits a span per batch and per call (and per refresh and rejected batch). */
export function otelAuditSink(options: OtelAuditSinkOptions): AuditSink {
  const { tracer } = options;
  const batches = new Map<string, Span>();
  const key = (e: AuditEvent) => `${String(e.runId)}\u0000${String(e.batchId)}`;
  const common = (e: AuditEvent) => ({ 'agt.run.id': str(e.runId), 'gen_ai.agent.name': str(e.agent) });

  const onCall = (e: AuditEvent) => {
    const parent = batches.get(key(e));
    const end = ms(e.at);
    const mcp = e.kind === 'mcp';
    const tool = String(e.tool);
    const span = tracer.startSpan(
      mcp ? `tools/call ${String(e.remoteTool)}` : `execute_tool ${tool}`,
      {
        kind: mcp ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: end - (typeof e.durationMs === 'number' ? e.durationMs : 0),
        attributes: attrs({
          ...common(e),
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': mcp ? String(e.remoteTool) : tool,
          'gen_ai.tool.call.id': str(e.callId),
          'gen_ai.tool.type': mcp ? 'extension' : 'function',
          'mcp.method.name': mcp ? 'tools/call' : undefined,
          'agt.mount': str(e.mount),
          'agt.tool.alias': tool,
          'agt.batch.id': str(e.batchId),
          'agt.call.status': str(e.status),
          'agt.permission.decided_by': str(e.decidedBy),
        }),
      },
      parent ? trace.setSpan(context.active(), parent) : undefined,
    );
    if (e.status !== 'ok') {
      span.setAttribute('error.type', String(e.code ?? e.status));
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(e.code ?? e.status) });
    }
    span.end(end);
  };

  return {
    record(e: AuditEvent) {
      switch (e.type) {
        case 'batch_started':
          batches.set(key(e), tracer.startSpan(`batch ${String(e.agent)}`, {
            kind: SpanKind.INTERNAL, startTime: ms(e.at), attributes: attrs({ ...common(e), 'agt.batch.id': str(e.batchId), 'agt.batch.size': Number(e.calls) }),
          }));
          return;
        case 'tool_call':
          onCall(e);
          return;
        case 'batch': {
          const span = batches.get(key(e));
          batches.delete(key(e));
          if (!span) return;
          if (typeof e.failed === 'number' && e.failed > 0) span.setAttribute('agt.batch.failed', e.failed);
          span.end(ms(e.at));
          return;
        }
        case 'batch_rejected':
        case 'refresh': {
          const end = ms(e.at);
          const span = tracer.startSpan(e.type === 'refresh' ? `refresh ${String(e.agent)}` : `batch ${String(e.agent)}`, {
            kind: SpanKind.INTERNAL, startTime: end - (typeof e.durationMs === 'number' ? e.durationMs : 0),
            attributes: attrs({ ...common(e), 'agt.batch.id': str(e.batchId), 'agt.refresh.trigger': str(e.trigger) }),
          });
          const failed = e.type === 'batch_rejected' || e.status === 'failed';
          if (failed) {
            const type = String(e.type === 'batch_rejected' ? e.reason ?? 'batch_rejected' : e.code ?? 'refresh_failed');
            span.setAttribute('error.type', type);
            span.setStatus({ code: SpanStatusCode.ERROR, message: type });
          }
          span.end(end);
          return;
        }
        default:
      }
    },
  };
}
