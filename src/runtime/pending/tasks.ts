/**
 * Calls that wait on their server's task (E6, `tasks: 'defer'`): their status
 * is read with `tasks/get` (no state changes: any process may look), and a
 * call whose task ended is collected — taken out of the pending calls with
 * compare-and-set first, like a decision, so of two collectors one ends it —
 * then its result runs the rest of the pipeline as the call would have: the
 * output check, the bound, the after hooks (the before hooks ran when it
 * started). A cancel (`run.cancel`) sends `tasks/cancel` and ends the call
 * cancelled. A task its server no longer knows ends the call `task_lost`; one
 * whose status answer cannot be read is collected and fails as it would
 * inline. A stored poll interval is clamped as it is read back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AgtError, isAgtError, resultErrorOf } from '../../errors.js';
import type { McpInputRequest, McpTask } from '../../mcp/connection-types.js';
import { DEFAULT_TASK_POLL_MS, TASK_CANCEL_TIMEOUT_MS } from '../../bounds.js';
import { clampPoll } from '../../mcp/tasks/port.js';
import { ApprovedPath, type callAudit } from '../pipeline/call.js';
import type { CallContext } from '../pipeline/call-context.js';
import { recordSafely } from '../pipeline/call-identity.js';
import { callResult } from '../pipeline/call-result.js';
import { readArguments } from '../pipeline/arguments.js';
import { runCall } from '../pipeline/pipeline.js';
import { mapLimit } from '../audit/run-audit.js';
import type { McpRoute, Route } from '../assembly/snapshot.js';
import type { ToolResult } from '../types.js';
import { type InputWait, isExpired, type TaskDecision, type TaskWait, waitingIdentity, type WaitingCall } from './waiting-call.js';

const TERMINAL: ReadonlySet<McpTask['status']> = new Set(['completed', 'failed', 'cancelled']);

/**
 * A waiting task's call, with its status as just read (`lost`: the server no longer knows it; `unreadable`: its
 * answer breaks the protocol — too deep, not a task, another task's — and collecting it fails the call as inline).
 */
export interface TaskLook {
  approval: TaskWait;
  task: McpTask;
  lost: boolean;
  unreadable?: boolean;
  /** The questions of a 2026-07-28 task that waits for input (masked). */
  questions?: Record<string, McpInputRequest>;
  /** The run stops reading the task and the call ends with this error when collected (E7: too many rounds). */
  failure?: AgtError;
}

/** True when a looked-at call can be collected now: its task ended, is lost or unreadable, it waited past its TTL, or it ends with a failure. */
export const collectable = (look: TaskLook): boolean =>
  look.lost ||
  look.unreadable === true ||
  look.failure !== undefined ||
  TERMINAL.has(look.task.status) ||
  isExpired(look.approval, Date.now());

// The reasons of a protocol_error that no later look can mend: the server's answer about the task cannot be read —
// too deep, too large, not a task, another task's, or questions no round may ask. Waited inline, the call fails at
// once; deferred, it is collected and fails the same way (issue 58 #10). A timeout or a server's JSON-RPC error may
// pass: the call waits on (its TTL bounds it).
const UNREADABLE: ReadonlySet<unknown> = new Set([
  'result_too_deep',
  'oversized_message',
  'invalid_result',
  'invalid_task',
  'wrong_task',
  'invalid_input_request',
]);

// The task a call waits on as stored, its poll interval clamped as read back (issue 58 #11: a record edited to 0
// must not make a busy loop of tasks/get).
function storedTask(approval: TaskWait): McpTask {
  const { pollIntervalMs, ...task } = approval.task;
  const poll = clampPoll(pollIntervalMs);
  return { ...task, ...(poll === undefined ? {} : { pollIntervalMs: poll }) };
}

/**
 * Reads the status of the `waiting()` calls until one can be collected or asks, or `waitMs` passes (0: once), at the pace
 * the servers ask (clamped), at most `concurrency` requests at once. A status that cannot be read keeps the last one.
 * The calls are listed anew at each look: one a decide put back on its task meanwhile is looked at, one taken is not;
 * `waiting()` is undefined once nothing is left to wait on (each call taken), and the looking ends.
 */
