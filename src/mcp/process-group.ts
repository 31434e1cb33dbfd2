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
