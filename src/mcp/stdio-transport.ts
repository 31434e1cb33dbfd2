/**
 * The stdio transport: the SDK's `Transport` interface on top of its own
 * message format (serializeMessage; lines read by LineReader), with process handling the
 * SDK's StdioClientTransport lacks.
 *
 * - The server is spawned in its own process group (`detached`), and close
 *   ends the whole group: stdin end → grace → SIGTERM to the group → grace →
 *   SIGKILL. The SDK signals only the direct child, which leaves grandchildren
 *   (wrappers such as npx, uvx or shell scripts) orphaned and the client stuck.
 * - stderr is always drained into a bounded ring, so a chatty server never
 *   stalls on a full pipe; its tail goes into errors.
 * - Non-JSON lines on stdout are counted and skipped (many servers print a
 *   banner). A line over `maxMessageBytes` is never held: the request it
 *   answers fails (protocol_error oversized_message) and the connection
 *   lives on; when it answers no request, the connection ends with that error.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { serializeMessage } from '@modelcontextprotocol/client';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/client';
import { AgtError } from '../errors.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './oversized.js';
import { LineReader } from './line-reader.js';
import type { LaunchSpec } from './launch.js';
import { INSTANCE_ENV } from './process-group.js';
import { type ProcessPlatform, processPlatform } from './platform/index.js';
import { StderrTail } from './stderr-buffer.js';
import { createServerCgroup, inCgroup, type ServerCgroup } from './cgroup.js';

/** Options of {@link ProcessGroupStdioTransport}. */
export interface StdioTransportOptions {
  spawnMs: number;
  closeGraceMs: number;
  /** How servers start and end on this host (default: by process.platform; tests inject another). */
  platform?: ProcessPlatform;
  /** Longest accepted stdout line. Default 4 MiB. */
  maxMessageBytes?: number;
  /** Values the stderr tail never shows (the config's env values). */
  secrets?: readonly string[];
}

