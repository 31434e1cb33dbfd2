/**
 * The server process of a stdio connection, apart from the messages on its
 * pipes (stdio-transport.ts frames those): spawned in a process group of its
 * own (and a cgroup where Linux allows), its stderr drained into a bounded
 * tail, and ended as a whole — stdin end → grace → SIGTERM to the group →
 * grace → SIGKILL, then the processes that left the group (found by an
 * inherited tag), through the platform seam.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { AgtError } from '../../errors.js';
import { createServerCgroup, inCgroup, type ServerCgroup } from './cgroup.js';
import type { LaunchSpec } from './launch.js';
import { type ProcessPlatform, processPlatform } from './platform/index.js';
import { INSTANCE_ENV } from './process-group.js';
import { StderrTail } from './stderr-buffer.js';
import type { SandboxLease } from './sandbox/launch.js';
import { STDERR_TAIL_BYTES } from '../../bounds.js';

/** How the process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link ServerProcess}. */
export interface ServerProcessOptions {
  spawnMs: number;
  closeGraceMs: number;
  /** How servers start and end on this host (default: by process.platform; tests inject another). */
  platform?: ProcessPlatform;
  /** Values the stderr tail never shows (the config's env values). */
  secrets?: readonly string[];
  /** The sandbox the server runs in (P5): its notes join the stderr tail, it is given back once the server ended. */
  sandbox?: SandboxLease;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Resolves when `promise` does or after `ms`, whichever is first; the timer is cleared either way,
// so a server that exited at once does not keep the host alive for the whole grace period.
function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

/** One MCP server process and everything it starts. */
export class ServerProcess {
  readonly stderr: StderrTail;
  /** Set when the process has exited. */
  exit: ExitInfo | undefined;
  /** Milliseconds from spawn() to the process running. */
  spawnMs = 0;
  /** Processes started by the server that were still alive after end (normally 0). */
  survivors = 0;

  readonly #spec: LaunchSpec;
  readonly #options: ServerProcessOptions;
  readonly #platform: ProcessPlatform;
  // Inherited by everything the server starts, so end can find processes that left its group.
  readonly #tag = randomUUID();
  #child: ChildProcess | undefined;
  #cgroup: ServerCgroup | undefined;
  #exited: Promise<void> | undefined;
  #ending: Promise<void> | undefined;
  #since: number | undefined; // when the server started (ticks since boot): nothing older carries the tag

  constructor(spec: LaunchSpec, options: ServerProcessOptions) {
    this.#spec = spec;
    this.#options = options;
    this.#platform = options.platform ?? processPlatform();
    this.stderr = new StderrTail(STDERR_TAIL_BYTES, options.secrets ?? [], options.sandbox?.notes);
  }

  /** The server's process id (also its process group id). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Whether it was started. */
  get started(): boolean {
    return this.#child !== undefined;
  }

  /** Resolves when the process has exited (at once when it never started). */
  get exited(): Promise<void> {
    return this.#exited ?? Promise.resolve();
  }

  /**
   * Spawns the server; resolves once it runs, rejects with spawn_failed.
   * `on` is told of stdout data, of stdout closing, and of the exit or a spawn error (the connection is gone).
   */
  start(on: { stdout(chunk: Buffer): void; stdoutClosed(): void; gone(): void; spawned?(): void }): Promise<void> {
    if (this.#child !== undefined) throw new Error('ServerProcess already started');
    const started = performance.now();
    // In a cgroup of its own where Linux allows: nothing the server starts can escape end.
    this.#cgroup = this.#platform.name === 'linux' ? createServerCgroup() : undefined;
    const program =
      this.#cgroup === undefined
        ? { command: this.#spec.command, args: this.#spec.args }
        : inCgroup(this.#cgroup, this.#spec.command, this.#spec.args);
    const launch = this.#platform.spawnTarget(program.command, program.args, this.#spec.env);
    const child = spawn(launch.command, launch.args, {
      cwd: this.#spec.cwd,
      env: { ...this.#spec.env, [INSTANCE_ENV]: this.#tag },
      detached: launch.detached, // POSIX: its own process group, ended as a whole
      windowsVerbatimArguments: launch.windowsVerbatimArguments, // cmd.exe lines are quoted already
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        on.gone();
        resolve();
      });
    });
    child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    child.stdout?.on('data', on.stdout);
    child.stdin?.on('error', () => undefined); // EPIPE when the server is gone: seen through exit
    child.stdout?.on('close', on.stdoutClosed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new AgtError('spawn_failed', `the server did not start within ${this.#options.spawnMs} ms`, {
            details: { reason: 'spawn_timeout' },
          }),
        );
        void this.end();
      }, this.#options.spawnMs);
      child.once('spawn', () => {
        clearTimeout(timer);
        this.spawnMs = performance.now() - started;
        if (child.pid !== undefined) this.#since = this.#platform.startTicks?.(child.pid);
        on.spawned?.();
        resolve();
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        on.gone();
        reject(
          new AgtError('spawn_failed', `the server could not be started (${error.code ?? 'error'})`, {
            details: { reason: 'spawn_error', errno: error.code },
            cause: error,
          }),
        );
      });
    });
  }

