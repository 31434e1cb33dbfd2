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
 * - a span per refresh and per rejected batch;
 * - the batch span's W3C trace context (`traceparent`) in the `_meta` of each
 *   MCP call of the batch, so the server's own spans join the host's trace.
 *
 * Spans carry names, ids, statuses, codes and durations only: never argument
 * values or results, as the audit events they come from.
 */
import { type Context, context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { AuditEvent, AuditSink, BatchFinishedEvent, BatchStartedEvent, ToolCallEvent } from '../runtime/audit/audit-events.js';

/** Options of {@link otelAuditSink}. */
export interface OtelAuditSinkOptions {
  /** The tracer to start spans with (e.g. `trace.getTracer('my-host')`). */
  tracer: Tracer;
}

const ms = (date: string) => Date.parse(date);
type Attributes = Record<string, string | number>;

// Attribute values must be defined: set only what the event has. (Plain assignments:
// spreading and filtering these dotted-key objects cost ~10 µs per span.)
function put(attributes: Attributes, key: string, value: unknown): void {
  if (typeof value === 'string' || typeof value === 'number') attributes[key] = value;
}

function base(e: AuditEvent): Attributes {
  const a: Attributes = {};
  put(a, 'agt.run.id', e.runId);
  put(a, 'gen_ai.agent.name', e.agent);
  if ('batchId' in e) put(a, 'agt.batch.id', e.batchId);
  return a;
}

function fail(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** An AuditSink that emits a span per batch and per call (and per refresh and rejected batch). */
export function otelAuditSink(options: OtelAuditSinkOptions): AuditSink {
  const { tracer } = options;
  // The open batch spans, with the context their calls are started in.
  const batches = new Map<string, { span: Span; context: Context }>();
  const key = (e: ToolCallEvent | BatchStartedEvent | BatchFinishedEvent) => `${e.runId}\u0000${e.batchId}`;

  const onCall = (e: ToolCallEvent) => {
    const end = ms(e.at);
    const mcp = e.kind === 'mcp';
    const alias = String(e.tool);
    const name = mcp ? String(e.remoteTool) : alias;
    const a = base(e);
    a['gen_ai.operation.name'] = 'execute_tool';
    a['gen_ai.tool.name'] = name;
    a['gen_ai.tool.type'] = mcp ? 'extension' : 'function';
    a['agt.tool.alias'] = alias;
    put(a, 'gen_ai.tool.call.id', e.callId);
    put(a, 'agt.call.status', e.status);
    put(a, 'agt.permission.decided_by', e.decidedBy);
    if (e.cut !== undefined) {
      // B8: a result cut at the run's result budget (sizes only)
      put(a, 'agt.result.kept_chars', e.cut.keptChars);
      put(a, 'agt.result.total_chars', e.cut.totalChars);
    }
    if (mcp) {
      a['mcp.method.name'] = 'tools/call';
      put(a, 'agt.mount', e.mount);
    }
    const startTime = end - (typeof e.durationMs === 'number' ? e.durationMs : 0);
    const span = tracer.startSpan(
      mcp ? `tools/call ${name}` : `execute_tool ${name}`,
      { kind: mcp ? SpanKind.CLIENT : SpanKind.INTERNAL, startTime, attributes: a },
      batches.get(key(e))?.context,
    );
    if (e.status !== 'ok') fail(span, String(e.code ?? e.status));
    span.end(end);
  };

  return {
    traceContext(batch) {
      // The batch span: a server's spans of this batch's calls become its children.
      const span = batches.get(`${batch.runId}\u0000${batch.batchId}`)?.span;
      if (span === undefined) return undefined;
      const { traceId, spanId, traceFlags } = span.spanContext();
      return { traceparent: `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}` };
    },
    record(e: AuditEvent) {
      switch (e.type) {
        case 'batch_started': {
          const a = base(e);
          put(a, 'agt.batch.size', e.calls);
          const span = tracer.startSpan(`batch ${String(e.agent)}`, { kind: SpanKind.INTERNAL, startTime: ms(e.at), attributes: a });
          batches.set(key(e), { span, context: trace.setSpan(context.active(), span) });
          return;
        }
        case 'tool_call':
          onCall(e);
          return;
        case 'batch_finished': {
          const span = batches.get(key(e))?.span;
          batches.delete(key(e));
          if (!span) return;
          if (typeof e.failed === 'number' && e.failed > 0) span.setAttribute('agt.batch.failed', e.failed);
          span.end(ms(e.at));
          return;
        }
        case 'batch_rejected':
        case 'refresh': {
          const end = ms(e.at);
          const a = base(e);
          if (e.type === 'refresh') put(a, 'agt.refresh.trigger', e.trigger);
          const took = e.type === 'refresh' ? e.durationMs : 0;
          const span = tracer.startSpan(`${e.type === 'refresh' ? 'refresh' : 'batch'} ${String(e.agent)}`, {
            kind: SpanKind.INTERNAL,
            startTime: end - took,
            attributes: a,
          });
          if (e.type === 'batch_rejected') fail(span, String(e.reason ?? 'batch_rejected'));
          else if (e.status === 'failed') fail(span, String(e.code ?? 'refresh_failed'));
          span.end(end);
          return;
        }
        default:
      }
    },
  };
}
