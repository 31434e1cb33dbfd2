/**
 * The second half of a deferred call: the host's decision. A rejected call
 * ends as permission_denied with the approver's reason; an expired one as
 * permission_denied (approval expired); an approved one is checked again on
 * the run's live snapshot — a tool that changed or went away since it was
 * deferred ends the call as approval_stale, never executed against a changed
 * tool — then its arguments are validated again and it runs through before →
 * execute → after like any permitted call.
 */
import { readArguments } from './arguments.js';
import { isExpired, type StoredApproval, type TakenApproval, toolHashOf } from './approvals.js';
import { ApprovedPath, callAudit, type CallContext } from './call.js';
import { callResult } from './call-result.js';
import { runCall } from './pipeline.js';
import { mapLimit } from './run-audit.js';
import type { Route } from './snapshot.js';
import type { CallIdentity, ToolResult } from './types.js';
import { defined } from '../json.js';

/** Who decided a deferred call, as its tool_call audit event names it. */
const APPROVER = 'human';

/** Ends the decided calls of one batch, in call order, up to `concurrency` at once. */
export function decideCalls(
  taken: readonly TakenApproval[],
  routes: ReadonlyMap<string, Route>,
  ctx: CallContext,
  concurrency: number,
): Promise<ToolResult[]> {
  const now = Date.now();
  const approved = new ApprovedPath(ctx, APPROVER); // permitted by the approver: no stage 3
  return mapLimit(taken, concurrency, (t) => decideOne(t, routes.get(t.approval.tool), ctx, approved, now));
}

async function decideOne(
  { approval: a, decision }: TakenApproval,
  route: Route | undefined,
  ctx: CallContext,
  approved: ApprovedPath,
  now: number,
): Promise<ToolResult> {
  const audit = callAudit(ctx, () => identityOf(a, ctx));
  if (isExpired(a, now)) {
    return audit(
      callResult(a.callId, {
        failed: 'permission_denied',
        error: {
          code: 'permission_denied',
          message: 'the approval expired before it was decided (approvalTtlMs); the call did not run: call again if it is still needed',
          details: { by: 'policy', reason: 'approval_expired', expiresAt: a.expiresAt },
        },
      }),
      'policy',
    );
  }
  if (!decision.approve) {
    return audit(
      callResult(a.callId, {
        failed: 'permission_denied',
        error: { code: 'permission_denied', message: decision.reason ?? 'the approver rejected this call', details: { by: APPROVER } },
      }),
      APPROVER,
    );
  }
  if (route === undefined || toolHashOf(route) !== a.toolHash) {
    return audit(
      callResult(a.callId, {
        failed: 'tool_failed',
        error: {
          code: 'approval_stale',
          message: `the tool "${a.tool}" ${route === undefined ? 'is gone' : 'changed (schema or annotations)'} since this call was deferred; it did not run: call it again if it is still needed`,
          details: { tool: a.tool },
        },
      }),
      APPROVER,
    );
  }
  // Validated again on the live snapshot, with the run's bounds (a stored record is read like model input).
  const ended = await runCall(a.callId, route, readArguments(a.arguments, ctx.limits), approved);
  return audit(ended.result, ended.decidedBy);
}

// The call's identity from what was stored (its tool may be gone from the snapshot).
function identityOf(a: StoredApproval, ctx: CallContext): CallIdentity {
  return {
    runId: ctx.runId,
    agent: ctx.agent,
    batchId: a.batchId,
    callId: a.callId,
    tool: a.tool,
    kind: a.kind,
    ...defined({ mount: a.mount, remoteTool: a.remoteTool }),
  };
}
