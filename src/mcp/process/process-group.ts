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
  if (HAS_PROC) return livingMembers(pgid) > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Living processes whose process group is `pgid` (Linux, from /proc). */
export function livingMembers(pgid: number): number {
  let count = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // pid (comm) state ppid pgrp …; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    if (Number(fields[2]) === pgid && state !== 'Z' && state !== 'X') count += 1;
  }
  return count;
}

/** The environment variable every server is started with: its descendants inherit it, so they can be found. */
export const INSTANCE_ENV = 'AGT_MCP_INSTANCE';

function procEntries(): string[] {
  return fs.readdirSync('/proc').filter((e) => e.charCodeAt(0) >= 48 && e.charCodeAt(0) <= 57);
}

function statFields(pid: string): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' '); // state ppid pgrp session …
  } catch {
    return undefined;
  }
}

/**
 * Living processes started by the server, in any process group or session
 * (Linux): descendants of `pid` by parent link, and every process whose
 * environment carries the server's instance tag (which also finds orphans of
 * double forks and `setsid` daemons). Elsewhere: none.
 */
export function serverProcesses(pid: number, tag: string): number[] {
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
    if (child === pid || child === process.pid) continue;
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
