/** A bounded ring of a process's stderr: always drained, only the tail kept, secrets masked. */
import { StringDecoder } from 'node:string_decoder';
import { SECRET_MASK } from '../../config/secrets.js';
import { STDERR_TAIL_BYTES } from '../../bounds.js';

/** Keeps the last `limit` characters written to it. */
export class StderrTail {
  readonly #limit: number;
  readonly #decoder = new StringDecoder('utf8'); // a character split across chunks stays whole
  #chunks: string[] = [];
  #size = 0;
  // The end of what was dropped, as long as the longest secret minus one: a secret that
  // straddles the cut is still found (and masked) rather than showing its second half.
  #carry = '';
  /** Bytes seen in total, including those dropped. */
  total = 0;

  readonly #secrets: readonly string[];
  readonly #overlap: number;

  readonly #notes: (() => string) | undefined;

  /** `secrets`: values of the config's env (and headers) that the text never shows; `notes`: text shown after the tail (a sandbox's denials). */
  constructor(limit = STDERR_TAIL_BYTES, secrets: readonly string[] = [], notes?: () => string) {
    this.#limit = limit;
    this.#notes = notes;
    this.#secrets = secrets.filter((s) => s.length > 0);
    this.#overlap = Math.max(0, ...this.#secrets.map((s) => s.length - 1));
  }

  /** Adds a chunk, dropping the oldest text beyond the limit. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    const text = this.#decoder.write(chunk);
    if (text === '') return;
    this.#chunks.push(text);
    this.#size += text.length;
    while (this.#size > this.#limit && this.#chunks.length > 1) {
      const dropped = this.#chunks.shift() as string;
      this.#size -= dropped.length;
      if (this.#overlap > 0) this.#carry = (this.#carry + dropped).slice(-this.#overlap);
    }
  }

  /** The last `max` characters of what was kept, with the secrets shown as `***` (masked before trimming). */
  text(max = 4096): string {
    const kept = this.#chunks.join('') + (this.#notes?.() ?? '');
    const all = this.#carry + kept;
    // Mask by ranges over carry + kept, then show only the kept part: a secret that began in the carry shows as ***.
    const ranges: [number, number][] = [];
    for (const secret of this.#secrets) {
      for (let at = all.indexOf(secret); at !== -1; at = all.indexOf(secret, at + 1)) ranges.push([at, at + secret.length]);
    }
    ranges.sort((a, b) => a[0] - b[0]);
    let out = '';
    let position = this.#carry.length;
    for (const [start, end] of ranges) {
      if (end <= position) continue;
      if (start > position) out += all.slice(position, start);
      out += SECRET_MASK;
      position = end;
    }
    out += all.slice(position);
    return out.length > max ? out.slice(out.length - max) : out;
  }
}
