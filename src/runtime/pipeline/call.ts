/**
 * One call of a run's batch through the pipeline (pipeline.ts: validate →
 * permission → before hooks → execute → output check → bound → after hooks),
 * with exactly one audit event per call. One call's failure never stops the
 * others (B5). Audit events carry no argument values.
 */
import { defined, setOwn } from '../../json.js';
import type { AfterHook, BeforeHook, CallIdentity, PermissionPolicy, PermissionRequest, ToolResult } from '../types.js';
import type { McpInputRequired, McpTaskStarted } from '../../mcp/connection-types.js';
import type { Deferred } from './stages.js';
import type { CheckedCall } from './batch-check.js';
import { execute } from './execute.js';
import type { Route } from '../assembly/snapshot.js';
import { type Asked, type CallPath, NOT_COPIED, runCall } from './pipeline.js';
import type { AppOrigin, CallContext } from './call-context.js';
import { visibleToApp, visibleToModel } from '../model-tools.js';
import { callIdentity, recordSafely } from './call-identity.js';
import { RESULT_READ } from '../results/result-read.js';

/** The stages a run's calls go through, with the batch's policy, hooks and bounds (one per batch, no closures). */
export class RunPath implements CallPath<Route> {
  readonly signal: AbortSignal;
  readonly policy: PermissionPolicy | undefined;
  readonly before: readonly BeforeHook[];
  readonly after: readonly AfterHook[];
  readonly maxResultBytes: number;
  readonly #ctx: CallContext;

  constructor(ctx: CallContext) {
    this.#ctx = ctx;
    this.signal = ctx.signal;
    this.policy = ctx.policy;
    this.before = ctx.before;
    this.after = ctx.after;
    this.maxResultBytes = ctx.limits.maxResultBytes;
  }

