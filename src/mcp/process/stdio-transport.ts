/**
 * The stdio transport: the SDK's `Transport` interface on top of its own
 * message format (serializeMessage; lines read by LineReader). The process
 * itself — spawned in its own group, ended as a whole, strays found, stderr
 * kept as a bounded tail — is a ServerProcess (server-process.ts); this file
 * frames the messages on its pipes.
 *
 * - Non-JSON lines on stdout are counted and skipped (many servers print a
 *   banner). A line over `maxMessageBytes` is never held: the request it
 *   answers fails (protocol_error oversized_message) and the connection
 *   lives on; when it answers no request, the connection ends with that error.
 * - Messages are delivered one per microtask, in order.
 */
import { stdioLine } from '../../json.js';
import { serializeMessage } from '@modelcontextprotocol/client';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../oversized.js';
import { LineReader } from './line-reader.js';
import type { LaunchSpec } from './launch.js';
import type { ProcessPlatform } from './platform/index.js';
import { serverWords } from '../server-words.js';
import { type ExitInfo, ServerProcess } from './server-process.js';
import type { SandboxLease } from './sandbox/launch.js';
import type { StderrTail } from './stderr-buffer.js';

export type { ExitInfo } from './server-process.js';

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
  /** The sandbox the server runs in (P5): its notes join the stderr tail, it is given back once the server ended. */
  sandbox?: SandboxLease;
}

/** A stdio MCP transport whose close ends the server's whole process group. */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  sessionId?: string;

  /** Non-JSON stdout lines skipped so far. */
  garbageLines = 0;
  /** Set when the stream broke the protocol beyond recovery. */
  fatal: AgtError | undefined;
  /** The protocol version negotiated by the client. */
  protocolVersion: string | undefined;
  /** Called once the process runs (the handshake starts). */
  onSpawned?: () => void;
  /** The method of the first request sent (`server/discover` when the era was probed). */
  firstMethod: string | undefined;
  /** Messages read from the server so far. */
  received = 0;
  /** The result the server answered the era probe (`server/discover`) with, in time or late; undefined if none. */
  discoverResult: Record<string, unknown> | undefined;
  #probeId: string | number | undefined;
  /** The first error the server answered with (code, and its message escaped and bounded): why a handshake was refused. */
  firstError: { code: number; message: string } | undefined;
  /** Resolves when the process exits or the stream turns fatal: the connection is gone. */
  readonly failed: Promise<void>;

  readonly #process: ServerProcess;
  readonly #lines: LineReader;
  #fail!: () => void;
  #closing: Promise<void> | undefined;
  #closeNotified = false;

  constructor(spec: LaunchSpec, options: StdioTransportOptions) {
    this.#process = new ServerProcess(spec, options);
    this.#lines = new LineReader(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    this.failed = new Promise((resolve) => {
      this.#fail = resolve;
    });
  }

  /** The server's stderr, as a bounded tail (secrets masked). */
  get stderr(): StderrTail {
    return this.#process.stderr;
  }
  /** Set when the process has exited. */
  get exit(): ExitInfo | undefined {
    return this.#process.exit;
  }
  /** Milliseconds from spawn() to the process running. */
  get spawnMs(): number {
    return this.#process.spawnMs;
  }
  /** Processes started by the server that were still alive after close (normally 0). */
  get survivors(): number {
    return this.#process.survivors;
  }
  /** The server's process id (also its process group id). */
  get pid(): number | undefined {
    return this.#process.pid;
  }

  /** Spawns the server; resolves once it runs, rejects with spawn_failed. */
  start(): Promise<void> {
    if (this.#process.started) throw new Error('ProcessGroupStdioTransport already started');
    return this.#process
      .start({
        stdout: (chunk) => this.#onStdout(chunk),
        stdoutClosed: () => void this.#endedByServer(),
        gone: () => this.#fail(),
        spawned: () => this.onSpawned?.(),
      })
      .catch(async (error: unknown) => {
        await this.close(); // a spawn that timed out or failed leaves nothing behind
        throw error;
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
    if (this.#probeId !== undefined && 'id' in message && message.id === this.#probeId && 'result' in message) {
      this.discoverResult = message.result as Record<string, unknown>;
    }
    if (this.firstError === undefined && 'error' in message) {
      const { code, message: text } = message.error;
      this.firstError = { code, message: serverWords(typeof text === 'string' ? text : '') };
    }
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
    if (this.firstMethod === undefined && 'method' in message && 'id' in message) {
      this.firstMethod = message.method;
      if (message.method === 'server/discover') this.#probeId = message.id;
    }
    return this.#process.write(stdioLine(serializeMessage(message)));
  }

  /** Called by the client after initialize. */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  // The server closed stdout or exited by itself: clean up its group too.
  async #endedByServer(): Promise<void> {
    await this.#process.exited;
    await this.close();
  }

  /** Ends the server and every process of its group; idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#process.end().finally(() => {
      if (!this.#closeNotified) {
        this.#closeNotified = true;
        this.onclose?.();
      }
    });
    return this.#closing;
  }
}
