/**
 * The server side of stdio, line by line with a bound: a message longer than
 * `maxMessageBytes` is discarded as it streams in (never buffered whole) and
 * answered with a JSON-RPC error, a line that is not a JSON-RPC message gets a
 * parse error, and the server goes on serving. (The SDK's stdio transport
 * closes the server on an over-long line, and the process then exits 0
 * without a word.)
 */
import { stdioLine } from '../../json.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/server';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';
import { DEFAULT_MAX_SERVED_MESSAGE_BYTES } from '../../bounds.js';

const NEWLINE = 0x0a;

/** A stdio server transport that survives over-long and malformed lines. */
export class BoundedStdioServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #max: number;
  #parts: Buffer[] = [];
  #size = 0;
  #discarding = false;
  #closed = false;

  constructor(options: { maxMessageBytes?: number; stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#max = options.maxMessageBytes ?? DEFAULT_MAX_SERVED_MESSAGE_BYTES;
  }

  readonly #onData = (chunk: Buffer): void => {
    let rest = chunk;
    for (let at = rest.indexOf(NEWLINE); at !== -1; at = rest.indexOf(NEWLINE)) {
      this.#line(rest.subarray(0, at));
      rest = rest.subarray(at + 1);
    }
    if (this.#discarding || rest.length === 0) return;
    if (this.#size + rest.length > this.#max) return this.#tooLong(); // found before the newline comes: stop buffering now
    this.#parts.push(rest);
    this.#size += rest.length;
  };

  readonly #onError = (error: Error): void => this.onerror?.(error);

  // One complete line (its last part): handled, or dropped when it was too long.
  #line(last: Buffer): void {
    if (this.#discarding) {
      this.#discarding = false; // the newline ends the discarded message
      return;
    }
    if (this.#size + last.length > this.#max) {
      this.#tooLong();
      this.#discarding = false;
      return;
    }
    const text = Buffer.concat([...this.#parts, last])
      .toString('utf8')
      .replace(/\r$/, '');
    this.#parts = [];
    this.#size = 0;
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch {
      this.#reject(-32700, 'the line is not a JSON-RPC message; it was ignored');
      return;
    }
    this.onmessage?.(message);
  }

  #tooLong(): void {
    this.#parts = [];
    this.#size = 0;
    this.#discarding = true;
    this.#reject(-32600, `a message over ${this.#max} bytes (maxMessageBytes) was discarded`);
    process.stderr.write(`agt-mcp server: discarded an incoming message over ${this.#max} bytes (maxMessageBytes)\n`);
  }

  // Its id is unknown (never read): JSON-RPC answers such errors with id null.
  #reject(code: number, message: string): void {
    this.#stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } })}\n`);
  }

  /** Starts reading stdin. */
  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
  }

  /** Writes one message as a line (waits for the drain when stdout is full). */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(stdioLine(serializeMessage(message)))) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }

  /** Stops reading; the process's streams stay open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    this.#parts = [];
    this.onclose?.();
  }
}
