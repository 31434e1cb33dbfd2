/**
 * A short task answered as a plain call (issue 64). On 2026-07-28 the server
 * alone decides whether a `tools/call` becomes a task ("A server that has
 * negotiated this extension MAY return `CreateTaskResult` in lieu of a
 * standard result … at its own discretion and on a per-request basis", Tasks
 * extension): a kit task whose handler ends within the server's grace
 * (`tasks.graceMs`) answers with its result, so the client makes no second
 * round trip. The task starts as any task does (bounded, its handler run
 * with the task's context); answered plainly, nobody can ever name it, so
 * it is never stored: its record is held in this process while the grace runs
 * (provisional.ts) and stored only when the call is answered with the task.
 *
 * A task that runs past the grace is answered as a task, and the same grace
 * keeps its wait short: its poll interval is paced by its age (half of it, at
 * most the server's `pollIntervalMs`), and a `tasks/get` of a working task
 * this server runs is answered when the task changes or after the grace,
 * whichever is first. So a look that comes just before the end gets the end:
 * a task ending at any time past the grace is read by 1.5× its run time,
 * plus round trips, instead of up to grace + interval. `graceMs: 0` turns all
 * of it off (the configured interval, looks answered at once).
 */
import type { TaskRecord, TaskStore } from './store.js';
import { wholeTask } from './stored.js';
import { MIN_PACED_POLL_MS } from '../../bounds.js';

// How a task ends that is answered as a plain call (a cancelled one is answered with the task, as it is).
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed']);
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/**
 * The task's record if its handler ends completed or failed (and its end is written) within `ms` — then `forget` is
 * told of it, as its call is answered with it — else undefined: a question it asks (input_required), `signal` (the
 * creating request cancelled), or the grace running out ends the wait sooner. `changed`: the running task's change
 * listeners (undefined: it runs no more here; `records` says how it ended).
 */
export async function endWithin(
  changed: Set<(record?: TaskRecord) => void> | undefined,
  records: Pick<TaskStore, 'get'>,
  taskId: string,
  ms: number,
  signal: AbortSignal,
  forget: (record: TaskRecord) => void,
): Promise<TaskRecord | undefined> {
  if (ms <= 0 || signal.aborted) return undefined;
  const read = async () => wholeTask(await records.get(taskId), taskId);
  const record = changed === undefined ? await read().catch(() => undefined) : await told(changed, ms, signal, read);
  if (record === undefined || !ENDED.has(record.status)) return undefined;
  forget(record);
  return record;
}

async function told(
  changed: Set<(record?: TaskRecord) => void>,
  ms: number,
  signal: AbortSignal,
  read: () => Promise<TaskRecord | undefined>,
): Promise<TaskRecord | undefined> {
  const heard = await new Promise<TaskRecord | 'read' | undefined>((resolve) => {
    const done = (value: TaskRecord | 'read' | undefined) => {
      clearTimeout(timer);
      changed.delete(tell);
      signal.removeEventListener('abort', aborted);
      resolve(value);
    };
    // A change told with its record: ended, or asking (the client must hear the questions: answered with the task);
    // told with none (its handler ended and its end's write failed, or its TTL ended): read it again.
    const tell = (record?: TaskRecord) => {
      if (record === undefined) done('read');
      else if (TERMINAL.has(record.status)) done(record);
      else if (record.status === 'input_required') done(undefined);
    };
    const aborted = () => done(undefined);
    const timer = setTimeout(() => done(undefined), ms);
    changed.add(tell);
    signal.addEventListener('abort', aborted, { once: true });
  });
  return heard === 'read' ? read().catch(() => undefined) : heard;
}

/**
 * The record as a client is shown it: a task not yet ended asks to be looked at again after half its age, at least
 * MIN_PACED_POLL_MS and at most its configured interval; as stored when `graceMs` is 0, the task ended, or its age
 * cannot be told.
 */
export function paced(record: TaskRecord, graceMs: number, now = Date.now()): TaskRecord {
  if (graceMs <= 0 || TERMINAL.has(record.status)) return record;
  const age = now - Date.parse(record.createdAt);
  // Created "later" than now (another process's clock ahead, or a record edited by hand): its age is unknown, so it is
  // shown as stored — paced, it would be asked for at the floor until this clock caught up with it.
  if (!Number.isFinite(age) || age < 0) return record;
  const half = Math.max(MIN_PACED_POLL_MS, Math.ceil(age / 2));
  return half >= record.pollIntervalMs ? record : { ...record, pollIntervalMs: half };
}

/** A running task's changes, listened to from its creation: a hold after a read misses no change made during it. */
interface ChangeWatch {
  /** Waits until the task changed (since the watch began), `ms` pass, or `signal` aborts, whichever is first. */
  hold(ms: number, signal: AbortSignal): Promise<void>;
  /** Stops listening (idempotent); a hold under way ends. */
  stop(): void;
}

/**
 * Listens to a running task's changes (`changed` tells of each) at once: `tasks/get` watches before it reads the task,
 * so a change between the read and the hold ends the hold instead of being missed. No listener or timer outlives
 * `stop()`, the hold's end, or `signal`.
 */
function watchChanges(changed: Set<(record?: TaskRecord) => void>): ChangeWatch {
  let seen = false;
  let wake: (() => void) | undefined;
  const told = () => {
    seen = true;
    wake?.();
  };
  changed.add(told);
  const stop = () => {
    changed.delete(told);
    wake?.();
  };
  return {
    stop,
    hold: (ms, signal) =>
      seen || ms <= 0 || signal.aborted
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(() => wake?.(), ms);
            const aborted = () => wake?.();
            wake = () => {
              wake = undefined;
              clearTimeout(timer);
              signal.removeEventListener('abort', aborted);
              changed.delete(told);
              resolve();
            };
            signal.addEventListener('abort', aborted, { once: true });
          }),
  };
}

/**
 * Reads a task with `read` (the owner's check first); a working one whose changes `changed` tells of (it runs here) is
 * read again once it changes, or after `graceMs`, or when `signal` aborts. `graceMs` 0, or no `changed`: read once.
 */
export async function heldLook(
  read: () => Promise<TaskRecord>,
  changed: Set<(record?: TaskRecord) => void> | undefined,
  graceMs: number,
  signal: AbortSignal,
): Promise<TaskRecord> {
  const watch = changed === undefined || graceMs <= 0 ? undefined : watchChanges(changed); // before the read: no change missed
  try {
    const record = await read();
    if (watch === undefined || record.status !== 'working') return record;
    await watch.hold(graceMs, signal);
    return await read();
  } finally {
    watch?.stop();
  }
}
