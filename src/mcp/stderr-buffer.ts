/** A bounded ring of a process's stderr: always drained, only the tail kept, secrets masked. */
import { maskSecrets } from '../resources/secrets.js';

/** Keeps the last `limit` bytes written to it. */
export class StderrTail {
  readonly #limit: number;
  #chunks: Buffer[] = [];
  #size = 0;
  /** Bytes seen in total, including those dropped. */
  total = 0;

  readonly #secrets: readonly string[];

  /** `secrets`: values of the config's env (and headers) that the text never shows. */
  constructor(limit = 16 * 1024, secrets: readonly string[] = []) {
    this.#limit = limit;
    this.#secrets = secrets;
  }

  /** Adds a chunk, dropping the oldest bytes beyond the limit. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size > this.#limit && this.#chunks.length > 1) {
      this.#size -= (this.#chunks.shift() as Buffer).length;
    }
  }

  /** The last `max` characters of what was kept, with the secrets shown as `***`. */
  text(max = 4096): string {
    const all = maskSecrets(Buffer.concat(this.#chunks).toString('utf8'), this.#secrets);
    return all.length > max ? all.slice(all.length - max) : all;
  }
}