  /** Writes to the server's stdin (waiting for drain); rejects with connection_closed when the server is gone. */
  write(data: string): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin == null || stdin.destroyed || !stdin.writable || this.exit !== undefined) {
      return Promise.reject(new AgtError('connection_closed', 'the server process is no longer running'));
    }
    return new Promise((resolve) => {
      if (stdin.write(data)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the server and every process it started; idempotent. */
  end(): Promise<void> {
    this.#ending ??= this.#terminate();
    return this.#ending;
  }

  async #terminate(): Promise<void> {
    try {
      await this.#endProcesses();
    } finally {
      await this.#endCgroup();
      await this.#options.sandbox?.release(); // after the whole tree ended: the last server's end resets the sandbox host
    }
  }

  // Whatever is still in the server's cgroup after the graceful steps is killed at once; what even that leaves is a survivor.
  async #endCgroup(): Promise<void> {
    const cgroup = this.#cgroup;
    if (cgroup === undefined) return;
    if (cgroup.procs().length > 0) {
      cgroup.kill();
      const deadline = performance.now() + Math.max(this.#options.closeGraceMs, 500);
      while (cgroup.procs().length > 0 && performance.now() < deadline) await sleep(10);
      this.survivors = Math.max(this.survivors, cgroup.procs().length);
    }
    cgroup.remove();
  }

  async #endProcesses(): Promise<void> {
    const child = this.#child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined) return;
    const grace = this.#options.closeGraceMs;
    // Processes that left the group (setsid, detached, double forks), found before they could be orphaned further;
    // a server with no process but itself has none to orphan (what carries the tag is found after its exit all the same).
    const strays = new Set(this.#alone(pid) ? [] : await this.#platform.strays(pid, this.#tag, this.#since));
    child.stdin?.end();
    await within(this.#exited ?? Promise.resolve(), grace);
    // The group first, then the tag: once no process of the group lives, none can start another in it.
    const goneAtOnce = await this.#groupGone(pid, 0);
    for (const p of await this.#platform.strays(pid, this.#tag, this.#since)) strays.add(p);
    if (!goneAtOnce) {
      this.#platform.signalTree(pid, 'SIGTERM');
      if (!(await this.#groupGone(pid, grace))) {
        this.#platform.signalTree(pid, 'SIGKILL');
        await this.#groupGone(pid, grace);
      }
    }
    // A group that was gone at once sent no signal since the last look: it need not be looked at again.
    await this.#endStrays(pid, strays, grace, !goneAtOnce);
  }

  // True when the server runs no process but itself (its cgroup holds it alone, or it has no child): nothing to orphan.
  #alone(pid: number): boolean {
    const procs = this.#cgroup?.procs();
    if (procs !== undefined && procs.length > 0 && procs.every((p) => p === pid)) return true;
    return this.#platform.childless?.(pid) === true;
  }

  // Ends the server's processes outside its group: SIGTERM, grace, SIGKILL; counts what is left.
  async #endStrays(pid: number, strays: Set<number>, grace: number, lookAgain: boolean): Promise<void> {
    if (lookAgain) for (const p of await this.#platform.strays(pid, this.#tag, this.#since)) strays.add(p);
    const alive = () => [...strays].filter((p) => this.#platform.processAlive(p));
    if (alive().length === 0) return;
    this.#platform.signalEach(alive(), 'SIGTERM');
    const deadline = performance.now() + grace;
    while (alive().length > 0 && performance.now() < deadline) await sleep(20);
    for (const p of await this.#platform.strays(pid, this.#tag, this.#since)) strays.add(p);
    // SIGKILL, then look again: a stray that respawned on SIGTERM has a new pid (it keeps the tag).
    for (let round = 0; round < 3 && alive().length > 0; round++) {
      this.#platform.signalEach(alive(), 'SIGKILL');
      const end = performance.now() + grace;
      while (alive().length > 0 && performance.now() < end) await sleep(20);
      for (const p of await this.#platform.strays(pid, this.#tag, this.#since)) strays.add(p);
    }
    this.survivors = alive().length;
  }

  // True once the leader has exited and no process of the group is left.
  async #groupGone(pid: number, waitMs: number): Promise<boolean> {
    const deadline = performance.now() + waitMs;
    for (;;) {
      if (this.exit !== undefined && !this.#platform.treeAlive(pid)) return true;
      if (performance.now() >= deadline) return false;
      await sleep(Math.min(20, Math.max(1, deadline - performance.now())));
    }
  }
}