  /** The permission request of a call of this batch. */
  request(callId: string, route: Route, args: Record<string, unknown>, withArguments: boolean): PermissionRequest {
    return permissionRequest(this.#ctx, callId, route, withArguments ? args : undefined);
  }

  /** Stage 5 on the call's route; with apps on, an ok result of a tool with an interface says so (`app`). */
  execute(callId: string, route: Route, args: Record<string, unknown>): Promise<ToolResult | Asked> {
    const executed = execute(callId, route, args, this.#ctx);
    if (!this.#ctx.apps || route.kind !== 'mcp' || route.ui?.resourceUri === undefined) return executed;
    const app = { resourceUri: route.ui.resourceUri, mount: route.mount };
    return executed.then((r) => ('status' in r && r.status === 'ok' ? { ...r, app } : r));
  }

  /**
   * Stage 9 (B8): a result the model gets, over the run's budget, cut and kept whole; an app's calls (their results
   * go to the app, not the model) and result_read's own pages (within the budget by construction) are never cut.
   */
  budget(route: Route, result: ToolResult): ToolResult {
    const results = this.#ctx.results;
    if (results === undefined || this.#ctx.origin !== undefined || (route.kind === 'framework' && route.name === RESULT_READ))
      return result;
    return results.cut(result, route.name);
  }

  /** Structured results come from servers: only theirs are checked against an outputSchema. */
  checksOutput(route: Route): boolean {
    return route.kind === 'mcp';
  }
}

/** The path of calls a host approved (run.decide): no policy stage, `decidedBy` the approver; the rest as in the batch. */
export class ApprovedPath extends RunPath {
  override readonly policy = undefined;
  readonly decidedBy: string;

  constructor(ctx: CallContext, approver: string) {
    super(ctx);
    this.decidedBy = approver;
  }
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

/** Records a call's one tool_call event when it ends (no sink: builds nothing); returns the result. */
export type CallAudit = (result: ToolResult, decidedBy?: string) => Promise<ToolResult>;

/** The audit of one call, timed from now. */
export function callAudit(ctx: CallContext, identity: () => CallIdentity): CallAudit {
  const started = performance.now();
  return async (result, decidedBy) => {
    if (ctx.audit === undefined) return result; // no sink: build no event
    const issues =
      result.status !== 'ok' && result.error.code === 'output_invalid'
        ? (result.error.details?.issues as { instancePath: string; keyword: string }[])
        : undefined;
    await recordSafely(ctx.audit, {
      type: 'tool_call',
      at: new Date().toISOString(),
      ...identity(),
      status: result.status,
      ...(result.status === 'ok' ? {} : { code: result.error.code }),
      ...(decidedBy ? { decidedBy } : {}),
      ...(result.status === 'ok' || result.status === 'tool_error' ? defined({ cut: result.cut }) : {}), // B8: sizes only
      ...(issues ? { outputIssues: issues.map((i) => ({ instancePath: i.instancePath, keyword: i.keyword })) } : {}),
      durationMs: Math.round(performance.now() - started),
    });
    return result;
  };
}

/** The permission request of a valid call: its identity, the tool's annotations and a frozen copy of the arguments (undefined: NOT_COPIED). */
export function permissionRequest(
  ctx: CallContext,
  callId: string,
  route: Route,
  args: Record<string, unknown> | undefined,
): PermissionRequest {
  const request = callIdentity(ctx, callId, route) as PermissionRequest; // completed here, then frozen
  if (route.kind === 'mcp' && route.annotations !== undefined) request.annotations = route.annotations;
  request.arguments = args === undefined ? NOT_COPIED : (frozenCopy(args) as Readonly<Record<string, unknown>>);
  return Object.freeze(request);
}

/** A call the pipeline left waiting, as data (the run's waiting calls keep it: pending/wait.ts). */
export type CallWait =
  /** A policy deferred it, with its permission request (the validated arguments). */
  | { kind: 'approval'; index: number; route: Route; request: PermissionRequest; deferred: Deferred }
  /** Its server asked questions the run defers (E4), or runs it as a task the run defers (E6). */
  | { kind: 'asked'; call: AskedCall; route: Route; asked: McpInputRequired | McpTaskStarted };

/** The call that waits for answers or its task: its id and place in the batch, the arguments it ran with, who permitted it, which round asked. */
export interface AskedCall {
  callId: string;
  index: number;
  args: Record<string, unknown>;
  by: string;
  round: number;
}

/**
 * Runs one call of a batch through the run's path and records its audit event. A call left waiting is handed, as
 * its wait, to `keep` (the run's waiting calls: they record it and its audit event), as soon as it waits.
 */
export async function processCall<W>(
  call: CheckedCall,
  route: Route,
  ctx: CallContext,
  path: CallPath<Route>,
  keep: (wait: CallWait, ctx: CallContext) => Promise<W>,
): Promise<ToolResult | W> {
  // No sink (the usual case): no audit closure, and the call's result comes back with no promise of its own.
  const audit = ctx.audit === undefined ? undefined : callAudit(ctx, () => callIdentity(ctx, call.callId, route));
  const refused = appRefusal(call.callId, route, ctx.origin);
  if (refused !== undefined) return audit === undefined ? refused : audit(refused, 'policy');
  const outcome = await runCall(call.callId, route, call.arguments, path);
  if (outcome.kind === 'deferred')
    return keep({ kind: 'approval', index: call.index, route, request: outcome.request, deferred: outcome.deferred }, ctx);
  if (outcome.kind === 'asked') {
    const asked = { callId: call.callId, index: call.index, args: outcome.args, by: outcome.decidedBy ?? 'auto', round: 1 };
    return keep({ kind: 'asked', call: asked, route, asked: outcome.asked }, ctx);
  }
  return audit === undefined ? outcome.result : audit(outcome.result, outcome.decidedBy);
}

/**
 * MCP Apps (U1, U3): who may call a tool. The model may not call a tool visible to its app only; an app may call only
 * the tools of its own tool's server that are visible to apps (never a framework or delegate tool). Undefined: allowed.
 */
export function appRefusal(callId: string, route: Route, origin: AppOrigin | undefined): ToolResult | undefined {
  if (origin === undefined) {
    if (visibleToModel(route)) return undefined;
    return denied(callId, `tool "${route.name}" is for its app only (MCP Apps visibility); the model may not call it`);
  }
  if (route.kind !== 'mcp' || route.mount !== origin.mount)
    return denied(callId, `an app may call only the tools of its own server; "${route.name}" is not one of them`);
  if (!visibleToApp(route))
    return denied(callId, `tool "${route.name}" is for the model only (MCP Apps visibility); an app may not call it`);
  return undefined;
}

const denied = (callId: string, message: string): ToolResult => ({
  callId,
  status: 'permission_denied',
  error: { code: 'permission_denied', message, details: { reason: 'app_visibility' } },
});
