/**
 * Stages 2–6 of one call (B3–B5): parse and validate → permission → before
 * hooks → execute → after hooks. Each stage is a named function whose outcome
 * either lets the call go on or ends it with a ToolResult. An invalid call
 * never reaches a policy or a backend (B4); one call's failure never stops
 * the others (B5). Audit events carry no argument values.
 */
import { contentText, isAgtError, readToolError } from '../errors.js';
import type { FrameworkContext, FrameworkOutcome } from '../framework/tools.js';
import type { ArgumentIssue } from '../schema/issues.js';
import type { CompiledToolSchema } from '../schema/registry.js';
import type { Route } from './snapshot.js';
import type { AfterHook, AuditSink, BeforeHook, PermissionPolicy, PermissionRequest, ResultError, ToolCall, ToolResult } from './types.js';

/** What every call of a batch shares. */
export interface CallContext {
  runId: string;
  agent: string;
  batchId: string;
  policy: PermissionPolicy;
  before: readonly BeforeHook[];
  after: readonly AfterHook[];
  audit: AuditSink | undefined;
  framework: FrameworkContext;
  /** Mounts whose server died during this run. */
  brokenMounts: Set<string>;
  /** Told about each successful framework change (refresh, F1). */
  onFrameworkChange(outcome: FrameworkOutcome): void;
}

type Stage<T> = { go: true; value: T } | { go: false; result: ToolResult };

const failed = (id: string, status: Exclude<ToolResult['status'], 'ok'>, error: ResultError): { go: false; result: ToolResult } => ({
  go: false,
  result: { tool_call_id: id, status, error },
});

/** Stage 2: arguments as an object (a JSON string or an object), valid for the route's schema. */
export function parseAndValidate(call: ToolCall, route: { validator: CompiledToolSchema }): Stage<Record<string, unknown>> {
  let args: unknown = call.arguments;
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      return failed(call.id, 'invalid_arguments', {
        code: 'invalid_arguments',
        message: 'the arguments are not valid JSON; send a JSON object',
        details: { issues: [{ instancePath: '', schemaPath: '', keyword: 'json', message: 'not valid JSON' }] satisfies ArgumentIssue[] },
      });
    }
  }
  const validation = route.validator.validate(args);
  if (!validation.ok) {
    const first = validation.issues[0];
    const where = first?.instancePath ? ` at "${first.instancePath}"` : '';
    return failed(call.id, 'invalid_arguments', {
      code: 'invalid_arguments',
      message: `the arguments do not match the tool's schema${where}: ${first?.message ?? 'invalid'}; correct them and call again`,
      details: { issues: validation.issues },
    });
  }
  return { go: true, value: args as Record<string, unknown> };
}

/** Stage 3: the permission policy (G4). A throw or an abstention denies. */
export async function reviewPermission(request: PermissionRequest, policy: PermissionPolicy): Promise<Stage<string>> {
  let verdict;
  try {
    verdict = await policy.review(request);
  } catch {
    verdict = { decision: 'deny' as const, by: 'policy' as const, reason: 'the permission policy failed' };
  }
  if (verdict.decision === 'allow') return { go: true, value: verdict.by };
  return failed(request.callId, 'permission_denied', {
    code: 'permission_denied',
    message: verdict.reason ?? 'this call was not allowed',
    details: { by: verdict.by },
  });
}

/** Stage 4: before hooks; the first denial ends the call. */
export async function runBeforeHooks(request: PermissionRequest, hooks: readonly BeforeHook[]): Promise<Stage<null>> {
  for (const hook of hooks) {
    let outcome;
    try {
      outcome = await hook(request);
    } catch {
      outcome = { deny: 'a before hook failed' };
    }
    if (outcome && typeof outcome === 'object' && typeof outcome.deny === 'string') {
      return failed(request.callId, 'permission_denied', { code: 'permission_denied', message: outcome.deny, details: { by: 'hook' } });
    }
  }
  return { go: true, value: null };
}