export async function lookAtTasks(
  waiting: () => readonly TaskWait[] | undefined,
  routes: ReadonlyMap<string, Route>,
  options: { waitMs: number; concurrency: number; signal: AbortSignal; requestMs: number; asks?: (look: TaskLook) => boolean },
): Promise<TaskLook[]> {
  const asks = options.asks ?? ((look: TaskLook) => look.questions !== undefined);
  const deadline = performance.now() + options.waitMs;
  for (;;) {
    const listed = waiting();
    if (listed === undefined) return [];
    const looks = await mapLimit(listed, options.concurrency, (a) => lookAt(a, routes.get(a.tool), options));
    const left = deadline - performance.now();
    if (looks.some((l) => collectable(l) || asks(l)) || left <= 0 || options.signal.aborted) return looks;
    // No call on a task (each waits for the host's answers): listed again at the default pace, never a blind sleep.
    const paces = looks.map((l) => clampPoll(l.task.pollIntervalMs) ?? DEFAULT_TASK_POLL_MS);
    const pace = paces.length === 0 ? DEFAULT_TASK_POLL_MS : Math.min(...paces);
    await sleep(Math.min(pace, left), undefined, { signal: options.signal }).catch(() => undefined);
  }
}

async function lookAt(
  approval: TaskWait,
  route: Route | undefined,
  options: { signal: AbortSignal; requestMs: number },
): Promise<TaskLook> {
  const task = storedTask(approval);
  if (route?.kind !== 'mcp') return { approval, task, lost: false }; // its mount is gone: collecting it says so
  try {
    const seen = await route.connection.getTask(task.id, { signal: options.signal, timeoutMs: options.requestMs });
    const { inputRequests: questions, ...status } = seen;
    return { approval, task: status, lost: false, ...(questions === undefined ? {} : { questions }) };
  } catch (error) {
    const lost = isAgtError(error) && error.code === 'task_lost';
    const unreadable = isAgtError(error) && error.code === 'protocol_error' && UNREADABLE.has(error.details?.reason);
    return { approval, task, lost, ...(unreadable ? { unreadable } : {}) };
  }
}

/** Ends a taken task call: its result collected (the rest of the pipeline), or its task cancelled on the server. */
export async function endTask(
  a: TaskWait,
  decision: TaskDecision,
  route: Route | undefined,
  ctx: CallContext,
  audit: ReturnType<typeof callAudit>,
): Promise<ToolResult> {
  const task = a.task;
  const finished = (status: string) =>
    recordSafely(ctx.audit, {
      type: 'task_finished',
      at: new Date().toISOString(),
      ...waitingIdentity(a, ctx),
      taskId: task.id,
      status,
    });
  if (route?.kind !== 'mcp' || route.mount !== a.mount) {
    await finished('unreachable');
    const message = `the server of this call's task is no longer mounted ("${a.mount ?? a.tool}"); its result cannot be collected`;
    return audit(callResult(a.callId, { kind: 'failed', failed: 'tool_failed', error: { code: 'approval_stale', message } }), a.by);
  }
  // Cooperative, best effort, and bounded: the call ends either way, so a server that never answers tasks/cancel
  // holds the host no longer than TASK_CANCEL_TIMEOUT_MS (E6), and the words say whether it confirmed.
  const cancel = () =>
    route.connection.cancelTask(task.id, { signal: ctx.signal, timeoutMs: TASK_CANCEL_TIMEOUT_MS }).then(
      () => 'its task was cancelled on the server',
      () => `tasks/cancel was sent, but the server did not confirm it within ${TASK_CANCEL_TIMEOUT_MS} ms`,
    );
  if ('collect' in decision && decision.failure !== undefined) {
    // The run stopped reading the task (E7): nobody will, so the server stops it; the call ends with why.
    await cancel();
    await finished(decision.failure.code);
    return audit(callResult(a.callId, { kind: 'failed', failed: 'tool_failed', error: decision.failure }), a.by);
  }
  if ('cancel' in decision) {
    const told = await cancel();
    await finished('cancelled');
    const message = `the host cancelled this call (run.cancel); ${told}`;
    return audit(
      callResult(a.callId, { kind: 'failed', failed: 'tool_failed', error: { code: 'cancelled', message, details: { taskId: task.id } } }),
      'human',
    );
  }
  if (isExpired(a, Date.now())) {
    // Waited past its TTL (or approvalTtlMs) and still not ended: nobody reads it any more; the server stops it.
    const told = await cancel();
    await finished('expired');
    const message = `the task of this call did not end before ${a.expiresAt} (its TTL); ${told}`;
    const error = resultErrorOf('task_lost', message, { taskId: task.id, reason: 'ttl_expired' });
    return audit(callResult(a.callId, { kind: 'failed', failed: 'tool_failed', error }), a.by);
  }
  let fetched: ToolResult | undefined;
  const ended = await runCall(
    a.callId,
    route,
    readArguments(a.arguments, ctx.limits),
    new CollectPath(ctx, a.by, task.id, (r) => (fetched = r)),
  );
  await finished(fetched?.status === 'ok' ? 'completed' : fetched?.status === 'tool_failed' ? fetched.error.code : 'failed');
  return audit(ended.result, ended.decidedBy);
}

