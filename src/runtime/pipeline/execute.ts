/**
 * Stage 5, execute (B3): a validated, permitted call goes to its route — the
 * mounted server, a framework tool or a host delegate. Never throws: every
 * failure is the call's own result. MCP calls are bounded by the run's call
 * timeout and end at once when the run or batch is cancelled; the server is
 * sent `notifications/cancelled` (by the SDK) for both. Delegates end at once
 * when the run or batch is cancelled.
 */
import { type AgtErrorCode, isAgtError, resultErrorOf } from '../../errors.js';
import type { FrameworkContext, FrameworkOutcome } from '../../framework/tools.js';
import { abortable, NEVER_ABORTED, wasAborted } from './abort.js';
import { callResult } from './call-result.js';
import type { DelegateRoute, FrameworkRoute, McpRoute, Route } from '../assembly/snapshot.js';
import type { ProgressEvent, ToolResult } from '../types.js';
import type { TraceContext } from '../audit/audit-events.js';
import type { CallOptions, InputRetry } from '../../mcp/connection-types.js';
import type { Asked } from './pipeline.js';

/** What executing a call needs from its run and batch. */
export interface ExecuteContext {
  runId: string;
  agent: string;
  framework: FrameworkContext;
  /** Mounts whose server died during this run, with the code their calls fail with (connection_closed, or why a restart failed). */
  brokenMounts: Map<string, AgtErrorCode>;
  /** The run's calls in flight, per mount (told to elicitation and sampling handlers). */
  inFlight: Map<string, Set<string>>;
  /** Aborted when the run or this batch is cancelled. */
  signal: AbortSignal;
  callTimeoutMs: number;
  onProgress: ((event: ProgressEvent) => void) | undefined;
  /** Told about each successful framework change (refresh, F1). */
  onFrameworkChange(outcome: FrameworkOutcome): void;
  /** The trace context an MCP call of this batch carries (the audit sink's), if any. */
  traceContext?(): TraceContext | undefined;
}

/**
 * Stage 5: execute on the route (`input`: the retry of an MCP call whose server asked questions). No async frame of its
 * own: the route's executor's promise is handed back as it is (never rejects: each executor catches its own failures).
 */
export function execute(
  callId: string,
  route: Route,
  args: Record<string, unknown>,
  ctx: ExecuteContext,
  input?: InputRetry,
): Promise<ToolResult | Asked> {
  if (ctx.signal.aborted) return Promise.resolve(callResult(callId, { kind: 'aborted', aborted: ctx.signal }));
  if (route.kind === 'mcp') return executeMcp(callId, route, args, ctx, input);
  if (route.kind === 'delegate') return executeDelegate(callId, route, args, ctx);
  return executeFramework(callId, route, args, ctx);
}

// Framework tools are local and bounded by their own timeouts; they finish, so what they report is true.
async function executeFramework(
  callId: string,
  route: FrameworkRoute,
  args: Record<string, unknown>,
  ctx: ExecuteContext,
): Promise<ToolResult> {
  const parsed = route.tool.parse(args);
  if (!parsed.ok) {
    return callResult(callId, {
      kind: 'failed',
      failed: 'invalid_arguments',
      error: { code: 'invalid_arguments', message: 'the arguments are not valid for this tool', details: { issues: parsed.issues } },
    });
  }
  try {
    const outcome = await route.tool.run(parsed.value, ctx.framework);
    if (outcome.changed) ctx.onFrameworkChange(outcome);
    return callResult(callId, { kind: 'output', output: outcome.result as Record<string, unknown> });
  } catch (error) {
    return callResult(callId, { kind: 'thrown', thrown: error, fallback: 'the framework tool failed unexpectedly' }); // H1: domain errors keep the ToolError shape
  }
}

/** What executing an MCP call needs: a run's context, or a one-call session's (`agt mcp call`). */
export type McpExecuteContext = Pick<
  ExecuteContext,
  'runId' | 'brokenMounts' | 'inFlight' | 'signal' | 'callTimeoutMs' | 'onProgress' | 'traceContext'