/** Stage 5: execute on the route (MCP server, framework tool, delegate). Never throws. */
export async function execute(call: ToolCall, route: Route, args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
  const id = call.id;
  if (route.kind === 'mcp') {
    if (ctx.brokenMounts.has(route.mount) || route.connection.closed) {
      ctx.brokenMounts.add(route.mount);
      return failed(id, 'tool_failed', { code: 'connection_closed', message: `the server of mount "${route.mount}" is not running; it is loaded again by the next run` }).result;
    }
    try {
      const result = await route.connection.callTool(route.remoteTool, args);
      if (result.isError === true) return { tool_call_id: id, status: 'tool_error', error: serverError(result.content) };
      return { tool_call_id: id, status: 'ok', content: result.content, ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }) };
    } catch (error) {
      if (isAgtError(error) && error.code === 'connection_closed') ctx.brokenMounts.add(route.mount);
      return failed(id, 'tool_failed', {
        code: isAgtError(error) ? error.code : 'tool_failed',
        message: isAgtError(error) && error.code === 'connection_closed' ? `the server of mount "${route.mount}" went away during the call` : 'the call failed before the server answered',
      }).result;
    }
  }
  if (route.kind === 'framework') {
    const parsed = route.tool.parse(args);
    if (!parsed.ok) {
      return failed(id, 'invalid_arguments', { code: 'invalid_arguments', message: 'the arguments are not valid for this tool', details: { issues: parsed.issues } }).result;
    }
    try {
      const outcome = await route.tool.run(parsed.value, ctx.framework);
      if (outcome.changed) ctx.onFrameworkChange(outcome);
      return { tool_call_id: id, status: 'ok', content: [{ type: 'text', text: JSON.stringify(outcome.result) }], structuredContent: outcome.result };
    } catch (error) {
      // H1: domain errors keep the ToolError shape.
      if (isAgtError(error)) return failed(id, 'tool_error', { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }).result;
      return failed(id, 'tool_failed', { code: 'tool_failed', message: 'the framework tool failed unexpectedly' }).result;
    }
  }
  try {
    const input = { agent: String(args.agent), task: String(args.task), ...(typeof args.context === 'string' ? { context: args.context } : {}) };
    const out = await route.tool.handler(input, { runId: ctx.runId, from: ctx.agent, callId: id });
    return { tool_call_id: id, status: 'ok', content: typeof out === 'string' ? [{ type: 'text', text: out }] : out.content };
  } catch {
    return failed(id, 'tool_failed', { code: 'tool_failed', message: 'the delegate tool failed' }).result;
  }
}

// A server's tool error: our ToolError convention ({ error: { code, message } } as text) when present.
function serverError(content: unknown[]): ResultError {
  const declared = readToolError(content);
  if (declared !== undefined) return { code: declared.code, message: declared.message, details: { content } };
  return { code: 'tool_error', message: contentText(content).slice(0, 2000) || 'the tool reported an error', details: { content } };
}

/** Stage 6: after hooks; each may replace the result's content (redaction). */
export async function runAfterHooks(request: PermissionRequest, result: ToolResult, hooks: readonly AfterHook[]): Promise<ToolResult> {
  let current = result;
  for (const hook of hooks) {
    try {
      const outcome = await hook(request, current);
      if (outcome && Array.isArray(outcome.content) && current.status === 'ok') current = { ...current, content: outcome.content };
    } catch {
      // an observer's failure does not change the result
    }
  }
  return current;
}

// One pass: a frozen deep copy of JSON arguments (hooks and policies get this; the backend gets the original).
function frozenCopy(value: unknown): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = frozenCopy((value as Record<string, unknown>)[key]);
    return Object.freeze(out);
  }
  return value;
}

/** Runs stages 2–6 for one call and records its audit event. */
export async function processCall(call: ToolCall, route: Route, ctx: CallContext): Promise<ToolResult> {
  const started = performance.now();
  const audit = async (result: ToolResult, decidedBy?: string): Promise<ToolResult> => {
    if (ctx.audit === undefined) return result; // no sink: build no event
    await recordSafely(ctx.audit, {
      type: 'tool_call', at: new Date().toISOString(), runId: ctx.runId, agent: ctx.agent, batchId: ctx.batchId,
      callId: call.id, tool: route.name, kind: route.kind, ...(route.kind === 'mcp' ? { mount: route.mount, remoteTool: route.remoteTool } : {}),
      status: result.status, ...(result.status === 'ok' ? {} : { code: result.error.code }), ...(decidedBy ? { decidedBy } : {}),
      durationMs: Math.round(performance.now() - started),
    });
    return result;
  };
  const parsed = parseAndValidate(call, route);
  if (!parsed.go) return audit(parsed.result);
  const request: PermissionRequest = Object.freeze({
    runId: ctx.runId, agent: ctx.agent, batchId: ctx.batchId, callId: call.id, tool: route.name, kind: route.kind,
    ...(route.kind === 'mcp' ? { mount: route.mount, remoteTool: route.remoteTool } : {}),
    arguments: frozenCopy(parsed.value) as Readonly<Record<string, unknown>>,
  });
  const permission = await reviewPermission(request, ctx.policy);
  if (!permission.go) return audit(permission.result, (permission.result as { error: ResultError }).error.details?.by as string);
  const before = await runBeforeHooks(request, ctx.before);
  if (!before.go) return audit(before.result, permission.value);
  const result = await execute(call, route, parsed.value, ctx);
  return audit(await runAfterHooks(request, result, ctx.after), permission.value);
}

/** Records an audit event; a failing sink never breaks a run. */
export async function recordSafely(sink: AuditSink | undefined, event: Record<string, unknown> & { type: string; at: string }): Promise<void> {
  try {
    await sink?.record(event);
  } catch {
    // audit sinks must not break runs
  }
}
