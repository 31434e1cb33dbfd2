/**
 * Process-group helpers for ending a server with everything it started.
 *
 * Orphaned processes are re-parented to PID 1; where PID 1 does not reap them
 * (some container inits), killed members linger as zombies and `kill(-pgid, 0)`
 * keeps succeeding. On Linux the group is therefore read from /proc and only
 * living members count; elsewhere `kill(-pgid, 0)` decides.
 */
import fs from 'node:fs';

const HAS_PROC = process.platform === 'linux' && fs.existsSync('/proc/self/stat');

/** Sends `signal` to every process of the group; a gone group is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

/** True while a living (non-zombie) process belongs to the group. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: no process of the group at all, not even a zombie
  }
  return HAS_PROC ? livingMembers(pgid) > 0 : true; // a member is there: on Linux, only living ones count
}

/** Living processes whose process group is `pgid` (Linux, from /proc). */
export function livingMembers(pgid: number): number {
  let count = 0;
  for (const entry of procEntries()) {
    const fields = statFields(entry); // exited while we looked: undefined
    if (fields !== undefined && Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') count += 1;
  }
  return count;
}

/** The environment variable every server is started with: its descendants inherit it, so they can be found. */
export const INSTANCE_ENV = 'AGT_MCP_INSTANCE';

function procEntries(): string[] {
  return fs.readdirSync('/proc').filter((e) => e.charCodeAt(0) >= 48 && e.charCodeAt(0) <= 57);
}

// /proc/PID/stat is a few hundred bytes: one read into a shared buffer (readFileSync would fstat and read twice).
const STAT_BUFFER = Buffer.alloc(4096);

function statFields(pid: string): string[] | undefined {
  let fd: number;
  try {
    fd = fs.openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return undefined; // gone
  }
  try {
    const stat = STAT_BUFFER.toString('latin1', 0, fs.readSync(fd, STAT_BUFFER, 0, STAT_BUFFER.length, null));
    // pid (comm) state ppid pgrp session …; comm may contain spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Living processes started by the server, in any process group or session
 * (Linux): descendants of `pid` by parent link, and every process whose
 * environment carries the server's instance tag (which also finds orphans of
 * double forks and `setsid` daemons). Elsewhere: none. `since`: the server's
 * start (startTicks); processes started before it cannot carry the tag.
 */
export function serverProcesses(pid: number, tag: string, since = 0): number[] {
  if (!HAS_PROC) return [];
  const needle = `${INSTANCE_ENV}=${tag}\0`;
  const children = new Map<number, number[]>();
  const found = new Set<number>();
  for (const entry of procEntries()) {
    const fields = statFields(entry);
    if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') continue;
    const child = Number(entry);
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), child]);
    // Only a process started with or after the server can carry its tag: older ones' environments are not read.
    if (child === pid || child === process.pid || Number(fields[19]) < since) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) found.add(child);
    } catch {
      // another user's process, or gone
    }
  }
  const stack = [...(children.get(pid) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as number;
    if (found.has(next)) continue;
    found.add(next);
    stack.push(...(children.get(next) ?? []));
  }
  found.delete(pid);
  return [...found];
}

/** When `pid` started, in clock ticks since boot (Linux, /proc/PID/stat starttime); undefined elsewhere or when gone. */
export function startTicks(pid: number): number | undefined {
  if (!HAS_PROC) return undefined;
  const ticks = Number(statFields(String(pid))?.[19]);
  return Number.isSafeInteger(ticks) ? ticks : undefined;
}

/** True when `pid` has no child process, zombies included (Linux: /proc/PID/task/TID/children); undefined when unreadable. */
export function childless(pid: number): boolean | undefined {
  if (!HAS_PROC) return undefined;
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      if (fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim() !== '') return false;
    }
    return true;
  } catch {
    return undefined; // gone, or a kernel without the children file: the caller looks the long way
  }
}

/** Sends `signal` to each process; gone ones are fine. */
export function signalEach(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH or EPERM: nothing more to do here
    }
  }
}

/** True while `pid` is a living (non-zombie) process. */
export function processAlive(pid: number): boolean {
  if (HAS_PROC) {
    const fields = statFields(String(pid));
    return fields !== undefined && fields[0] !== 'Z' && fields[0] !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