>;

// A W3C traceparent (version 00) and a bounded tracestate: anything else is not sent.
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
function traceMeta(trace: TraceContext | undefined): Record<string, string> | undefined {
  if (trace === undefined || !TRACEPARENT.test(trace.traceparent)) return undefined;
  const meta: Record<string, string> = { traceparent: trace.traceparent };
  if (typeof trace.tracestate === 'string' && trace.tracestate.length <= 512) meta.tracestate = trace.tracestate;
  return meta;
}

/** Stage 5 on an MCP route: the call's result, or the questions its server asks that the run defers; never a throw. */
export async function executeMcp(
  id: string,
  route: McpRoute,
  args: Record<string, unknown>,
  ctx: McpExecuteContext,
  input?: InputRetry,
): Promise<ToolResult | Asked> {
  if (ctx.brokenMounts.has(route.mount) || route.connection.closed) {
    const code = ctx.brokenMounts.get(route.mount) ?? 'connection_closed';
    ctx.brokenMounts.set(route.mount, code);
    const message =
      code === 'connection_closed'
        ? `the server of mount "${route.mount}" is not running; it is loaded again at the next batch boundary (pooled runs) or by the next run`
        : `the server of mount "${route.mount}" went away and could not be started again (${code}); its calls fail until it can`;
    return callResult(id, { kind: 'failed', failed: 'tool_failed', error: resultErrorOf(code, message) });
  }
  const inFlight = ctx.inFlight.get(route.mount) ?? ctx.inFlight.set(route.mount, new Set()).get(route.mount)!;
  inFlight.add(id);
  try {
    const onProgress = ctx.onProgress;
    const meta = traceMeta(ctx.traceContext?.());
    // One options object, completed in place (no spread per option).
    const options: CallOptions = { timeoutMs: ctx.callTimeoutMs };
    if (meta !== undefined) options.meta = meta;
    if (input !== undefined) options.input = input;
    // NEVER_ABORTED is shared by every run: hooking each call to it would only pile up listeners.
    if (ctx.signal !== NEVER_ABORTED) options.signal = ctx.signal;
    if (onProgress) options.onProgress = (p) => onProgress({ runId: ctx.runId, callId: id, tool: route.name, ...p });
    const result = await route.connection.callToolOrInput(route.remoteTool, args, options);
    if ('resultType' in result) return { asked: result };
    return callResult(id, { kind: 'answer', answer: result });
  } catch (error) {
    if (isAgtError(error) && error.code === 'connection_closed') ctx.brokenMounts.set(route.mount, error.code);
    // Cancelled by the host, or the batch's deadline: the server was sent notifications/cancelled (by the SDK).
    if (ctx.signal.aborted) return callResult(id, { kind: 'aborted', aborted: ctx.signal, told: true });
    return callResult(id, { kind: 'callError', callError: error, mount: route.mount, timeoutMs: ctx.callTimeoutMs });
  } finally {
    inFlight.delete(id);
  }
}

// Delegates hand work to another agent, which may take long: they are not bounded by
// callTimeoutMs, only cancelled with the run or batch (their handler gets the signal).
async function executeDelegate(id: string, route: DelegateRoute, args: Record<string, unknown>, ctx: ExecuteContext): Promise<ToolResult> {
  try {
    const input = {
      agent: String(args.agent),
      task: String(args.task),
      ...(typeof args.context === 'string' ? { context: args.context } : {}),
    };
    const out = await abortable(
      route.tool.handler(input, { runId: ctx.runId, from: ctx.agent, callId: id, signal: ctx.signal }),
      ctx.signal,
    );
    if (wasAborted(out)) return callResult(id, { kind: 'aborted', aborted: ctx.signal });
    return callResult(id, { kind: 'output', output: out });
  } catch (error) {
    return callResult(id, { kind: 'thrown', thrown: error, fallback: 'the delegate tool failed' });
  }
}
