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
import { callAudit, type CallContext, permissionRequest, runPermitted } from './call.js';
import { mapLimit } from './run-audit.js';
import type { Route } from './snapshot.js';
import { failedResult, validateArguments } from './stages.js';
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
  return mapLimit(taken, concurrency, (t) => decideOne(t, routes.get(t.approval.tool), ctx, now));
}

async function decideOne({ approval: a, decision }: TakenApproval, route: Route | undefined, ctx: CallContext, now: number) {
  const audit = callAudit(ctx, () => identityOf(a, ctx));
  if (isExpired(a, now)) {
    return audit(
      failedResult(a.callId, 'permission_denied', {
        code: 'permission_denied',
        message: 'the approval expired before it was decided (approvalTtlMs); the call did not run: call again if it is still needed',
        details: { by: 'policy', reason: 'approval_expired', expiresAt: a.expiresAt },
      }),
      'policy',
    );
  }
  if (!decision.approve) {
    return audit(
      failedResult(a.callId, 'permission_denied', {
        code: 'permission_denied',
        message: decision.reason ?? 'the approver rejected this call',
        details: { by: APPROVER },
      }),
      APPROVER,
    );
  }
  if (route === undefined || toolHashOf(route) !== a.toolHash) {
    return audit(
      failedResult(a.callId, 'tool_failed', {
        code: 'approval_stale',
        message: `the tool "${a.tool}" ${route === undefined ? 'is gone' : 'changed (schema or annotations)'} since this call was deferred; it did not run: call it again if it is still needed`,
        details: { tool: a.tool },
      }),
      APPROVER,
    );
  }
  // Validated again on the live snapshot, with the run's bounds (a stored record is read like model input).
  const parsed = validateArguments(a.callId, readArguments(a.arguments, ctx.limits), route);
  if (!parsed.go) return audit(parsed.result);
  return runPermitted(permissionRequest(ctx, a.callId, route, parsed.value), route, parsed.value, APPROVER, ctx, audit);
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
