/**
 * The second half of a pending call: the host's decision. An expired one
 * ends as permission_denied (approval expired). Then each is checked again
 * on the run's live snapshot — a tool that changed or went away since it
 * began to wait ends the call as approval_stale (an approval) or input_stale
 * (a question), never run against a changed tool — and its arguments are
 * validated again. An approval: rejected, it ends as permission_denied with
 * the approver's reason; approved, it runs through before → execute → after
 * like any permitted call. A question (E4): the retry carries the answers
 * and the server's state unchanged, and runs execute → after (its before
 * hooks ran when the call first ran); a server that asks again makes the call
 * wait for the next round, up to MAX_INPUT_ROUNDS (answers.ts, nextRound).
 */
import { readArguments } from '../pipeline/arguments.js';
import { ApprovedPath, callAudit } from '../pipeline/call.js';
import type { CallContext } from '../pipeline/call-context.js';
import { recordSafely } from '../pipeline/call-identity.js';
import { callResult } from '../pipeline/call-result.js';
import { execute } from '../pipeline/execute.js';
import { type Asked as AskedOutcome, runCall } from '../pipeline/pipeline.js';
import { mapLimit } from '../audit/run-audit.js';
import type { Route } from '../assembly/snapshot.js';
import type { InputDecision, ResultError, ToolResult } from '../types.js';
import { type AnswerRules, declinable, inputRetry, nextRound } from './answers.js';
import { type DecidedOutcome, type InputWait, isExpired, type TakenCall, takenFor, toolHashOf, waitingIdentity } from './waiting-call.js';
import { endTask } from './tasks.js';
import { waitForInput, waitForTask } from './wait.js';
import type { InFlightCall } from './in-flight.js';
import { isAgtError } from '../../errors.js';

/** Who decided a deferred call, as its tool_call audit event names it. */
const APPROVER = 'human';

/**
 * Ends the taken calls of one batch, in call order, up to `concurrency` at once, each by the path of its kind: a task
 * collected or cancelled (tasks.ts), a question answered (answerOne), an approval decided; a question asked again waits again.
 */
export function endCalls(
  taken: readonly TakenCall[],
  routes: ReadonlyMap<string, Route>,
  ctx: CallContext,
  rules: AnswerRules,
  concurrency: number,
): Promise<DecidedOutcome[]> {
  const now = Date.now();
  const approved = new ApprovedPath(ctx, APPROVER); // permitted by the approver: no stage 3
  return mapLimit(taken, concurrency, (t) => endOne(t, routes.get(t.approval.tool), ctx, approved, rules, now));
}

// The path of a retry with answers: permitted before, before hooks already run, the answers and state sent along.
class RetryPath extends ApprovedPath {
  override readonly before = [];
  readonly #ctx: CallContext;
  readonly #input: Parameters<typeof execute>[4];

  constructor(ctx: CallContext, by: string, input: Parameters<typeof execute>[4]) {
    super(ctx, by);
    this.#ctx = ctx;
    this.#input = input;
  }

