/**
 * What `run.collect` waits for (E6): it reads the status of a batch's waiting
 * tasks until one ended or asks what the host must answer, or the wait is
 * over. Questions a task asks that the run answers inline (its own handlers)
 * are answered there and the wait goes on — each key once, however long the
 * task's status lags, at the task's pace, and at most MAX_INPUT_ROUNDS rounds
 * in all (E7: past it the call ends input_rounds_exceeded); a question the
 * run defers makes the call wait for the host's answers (`waitingFor:
 * 'input'`, recorded with compare-and-set so another process sees it).
 * Returns the looks; the ended ones are collected.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { InputMethod } from '../../mcp/requests/client-handlers.js';
import { type QuestionRoute, roundsExceeded } from '../../mcp/requests/input-rounds.js';
import { clampPoll } from '../../mcp/tasks/port.js';
import { DEFAULT_TASK_POLL_MS, MAX_INPUT_ROUNDS } from '../../bounds.js';
import { NEVER_ABORTED } from '../pipeline/abort.js';
import type { CallContext } from '../pipeline/call-context.js';
import type { Route } from '../assembly/snapshot.js';
import type { OpenCalls } from './open-calls.js';
import { askedInTask, collectable, lookAtTasks, onItsTask, type TaskLook, waitingTasks } from './tasks.js';
import type { TaskWait, WaitingCall } from './waiting-call.js';

/** What waiting on a batch's tasks needs of its run. */
export interface CollectParts {
  /** The run's open calls: what is seen of a task is kept in its call's record. */
  calls: OpenCalls;
  routes(): ReadonlyMap<string, Route>;
  route(method: InputMethod): QuestionRoute;
  concurrency: number;
  requestMs: number;
  /** A call context of the batch, for the audit of a question that now waits. */
  context(): CallContext;
  /** Writes the run (compare-and-set) when a call now waits for answers. */
  persist(): Promise<void>;
}

/** Waits up to `waitMs` on the tasks of batch `batchId`; returns what was last seen of each. */
export async function awaitTasks(
  parts: CollectParts,
  batchId: string,
  waitMs: number,
  signal: AbortSignal | undefined,
): Promise<TaskLook[]> {
  const deadline = performance.now() + waitMs;
  const answered = new Set<string>();
  const keyOf = (look: TaskLook, key: string) => `${look.task.id}\u0000${key}`;
  const asks = (look: TaskLook) => Object.keys(look.questions ?? {}).some((key) => !answered.has(keyOf(look, key)));
  for (;;) {
    const looks = await lookAtTasks(() => onTasks(parts.calls.list(batchId)), parts.routes(), {
      waitMs: Math.max(0, deadline - performance.now()),
      concurrency: parts.concurrency,
      signal: signal ?? NEVER_ABORTED,
      requestMs: parts.requestMs,
      asks,
    });
    for (const look of looks) parts.calls.update({ ...look.approval, task: look.task }); // what hosts see is as just read
    const { deferred, inline } = await asked(parts, looks.filter(asks), signal);
    for (const look of looks) for (const key of Object.keys(look.questions ?? {})) answered.add(keyOf(look, key));
    if (deferred || looks.length === 0 || looks.some(collectable) || performance.now() >= deadline || signal?.aborted) return looks;
    // Answered here: the next look waits the server's pace, as any look does (a task asking anew at every look must not
    // make a busy loop of tasks/get and of the run's handlers).
    if (inline.length > 0) await pause(inline, deadline - performance.now(), signal);
  }
}

// The calls of a batch on their task, to look at; undefined when none is left on one nor asking in one (taken meanwhile).
function onTasks(calls: readonly WaitingCall[]): TaskWait[] | undefined {
  return calls.some(onItsTask) ? waitingTasks(calls) : undefined;
}

// Tasks that ask: answered inline, or (a question the run defers) the call waits for the host. One bound on rounds
// whoever answers (E7): a task asking past MAX_INPUT_ROUNDS is not answered, and its call is collected as
// input_rounds_exceeded (its task cancelled). Returns whether a call now waits for the host, and the looks answered.
async function asked(
  parts: CollectParts,
  looks: readonly TaskLook[],
  signal: AbortSignal | undefined,
): Promise<{ deferred: boolean; inline: TaskLook[] }> {
  const deferred: TaskLook[] = [];
  const inline: TaskLook[] = [];
  for (const look of looks) {
    if (look.task.status !== 'input_required' || look.questions === undefined) continue;
    const round = (look.approval.round ?? 0) + 1; // a stored round is checked as it is read (isStoredCall)
    if (round > MAX_INPUT_ROUNDS) {
      look.failure = roundsExceeded('task');
      continue;
    }
    const requests = look.questions;
    const route = parts.routes().get(look.approval.tool);
    if (route?.kind === 'mcp' && Object.values(requests).every((q) => parts.route(q.method) === 'inline')) {
      await route.connection.answerTask(look.task.id, 'inline', { requests, ...(signal ? { signal } : {}) }).catch(() => undefined);
      parts.calls.update({ ...look.approval, task: look.task, round });
      inline.push(look);
    } else deferred.push(look);
  }
  if (deferred.length === 0) return { deferred: false, inline };
  const ctx = parts.context();
  for (const look of deferred) parts.calls.update(await askedInTask(look, ctx));
  await parts.persist();
  return { deferred: true, inline };
}

// Waits the pace the answered tasks ask (clamped), within what is left of the wait.
async function pause(looks: readonly TaskLook[], left: number, signal: AbortSignal | undefined): Promise<void> {
  const pace = Math.min(...looks.map((l) => clampPoll(l.task.pollIntervalMs) ?? DEFAULT_TASK_POLL_MS));
  if (left > 0) await sleep(Math.min(pace, left), undefined, signal ? { signal } : {}).catch(() => undefined);
}
