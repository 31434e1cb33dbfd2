/**
 * A call begins to wait: the one place a pending call's record and its audit
 * event are made, for both kinds — a call a policy deferred (an approval:
 * `approval_requested`) and a call whose server asked questions the run
 * defers (E4: `input_requested`, the questions' keys and methods, never
 * their text). The record keeps the validated arguments and, for questions,
 * the questions (masked) and the server's `requestState` (verbatim, bounded,
 * never parsed or shown) until the host decides it with `run.decide`.
 */
import { defined } from '../../json.js';
import type { McpInputRequired, McpTask, McpTaskStarted } from '../../mcp/connection-types.js';
import { clampTtl } from '../../mcp/tasks/task-of.js';
import type { CallContext } from '../pipeline/call-context.js';
import { callIdentity, recordSafely } from '../pipeline/call-identity.js';
import type { Route } from '../assembly/snapshot.js';
import type { Deferred } from '../pipeline/stages.js';
import type { PermissionRequest } from '../types.js';
import type { AskedCall, CallWait } from '../pipeline/call.js';
import { type ApprovalWait, type InputWait, type TaskWait, toolHashOf, type Waiting } from './waiting-call.js';

// The record both kinds share: the call's identity and tool, its arguments, who let it through, when it began and ends.
function recordOf(ctx: CallContext, route: Route, call: { callId: string; index: number; args: Record<string, unknown>; by: string }) {
  const now = Date.now();
  const { runId: _runId, agent: _agent, ...identity } = callIdentity(ctx, call.callId, route);
  return {
    ...identity,
    ...(route.kind === 'mcp' && route.annotations !== undefined ? { annotations: route.annotations } : {}),
    index: call.index,
    arguments: call.args,
    by: call.by,
    deferredAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ctx.approvalTtlMs).toISOString(),
    toolHash: toolHashOf(route),
  };
}

/** Keeps a call the pipeline left waiting (its wait, as data): a policy deferred it, or its server asked or runs a task. */
export function keepWait(wait: CallWait, ctx: CallContext): Promise<Waiting> {
  return wait.kind === 'approval'
    ? waitForApproval(wait.index, wait.route, wait.request, wait.deferred, ctx)
    : waitForInput(wait.call, wait.route, wait.asked, ctx);
}

/** Keeps a call a policy deferred, and records approval_requested. */
export async function waitForApproval(
  index: number,
  route: Route,
  request: PermissionRequest,
  verdict: Deferred,
  ctx: CallContext,
): Promise<Waiting> {
  const args = request.arguments as Record<string, unknown>;
  const approval: ApprovalWait = {
    ...recordOf(ctx, route, { callId: request.callId, index, args, by: verdict.by }),
    waitingFor: 'approval',
    ...defined({ reason: verdict.reason }),
  };
  if (ctx.audit !== undefined) {
    await recordSafely(ctx.audit, {
      type: 'approval_requested',
      at: approval.deferredAt,
      ...callIdentity(ctx, request.callId, route),
      decidedBy: verdict.by,
      expiresAt: approval.expiresAt,
    });
  }
  return { deferred: approval };
}

/** Keeps a call whose server asked `asked` (input_requested), or runs it as a task the run defers (task_started). */
export async function waitForInput(
  call: AskedCall,
  route: Route,
  asked: McpInputRequired | McpTaskStarted,
  ctx: CallContext,
): Promise<Waiting> {
  if (asked.resultType === 'task') return waitForTask(call, route, asked.task, ctx);
  const approval: InputWait = {
    ...recordOf(ctx, route, call),
    waitingFor: 'input',
    requests: asked.inputRequests,
    ...defined({ requestState: asked.requestState }),
    round: call.round,
  };
  if (ctx.audit !== undefined) {
    await recordSafely(ctx.audit, {
      type: 'input_requested',
      at: approval.deferredAt,
      ...callIdentity(ctx, call.callId, route),
      requests: Object.entries(asked.inputRequests).map(([key, r]) => ({ key, method: r.method })),
      round: call.round,
      expiresAt: approval.expiresAt,
    });
  }
  return { deferred: approval };
}

/** Keeps a call whose server runs it as `task` (E6), and records task_started (ids and status only; not when it `resumed` after answers). */
export async function waitForTask(call: AskedCall, route: Route, task: McpTask, ctx: CallContext, resumed = false): Promise<Waiting> {
  const record = recordOf(ctx, route, call);
  // A task waits as long as its server keeps it (its TTL), at least as long as an approval would; a TTL is cut to
  // MAX_SERVER_TASK_TTL_MS before a date is made of it (issue 58 #1: a connection's taskOf cuts it already).
  const ttl = Math.max(clampTtl(task.ttlMs) ?? 0, ctx.approvalTtlMs);
  const approval: TaskWait = {
    ...record,
    expiresAt: new Date(Date.parse(record.deferredAt) + ttl).toISOString(),
    waitingFor: 'task',
    task,
    ...(resumed ? { round: call.round } : {}),
  };
  if (ctx.audit !== undefined && !resumed) {
    await recordSafely(ctx.audit, {
      type: 'task_started',
      at: approval.deferredAt,
      ...callIdentity(ctx, call.callId, route),
      taskId: task.id,
      status: task.status,
    });
  }
  return { deferred: approval };
}
