/**
 * Which process runs a kit task, and whether it still can (issue 58 #12). A
 * task is stamped with its runner when it starts: the machine (its host name
 * and, on Linux, its PID namespace), the process id and, on Linux, when that
 * process started. A task read as running whose runner is gone can never end,
 * so the kit ends it `failed` ("the server restarted…") instead of showing it
 * `working` until its TTL. Gone means: a process of this machine that ended,
 * or whose pid now names a process started later (this one, restarted with
 * the same pid, included). A runner on another machine, or in another PID
 * namespace (another container), cannot be seen; nor can an earlier life of
 * this pid where processes' start times are not known (outside Linux): such a
 * task is trusted until its TTL ends it — a live task is never failed by a
 * guess. This process's own tasks are as it last wrote them.
 */
import fs from 'node:fs';
import os from 'node:os';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { TaskRecord, TaskStore } from './store.js';
import { isWholeTask, wholeTask } from './stored.js';

/** The process that runs a task, as the task's record keeps it. */
export type TaskRunner = NonNullable<TaskRecord['runner']>;

/** What ends a task whose runner is gone. */
export const ORPHANED_MESSAGE = 'the server restarted: the process running the task ended before the task did';

// When process `pid` started (clock ticks since boot, /proc/PID/stat field 22), on Linux; undefined elsewhere or gone.
function startOf(pid: number | 'self'): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function pidNamespace(): string {
  try {
    return fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

let self: TaskRunner | undefined;

/** This process as the runner of the tasks it starts. */
export function thisRunner(): TaskRunner {
  if (self !== undefined) return self;
  const ns = pidNamespace();
  const since = startOf('self');
  self = Object.freeze({ host: ns === '' ? os.hostname() : `${os.hostname()} ${ns}`, pid: process.pid, ...(since ? { since } : {}) });
  return self;
}

// Whether process `pid` of this machine is the one that started at `since` (when known).
function alive(pid: number, since: unknown): boolean {
  const now = startOf(pid);
  if (now !== undefined) return typeof since !== 'string' || now === since;
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // it exists, as another user's
  }
}

/** True when `record` is a running task whose runner can no longer end it (see the module's doc). */
export function runnerGone(record: TaskRecord): boolean {
  if (record.status !== 'working' && record.status !== 'input_required') return false;
  const runner = record.runner as Partial<TaskRunner> | undefined;
  // A record of an older kit, or one whose runner is not a process id (a store written by hand), is trusted to its TTL.
  if (runner === undefined || typeof runner.pid !== 'number' || !Number.isSafeInteger(runner.pid) || runner.pid < 1) return false;
  const me = thisRunner();
  if (runner.host !== me.host) return false;
  if (runner.pid === me.pid) return runner.since !== me.since; // an earlier life of this pid, when start times tell
  return !alive(runner.pid, runner.since);
}

/**
 * The record as it truly is: a running task whose process ended before it did ends failed, once, for every reader
 * (issue 58 #12). Read again first: a reader in another process may have ended it (or its owner cancelled it).
 */
export async function settledTask(store: TaskStore, record: TaskRecord): Promise<TaskRecord> {
  if (!runnerGone(record)) return record;
  const fresh = wholeTask(await store.get(record.taskId), record.taskId) ?? record;
  if (!runnerGone(fresh)) return fresh;
  const ended: TaskRecord = {
    ...fresh,
    status: 'failed',
    error: { code: ProtocolErrorCode.InternalError, message: ORPHANED_MESSAGE },
    statusMessage: ORPHANED_MESSAGE,
    lastUpdatedAt: new Date().toISOString(),
  };
  delete ended.inputRequests;
  await store.put(ended).catch(() => undefined); // a store that cannot write it still gets one answer per read
  return ended;
}

/**
 * The tasks a caller is shown, newest first (2025 `tasks/list`), each settled: an owner's own; an anonymous caller's,
 * those its session started (no other caller learns their ids: issue 58 #3); none to a caller with neither.
 */
export async function listTasks(store: TaskStore, owner: string | null, session: string | undefined): Promise<TaskRecord[]> {
  if (owner === null && session === undefined) return [];
  // A record that is not whole is left out: one edited by hand hides no other task (issue 58 #12).
  const records = (await store.list(owner)).filter((r) => isWholeTask(r) && r.owner === owner && (owner !== null || r.session === session));
  return Promise.all(records.map((record) => settledTask(store, record)));
}
