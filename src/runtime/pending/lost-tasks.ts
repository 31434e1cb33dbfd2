/**
 * Calls on a task whose server ends with the run (E6). A task lives in its
 * server's process: a stdio server the run started as its own connection ends
 * when the run closes, and its tasks with it — a pool's lease outlives the
 * run, a remote server lives its own life. So closing a run ends the calls
 * that wait on a task of such a mount `task_lost` (`reason: server_ended`) —
 * but not those a run resumed from a store took over: their task lives in the
 * server of the host that started it, which may still run — and
 * a run resumed from a JSON state looks once (`tasks/get`, within the request
 * timeout) at the tasks of such mounts: a server that does not know its task
 * (a new process) ends the call the same way at once, instead of after
 * `approvalTtlMs`; one that kept it (a task store on a file) leaves it waiting.
 * Each ended call is audited (`task_finished`, then `tool_call`) and said in a
 * notice of the run (call, tool and mount; never an argument).
 */
import { AgtError, resultErrorOf } from '../../errors.js';
import { oneLine } from '../../outside-text.js';
import type { McpTask } from '../../mcp/connection-types.js';
import { callAudit } from '../pipeline/call.js';
import { callContext, type RunParts } from '../pipeline/call-context.js';
import { recordSafely } from '../pipeline/call-identity.js';
import { callResult } from '../pipeline/call-result.js';
import type { LoadedMount, Route } from '../assembly/snapshot.js';
import type { ToolResult } from '../types.js';
import { idsKey } from './in-flight.js';
import { lookAtTasks, onItsTask } from './tasks.js';
import { type InputWait, type TaskWait, waitingIdentity, type WaitingCall } from './waiting-call.js';

/** A waiting call on its task: waiting on it, or on the host's answers to a question it asked. */
type OnTask = TaskWait | (InputWait & { task: McpTask });

/** When the servers of the calls' tasks were found ended: as this run closed, or as it resumed from a JSON state. */
export type LostWhen = 'closed' | 'resumed';

/** The mounts whose server ends with this run: stdio servers it started as its own connections (a pool's lease outlives it). */
export function endingMounts(loaded: ReadonlyMap<string, LoadedMount>, pooled: boolean): Set<string> {
  if (pooled) return new Set();
  return new Set([...loaded].flatMap(([reference, mount]) => (mount.connection.transport === 'stdio' ? [reference] : [])));
}

/** The calls of `open` on a task of one of `mounts`. */
export function onEndingMounts(open: readonly WaitingCall[], mounts: ReadonlySet<string>): OnTask[] {
  return open.filter((c): c is OnTask => onItsTask(c) && c.mount !== undefined && mounts.has(c.mount));
}

/**
 * Of `calls`, those whose server does not know their task now: each looked at once (`tasks/get`), at most `concurrency`
 * at once, all within `requestMs`. A server that does not answer in time, or answers anything else, keeps the call waiting.
 */
export async function unknownTasks(
  calls: readonly OnTask[],
  routes: ReadonlyMap<string, Route>,
  options: { concurrency: number; requestMs: number },
): Promise<OnTask[]> {
  if (calls.length === 0) return [];
  // A question asked inside a task is looked at as its task (the look reads the task only).
  const asTasks = calls.map((c): TaskWait => {
    if (c.waitingFor === 'task') return c;
    const { requests: _requests, requestState: _state, waitingFor: _waiting, ...rest } = c;
    return { ...rest, waitingFor: 'task', task: c.task };
  });
  // Within `requestMs` in all: a server that never answers holds the resume one request long, however many calls wait.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.requestMs);
  const looks = await lookAtTasks(() => asTasks, routes, { ...options, waitMs: 0, signal: deadline.signal }).finally(() =>
    clearTimeout(timer),
  );
  const lost = new Set(looks.filter((l) => l.lost).map((l) => idsKey(l.approval)));
  return calls.filter((c) => lost.has(idsKey(c)));
}

/** The result of a call whose task's server ended: task_lost (`server_ended`), audited as a collected task's end is. */
export async function serverEnded(call: OnTask, run: RunParts, when: LostWhen): Promise<ToolResult> {
  const ctx = callContext(run, call.batchId, undefined, () => undefined);
  await recordSafely(ctx.audit, {
    type: 'task_finished',
    at: new Date().toISOString(),
    ...waitingIdentity(call, ctx),
    taskId: call.task.id,
    status: 'task_lost',
  });
  const why =
    when === 'closed'
      ? 'the run that started its server (a stdio server of its own) closed, and the server ended with it'
      : 'its server (a stdio server the run started) ended with the process that ran it, and the server started again does not know the task';
  const message = `the task of this call is gone: ${why}; its result cannot be collected`;
  const error = resultErrorOf('task_lost', message, { taskId: call.task.id, reason: 'server_ended' });
  return callAudit(ctx, () => waitingIdentity(call, ctx))(
    callResult(call.callId, { kind: 'failed', failed: 'tool_failed', error }),
    call.by,
  );
}

/** The run's notice of a call ended because its task's server ended: the call, its tool and its mount (never an argument). */
export function lostNotice(call: WaitingCall, when: LostWhen): string {
  const why =
    when === 'closed'
      ? 'a stdio server this run started, and closing the run ended it'
      : 'a stdio server whose process ended before the run resumed, and the server started again does not know the task';
  return (
    oneLine`call "${call.callId}" of batch "${call.batchId}" (tool "${call.tool}") waited on a task of mount "${call.mount ?? ''}", ` +
    `${why}: the call ended task_lost (server_ended)`
  );
}

/** `writing`, or store_unavailable once `ms` passed with no answer from the store (the write itself goes on). */
export async function withinMs<T>(writing: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new AgtError('store_unavailable', `the run's store did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([writing, late]);
  } finally {
    clearTimeout(timer);
  }
}
