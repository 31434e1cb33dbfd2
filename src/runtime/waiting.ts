/**
 * Calls whose server asked questions the run defers (E4): kept like a
 * deferred approval — the validated arguments, the questions (masked) and the
 * server's `requestState` (verbatim, bounded, never parsed or shown) — until
 * the host answers or declines them with `run.decide`. The audit records the
 * questions' keys and methods, never their text.
 */
import { defined } from '../json.js';
import type { McpInputRequired } from '../mcp/connection-types.js';
import { type StoredApproval, toolHashOf } from './approvals.js';
import type { CallContext } from './call-context.js';
import { callIdentity, recordSafely } from './call-identity.js';
import type { Route } from './snapshot.js';

/** The call to keep: its id and place in the batch, the arguments it ran with, who permitted it, which round asked. */
export interface AskedCall {
  callId: string;
  index: number;
  args: Record<string, unknown>;
  by: string;
  round: number;
}

/** Keeps a call whose server asked `asked`, and records input_requested. */
export async function awaitInput(
  call: AskedCall,
  route: Route,
  asked: McpInputRequired,
  ctx: CallContext,
): Promise<{ deferred: StoredApproval }> {
  const now = Date.now();
  const { runId: _runId, agent: _agent, ...identity } = callIdentity(ctx, call.callId, route);
  const approval: StoredApproval = {
    ...identity,
    ...(route.kind === 'mcp' && route.annotations !== undefined ? { annotations: route.annotations } : {}),
    index: call.index,
    arguments: call.args,
    by: call.by,
    deferredAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ctx.approvalTtlMs).toISOString(),
    toolHash: toolHashOf(route),
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
