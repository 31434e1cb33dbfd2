/**
 * Newline-delimited JSON-RPC from a server's stdout, bounded: a line is held
 * only while it is within `maxBytes`. A longer line is dropped as it arrives;
 * only its head and tail are kept, to read the id of the response it was
 * (see oversized.ts). Chunks are joined once per line, never re-copied per chunk.
 */
import { deserializeMessage } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { OVERSIZED_EDGE, oversizedError, oversizedHead, oversizedResponseId } from '../oversized.js';

/** One line read: a message, a line that is not JSON-RPC, or a line over the limit. */
export type ReadLine =
  | { kind: 'message'; message: JSONRPCMessage }
  | { kind: 'garbage' }
  /** `reply` stands in for the response the line was; absent when no response id could be read. */
  | { kind: 'oversized'; reply?: JSONRPCMessage };

const NEWLINE = 0x0a;

/** Splits stdout into lines of at most `maxBytes` bytes. */
export class LineReader {
  readonly maxBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #overflow: { head: string; tail: Buffer; told: boolean } | undefined;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Takes one chunk; returns the lines it completed, in order. */
  push(chunk: Buffer): ReadLine[] {
    const out: ReadLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end !== -1 && this.#size === 0 && this.#overflow === undefined && end - start <= this.maxBytes) {
        // A whole line within this chunk (the usual case): read in place, with no copy of its bytes.
        const line = this.#parse(chunk.toString('utf8', start, end));
        if (line !== undefined) out.push(line);
        start = end + 1;
        continue;
      }
      const early = this.#take(chunk.subarray(start, end === -1 ? chunk.length : end));
      if (early !== undefined) out.push(early);
      if (end === -1) break;
      const line = this.#finish();
      if (line !== undefined) out.push(line);
      start = end + 1;
    }
    return out;
  }

  // Holds a piece of the current line; when the line goes over the limit, its head may already tell what it is.
  #take(piece: Buffer): ReadLine | undefined {
    if (this.#overflow !== undefined) {
      if (!this.#overflow.told) this.#overflow.tail = lastBytes(Buffer.concat([this.#overflow.tail, piece]));
      return undefined;
    }
    if (this.#size + piece.length <= this.maxBytes) {
      if (piece.length > 0) this.#chunks.push(Buffer.from(piece)); // a copy: the chunk's memory is not kept whole
      this.#size += piece.length;
      return undefined;
    }
    const whole = Buffer.concat([...this.#chunks, piece]);
    const head = whole.subarray(0, OVERSIZED_EDGE).toString('utf8');
    this.#chunks = [];
    this.#size = 0;
    const known = oversizedHead(head);
    this.#overflow = { head, tail: lastBytes(whole), told: known !== undefined };
    // Told at once: the request fails now, not once the server has written the rest (it may never).
    if (known === false) return { kind: 'oversized' };
    return known === undefined ? undefined : this.#reply(known);
  }

  #reply(id: string): ReadLine {
    return { kind: 'oversized', reply: JSON.parse(oversizedError(id, this.maxBytes)) as JSONRPCMessage };
  }

  #finish(): ReadLine | undefined {
    const overflow = this.#overflow;
    if (overflow !== undefined) {
      this.#overflow = undefined;
      if (overflow.told) return undefined;
      const id = oversizedResponseId(overflow.head, overflow.tail.toString('utf8'));
      return id === undefined ? { kind: 'oversized' } : this.#reply(id);
    }
    const text = Buffer.concat(this.#chunks, this.#size).toString('utf8');
    this.#chunks = [];
    this.#size = 0;
    return this.#parse(text);
  }

  // One line's text (without its newline) as a message; a trailing \r is dropped, blank lines carry nothing.
  #parse(line: string): ReadLine | undefined {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim() === '') return undefined;
    try {
      return { kind: 'message', message: deserializeMessage(text) };
    } catch {
      return { kind: 'garbage' };
    }
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length <= OVERSIZED_EDGE ? buffer : Buffer.from(buffer.subarray(buffer.length - OVERSIZED_EDGE));
}