// The path of a collected task: permitted when it started, before hooks already run; stage 5 reads the task's result.
class CollectPath extends ApprovedPath {
  override readonly before = [];
  readonly #ctx: CallContext;
  readonly #taskId: string;
  readonly #seen: (result: ToolResult) => void;

  constructor(ctx: CallContext, by: string, taskId: string, seen: (result: ToolResult) => void) {
    super(ctx, by);
    this.#ctx = ctx;
    this.#taskId = taskId;
    this.#seen = seen;
  }

  override async execute(callId: string, route: Route): Promise<ToolResult> {
    const connection = (route as McpRoute).connection;
    let result: ToolResult;
    try {
      const answer = await connection.getTaskResult(this.#taskId, { signal: this.#ctx.signal, timeoutMs: this.#ctx.callTimeoutMs });
      result = callResult(callId, { kind: 'answer', answer });
    } catch (error) {
      const failure = isAgtError(error) ? error : new AgtError('protocol_error', 'the task result could not be read');
      result = callResult(callId, {
        kind: 'callError',
        callError: failure,
        mount: (route as McpRoute).mount,
        timeoutMs: this.#ctx.callTimeoutMs,
      });
    }
    this.#seen(result);
    return result;
  }
}

/** True for a call on its task: waiting on it, or on the host's answers to a question the task asked. */
export const onItsTask = (c: WaitingCall): boolean => c.waitingFor === 'task' || (c.waitingFor === 'input' && c.task !== undefined);

/** The calls of `pending` that wait on a task. */
export const waitingTasks = (pending: readonly WaitingCall[]): TaskWait[] => pending.filter((a) => a.waitingFor === 'task');

/**
 * A waiting task asked questions the run defers (E6, E4): the call now waits for the host's answers
 * (`waitingFor: 'input'`, the task kept), and input_requested is recorded. Answered with run.decide, the answers go
 * to the task (`tasks/update`) and the call waits on its task again.
 */
export async function askedInTask(look: TaskLook, ctx: CallContext): Promise<InputWait> {
  const a = look.approval;
  const round = (a.round ?? 0) + 1;
  const asked: InputWait = { ...a, waitingFor: 'input', requests: look.questions ?? {}, round, task: look.task };
  await recordSafely(ctx.audit, {
    type: 'input_requested',
    at: new Date().toISOString(),
    ...waitingIdentity(a, ctx),
    requests: Object.entries(asked.requests).map(([key, r]) => ({ key, method: r.method })),
    round,
    expiresAt: a.expiresAt,
  });
  return asked;
}
