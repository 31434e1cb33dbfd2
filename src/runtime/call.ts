/**
 * One call through stages 2–6 (B3–B5): parse and validate → permission →
 * before hooks → execute → output check → after hooks, with exactly one audit
 * event per call. One call's failure never stops the others (B5). Audit events
 * carry no argument values.
 */
import { setOwn } from '../json.js';
import type {
  AfterHook,
  AuditEvent,
  AuditSink,
  BeforeHook,
  CallIdentity,
  PermissionPolicy,
  PermissionRequest,
  ToolResult,
} from './types.js';
import type { CheckedCall } from './batch-check.js';
import { execute, type ExecuteContext } from './execute.js';
import type { Route } from './snapshot.js';
import type { RunLimits } from './limits.js';
import { boundResult, cancelledResult, checkOutput, reviewPermission, validateArguments, runAfterHooks, runBeforeHooks } from './stages.js';

/** What every call of a batch shares. */
export interface CallContext extends ExecuteContext {
  batchId: string;
  policy: PermissionPolicy;
  before: readonly BeforeHook[];
  after: readonly AfterHook[];
  audit: AuditSink | undefined;
  limits: RunLimits;
}

// One pass: a frozen deep copy of JSON arguments (hooks and policies get this; the backend gets the original).
function frozenCopy(value: unknown): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setOwn(out, key, frozenCopy((value as Record<string, unknown>)[key]));
    return Object.freeze(out);
  }
  return value;
}

// Who and what: the fields the permission request and the audit event both name (a fresh object each time).
function callIdentity(ctx: CallContext, call: CheckedCall, route: Route): CallIdentity {
  const { runId, agent, batchId } = ctx;
  return route.kind === 'mcp'
    ? { runId, agent, batchId, callId: call.callId, tool: route.name, kind: route.kind, mount: route.mount, remoteTool: route.remoteTool }
    : { runId, agent, batchId, callId: call.callId, tool: route.name, kind: route.kind };
}

/** Runs stages 2–6 for one call and records its audit event. */
export async function processCall(call: CheckedCall, route: Route, ctx: CallContext): Promise<ToolResult> {
  const started = performance.now();
  const audit = async (result: ToolResult, decidedBy?: string): Promise<ToolResult> => {
    if (ctx.audit === undefined) return result; // no sink: build no event
    const issues =
      result.status !== 'ok' && result.error.code === 'output_invalid'
        ? (result.error.details?.issues as { instancePath: string; keyword: string }[])
        : undefined;
    await recordSafely(ctx.audit, {
      type: 'tool_call',
      at: new Date().toISOString(),
      ...callIdentity(ctx, call, route),
      status: result.status,
      ...(result.status === 'ok' ? {} : { code: result.error.code }),
      ...(decidedBy ? { decidedBy } : {}),
      ...(issues ? { outputIssues: issues.map((i) => ({ instancePath: i.instancePath, keyword: i.keyword })) } : {}),
      durationMs: Math.round(performance.now() - started),
    });
    return result;
  };
  if (ctx.signal.aborted) return audit(cancelledResult(call.callId));
  const parsed = validateArguments(call.callId, call.arguments, route);
  if (!parsed.go) return audit(parsed.result);
  const request = callIdentity(ctx, call, route) as PermissionRequest; // completed here, then frozen
  if (route.kind === 'mcp' && route.annotations !== undefined) request.annotations = route.annotations;
  request.arguments = frozenCopy(parsed.value) as Readonly<Record<string, unknown>>;
  Object.freeze(request);
  const permission = await reviewPermission(request, ctx.policy, ctx.signal);
  if (!permission.go) return audit(permission.result, permission.decidedBy);
  const before = await runBeforeHooks(request, ctx.before, ctx.signal);
  if (!before.go) return audit(before.result, permission.value);
  let result = await execute(call, route, parsed.value, ctx);
  if (route.kind === 'mcp') result = checkOutput(result, route); // structured results come from the server
  result = boundResult(result, ctx.limits.maxResultBytes);
  return audit(await runAfterHooks(request, result, ctx.after, ctx.signal), permission.value);
}

/** Records an audit event; a failing sink never breaks a run. */
export async function recordSafely(sink: AuditSink | undefined, event: AuditEvent): Promise<void> {
  try {
    await sink?.record(event);
  } catch {
    // audit sinks must not break runs
  }
}