/** How the process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Resolves when `promise` does or after `ms`, whichever is first; the timer is cleared either way,
// so a server that exited at once does not keep the host alive for the whole grace period.
function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

/** A stdio MCP transport whose close ends the server's whole process group. */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  sessionId?: string;

  readonly stderr: StderrTail;
  /** Non-JSON stdout lines skipped so far. */
  garbageLines = 0;
  /** Set when the process has exited. */
  exit: ExitInfo | undefined;
  /** Set when the stream broke the protocol beyond recovery. */
  fatal: AgtError | undefined;
  /** The protocol version negotiated by the client. */
  protocolVersion: string | undefined;
  /** Milliseconds from spawn() to the process running. */
  spawnMs = 0;
  /** Called once the process runs (the handshake starts). */
  onSpawned?: () => void;
  /** The method of the first request sent (`server/discover` when the era was probed). */
  firstMethod: string | undefined;
  /** Messages read from the server so far. */
  received = 0;

  readonly #spec: LaunchSpec;
  // Inherited by everything the server starts, so close can find processes that left its group.
  readonly #tag = randomUUID();
  /** Processes started by the server that were still alive after close (normally 0). */
  survivors = 0;
  readonly #options: StdioTransportOptions;
  readonly #platform: ProcessPlatform;
  readonly #lines: LineReader;
  #child: ChildProcess | undefined;
  #cgroup: ServerCgroup | undefined;
  #exited: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #closeNotified = false;
  /** Resolves when the process exits or the stream turns fatal: the connection is gone. */
  readonly failed: Promise<void>;
  #fail!: () => void;

  constructor(spec: LaunchSpec, options: StdioTransportOptions) {
    this.#spec = spec;
    this.#options = options;
    this.#platform = options.platform ?? processPlatform();
    this.stderr = new StderrTail(16 * 1024, options.secrets ?? []);
    this.#lines = new LineReader(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    this.failed = new Promise((resolve) => {
      this.#fail = resolve;
    });
  }

  /** The server's process id (also its process group id). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Spawns the server; resolves once it runs, rejects with spawn_failed. */
  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('ProcessGroupStdioTransport already started');
    const started = performance.now();
    // In a cgroup of its own where Linux allows: nothing the server starts can escape close.
    this.#cgroup = this.#platform.name === 'linux' ? createServerCgroup() : undefined;
    const program =
      this.#cgroup === undefined
        ? { command: this.#spec.command, args: this.#spec.args }
        : inCgroup(this.#cgroup, this.#spec.command, this.#spec.args);
    const launch = this.#platform.spawnTarget(program.command, program.args, this.#spec.env);
    const child = spawn(launch.command, launch.args, {
      cwd: this.#spec.cwd,
      env: { ...this.#spec.env, [INSTANCE_ENV]: this.#tag },
      detached: launch.detached, // POSIX: its own process group, ended as a whole on close
      windowsVerbatimArguments: launch.windowsVerbatimArguments, // cmd.exe lines are quoted already
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.#fail();
        resolve();
      });
    });
    child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    child.stdout?.on('data', (chunk: Buffer) => this.#onStdout(chunk));
    child.stdin?.on('error', () => undefined); // EPIPE when the server is gone: seen through exit
    child.stdout?.on('close', () => void this.#endedByServer());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new AgtError('spawn_failed', `the server did not start within ${this.#options.spawnMs} ms`, {
            details: { reason: 'spawn_timeout' },
          }),
        );
        void this.close();
      }, this.#options.spawnMs);
      child.once('spawn', () => {
        clearTimeout(timer);
        this.spawnMs = performance.now() - started;
        this.onSpawned?.();
        resolve();
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        this.#fail();
        reject(
          new AgtError('spawn_failed', `the server could not be started (${error.code ?? 'error'})`, {
            details: { reason: 'spawn_error', errno: error.code },
            cause: error,
          }),
        );
      });
    });
  }

  #onStdout(chunk: Buffer): void {
    if (this.fatal !== undefined) return;
    for (const line of this.#lines.push(chunk)) {
      if (line.kind === 'message') this.#deliver(line.message);
      else if (line.kind === 'garbage')
        this.garbageLines += 1; // not JSON-RPC: a banner or a log line on the wrong stream
      else if (line.reply !== undefined)
        this.#deliver(line.reply); // only the request it answers fails
      else return this.#oversized();
    }
  }

  // A line over the limit whose response id cannot be read: the stream cannot be trusted any more.
  #oversized(): void {
    this.fatal = new AgtError(
      'protocol_error',
      `the server wrote a stdout line longer than ${this.#lines.maxBytes} bytes that answers no request of this client; the connection was ended`,
      { details: { reason: 'oversized_message', limitBytes: this.#lines.maxBytes } },
    );
    this.#fail();
    this.onerror?.(this.fatal);
    void this.close();
  }

  // One message per microtask, in order. The SDK handles a notification one
  // microtask after it arrives but a response at once, so a response read in
  // the same chunk would overtake the notifications before it (and the last
  // progress notifications of a call would be dropped as "unknown token").
  #delivery: Promise<void> = Promise.resolve();
  #deliver(message: JSONRPCMessage): void {
    this.received += 1;
    this.#delivery = this.#delivery.then(() => {
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    });
  }

  /** Sends one message; rejects with connection_closed when the server is gone. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin == null || stdin.destroyed || !stdin.writable || this.exit !== undefined) {
      return Promise.reject(new AgtError('connection_closed', 'the server process is no longer running'));
    }
    if (this.firstMethod === undefined && 'method' in message && 'id' in message) this.firstMethod = message.method;
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Called by the client after initialize. */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  // The server closed stdout or exited by itself: clean up its group too.
  async #endedByServer(): Promise<void> {
    await this.#exited;
    await this.close();
  }

  /** Ends the server and every process of its group; idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#terminate().finally(() => {
      if (!this.#closeNotified) {
        this.#closeNotified = true;
        this.onclose?.();
      }
    });
    return this.#closing;
  }

  async #terminate(): Promise<void> {
    try {
      await this.#endProcesses();
    } finally {
      await this.#endCgroup();
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
    // Processes that left the group (setsid, detached, double forks), found before they could be orphaned further.
    const strays = new Set(await this.#platform.strays(pid, this.#tag));
    child.stdin?.end();
    await within(this.#exited ?? Promise.resolve(), grace);
    for (const p of await this.#platform.strays(pid, this.#tag)) strays.add(p);
    if (!(await this.#groupGone(pid, 0))) {
      this.#platform.signalTree(pid, 'SIGTERM');
      if (!(await this.#groupGone(pid, grace))) {
        this.#platform.signalTree(pid, 'SIGKILL');
        await this.#groupGone(pid, grace);
      }
    }
    await this.#endStrays(pid, strays, grace);
  }

  // Ends the server's processes outside its group: SIGTERM, grace, SIGKILL; counts what is left.
  async #endStrays(pid: number, strays: Set<number>, grace: number): Promise<void> {
    for (const p of await this.#platform.strays(pid, this.#tag)) strays.add(p);
    const alive = () => [...strays].filter((p) => this.#platform.processAlive(p));
    if (alive().length === 0) return;
    this.#platform.signalEach(alive(), 'SIGTERM');
    const deadline = performance.now() + grace;
    while (alive().length > 0 && performance.now() < deadline) await sleep(20);
    for (const p of await this.#platform.strays(pid, this.#tag)) strays.add(p);
    // SIGKILL, then look again: a stray that respawned on SIGTERM has a new pid (it keeps the tag).
    for (let round = 0; round < 3 && alive().length > 0; round++) {
      this.#platform.signalEach(alive(), 'SIGKILL');
      const end = performance.now() + grace;
      while (alive().length > 0 && performance.now() < end) await sleep(20);
      for (const p of await this.#platform.strays(pid, this.#tag)) strays.add(p);
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