  override execute(callId: string, route: Route, args: Record<string, unknown>): Promise<ToolResult | AskedOutcome> {
    return execute(callId, route, args, this.#ctx, this.#input);
  }
}

async function endOne(
  taken: TakenCall,
  route: Route | undefined,
  ctx: CallContext,
  approved: ApprovedPath,
  rules: AnswerRules,
  now: number,
): Promise<DecidedOutcome> {
  const { approval: a } = taken;
  const audit = callAudit(ctx, () => waitingIdentity(a, ctx));
  // A call that waited on its task (E6): collected, or cancelled on its server (pending/tasks.ts).
  if (takenFor(taken, 'task')) return endTask(taken.approval, taken.decision, route, ctx, audit);
  const input = a.waitingFor === 'input';
  const fail = (status: 'permission_denied' | 'tool_failed', error: ResultError, by: string) =>
    audit(callResult(a.callId, { kind: 'failed', failed: status, error }), by);
  if (isExpired(a, now)) {
    const message = `the ${input ? 'questions' : 'approval'} expired before ${input ? 'they were answered' : 'it was decided'} (approvalTtlMs); the call did not ${input ? 'finish' : 'run'}: call again if it is still needed`;
    return fail(
      'permission_denied',
      { code: 'permission_denied', message, details: { by: 'policy', reason: 'approval_expired', expiresAt: a.expiresAt } },
      'policy',
    );
  }
  if (takenFor(taken, 'approval') && !taken.decision.approve) {
    const message = taken.decision.reason ?? 'the approver rejected this call';
    return fail('permission_denied', { code: 'permission_denied', message, details: { by: APPROVER } }, APPROVER);
  }
  if (route === undefined || toolHashOf(route) !== a.toolHash) {
    const what = route === undefined ? 'is gone' : 'changed (schema or annotations)';
    const message = `the tool "${a.tool}" ${what} since this call began to wait; it was not ${input ? 'retried' : 'run'}: call it again if it is still needed`;
    return fail(
      'tool_failed',
      { code: input ? 'input_stale' : 'approval_stale', message, details: { tool: a.tool } },
      input ? a.by : APPROVER,
    );
  }
  const read = readArguments(a.arguments, ctx.limits); // a stored record is read like model input
  if (takenFor(taken, 'input')) return answerOne(taken.approval, taken.decision, route, read, ctx, rules, audit);
  const ended = await runCall(a.callId, route, read, approved);
  if (ended.kind === 'asked')
    return waitForInput({ callId: a.callId, index: a.index, args: ended.args, by: APPROVER, round: 1 }, route, ended.asked, ctx);
  return audit(ended.result, ended.decidedBy);
}

// A call's questions answered (or declined): recorded, then the call retried with the answers and the state as it was.
async function answerOne(
  a: InputWait,
  decision: InputDecision,
  route: Route,
  read: ReturnType<typeof readArguments>,
  ctx: CallContext,
  rules: AnswerRules,
  audit: ReturnType<typeof callAudit>,
): Promise<DecidedOutcome> {
  const declined = 'decline' in decision;
  const round = a.round;
  await recordSafely(ctx.audit, {
    type: 'input_decided',
    at: new Date().toISOString(),
    ...waitingIdentity(a, ctx),
    decision: declined ? 'declined' : 'answered',
    keys: Object.keys(declined ? a.requests : decision.answers),
    round,
  });
  if (declined && !declinable(a)) {
    // Only an elicitation can be declined to the server: a call that asked anything else ends here.
    const message = decision.reason ?? 'the questions of this call were declined';
    return audit(
      callResult(a.callId, {
        kind: 'failed',
        failed: 'permission_denied',
        error: { code: 'permission_denied', message, details: { by: APPROVER, reason: 'input_declined' } },
      }),
      APPROVER,
    );
  }
  // Asked inside a task (E6): the answers go to the task, and the call waits on it again.
  if (a.task !== undefined && route.kind === 'mcp') {
    try {
      await route.connection.answerTask(a.task.id, inputRetry(a, decision, rules).responses, { signal: ctx.signal });
    } catch (error) {
      // A task its server no longer knows (restarted, TTL run out) ends the call task_lost, as collecting it would (E6);
      // thrown, the call would leave the pending calls and stay in flight until a recover() called it interrupted.
      if (!isAgtError(error) || error.code !== 'task_lost') throw error;
      const lost = { kind: 'callError', callError: error, mount: route.mount, timeoutMs: ctx.callTimeoutMs } as const;
      return audit(callResult(a.callId, lost), a.by);
    }
    const call = { callId: a.callId, index: a.index, args: a.arguments, by: a.by, round };
    return waitForTask(call, route, { ...a.task, status: 'working' }, ctx, true);
  }
  const ended = await runCall(a.callId, route, read, new RetryPath(ctx, a.by, inputRetry(a, decision, rules)));
  if (ended.kind === 'ended') return audit(ended.result, ended.decidedBy);
  let next: number;
  try {
    next = nextRound(round);
  } catch (error) {
    if (!isAgtError(error)) throw error;
    return audit(callResult(a.callId, { kind: 'failed', failed: 'tool_failed', error: error.toToolError().error }), a.by);
  }
  return waitForInput({ callId: a.callId, index: a.index, args: ended.args, by: a.by, round: next }, route, ended.asked, ctx);
}

/** A lost call that does not run again ends `interrupted`, audited: it may or may not have run (recover). */
export function interruptedCall(call: InFlightCall, ctx: CallContext): Promise<ToolResult> {
  const { approval: a } = call;
  const message =
    `the host that ran this call stopped before the call ended (its lease ran out at ${call.leaseUntil}); ` +
    'the call may or may not have run: check its effect before calling it again';
  const result = callResult(a.callId, {
    kind: 'failed',
    failed: 'interrupted',
    error: { code: 'interrupted', message, details: { batchId: a.batchId, decidedAt: call.decidedAt, leaseUntil: call.leaseUntil } },
  });
  return callAudit(ctx, () => waitingIdentity(a, ctx))(result, APPROVER);
}
