/**
 * A cgroup per stdio server, where Linux offers one (a writable cgroup v2
 * hierarchy: root, or a delegated subtree). Every process the server starts
 * stays in it, whatever it does to escape — `setsid`, double forks, `env -i`
 * (which drops the instance tag), respawning on SIGTERM — so close can end
 * them all (`cgroup.kill`) and count what is left. Elsewhere close relies on
 * process groups, parent links and the inherited tag (process-group.ts).
 * `AGT_MCP_NO_CGROUP=1` turns it off.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The cgroup of one server. */
export interface ServerCgroup {
  /** Its directory under the cgroup2 mount. */
  readonly dir: string;
  /** The living processes in it. */
  procs(): number[];
  /** Sends SIGKILL to every process in it at once (`cgroup.kill`, or one by one on kernels without it). */
  kill(): void;
  /** Removes the (empty) cgroup; a busy one is left for the kernel to report. */
  remove(): void;
}

let base: string | null | undefined; // undefined: not looked for yet; null: none usable

// Where this process's cgroup lives in a cgroup2 mount, if this process may create children there.
function findBase(): string | null {
  if (process.platform !== 'linux' || process.env.AGT_MCP_NO_CGROUP === '1') return null;
  try {
    const own = /^0::(.*)$/m.exec(fs.readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    // mountinfo: id parent dev root mountpoint … - fstype …; the mount shows the hierarchy from `root` down.
    const fields = fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((f) => f[f.indexOf('-') + 1] === 'cgroup2');
    const [root, mount] = [fields?.[3], fields?.[4]];
    if (own === undefined || root === undefined || mount === undefined) return null;
    const dir = path.join(mount, path.relative(root, own));
    const probe = path.join(dir, `agt-mcp-probe-${randomUUID()}`);
    fs.mkdirSync(probe);
    fs.rmdirSync(probe);
    sweepStaleCgroups(dir);
    return dir;
  } catch {
    return null; // not delegated to us, or no cgroup2: process groups and /proc do what they can
  }
}

const OURS = /^agt-mcp-(\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Removes the empty cgroups of hosts that died without closing their servers
 * (a SIGKILL, a crash): `agt-mcp-PID-…` whose PID no longer runs. One that
 * still holds a process is left (rmdir refuses it). Returns how many went.
 */
function sweepStaleCgroups(dir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0; // unreadable: the cgroups still work, the old ones stay
  }
  for (const name of names) {
    const pid = Number(OURS.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || running(pid)) continue;
    try {
      fs.rmdirSync(path.join(dir, name));
      removed += 1;
    } catch {
      // a process of it still runs: left for its host (or the kernel) to end
    }
  }
  return removed;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // another user's: running
  }
}

/** A new cgroup for a server, or undefined where none can be made. */
export function createServerCgroup(): ServerCgroup | undefined {
  base ??= findBase();
  if (base === null) return undefined;
  const dir = path.join(base, `agt-mcp-${process.pid}-${randomUUID()}`);
  try {
    fs.mkdirSync(dir);
  } catch {
    return undefined;
  }
  const procs = (): number[] => {
    try {
      return fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  return {
    dir,
    procs,
    kill() {
      try {
        fs.writeFileSync(path.join(dir, 'cgroup.kill'), '1');
      } catch {
        for (const pid of procs()) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
    },
    remove() {
      try {
        fs.rmdirSync(dir);
      } catch {
        // still busy (an unkillable process): reported as a survivor
      }
    },
  };
}

/** The argv that starts `command args` inside `cgroup`: a shell moves itself in, then execs the command (same pid). */
export function inCgroup(cgroup: ServerCgroup, command: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: '/bin/sh', args: ['-c', 'echo $$ > "$0/cgroup.procs" 2>/dev/null; exec "$@"', cgroup.dir, command, ...args] };
}
