/**
 * Progress of a probe on stderr. On a terminal: one line redrawn with the
 * phase and the time so far. On a pipe: nothing, unless a phase takes longer
 * than `slowMs` — then one line says so (a hanging server is visible in logs).
 */

/** Shows the phases of one probe. */
export class PhaseProgress {
  readonly #label: string;
  readonly #tty: boolean;
  readonly #slowMs: number;
  readonly #started = performance.now();
  #phase = 'starting';
  #phaseStarted = performance.now();
  #timer: NodeJS.Timeout | undefined;

  constructor(label: string, options: { tty: boolean; slowMs?: number }) {
    this.#label = label;
    this.#tty = options.tty;
    this.#slowMs = options.slowMs ?? 2_000;
    if (this.#tty) {
      this.#timer = setInterval(() => this.#draw(), 100);
      this.#timer.unref();
      this.#draw();
    }
  }

  /** A new phase began. */
  phase(name: string): void {
    this.#phase = name;
    this.#phaseStarted = performance.now();
    if (this.#tty) return this.#draw();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      process.stderr.write(`agt: ${this.#label}: still in ${name} after ${(this.#slowMs / 1000).toFixed(0)} s\n`);
    }, this.#slowMs);
    this.#timer.unref();
    return undefined;
  }

  /** Done: the line is cleared (terminal) and no further line is written. */
  stop(): void {
    clearInterval(this.#timer);
    clearTimeout(this.#timer);
    if (this.#tty) process.stderr.write('\r\x1b[K');
  }

  #draw(): void {
    const total = ((performance.now() - this.#started) / 1000).toFixed(1);
    const phase = ((performance.now() - this.#phaseStarted) / 1000).toFixed(1);
    process.stderr.write(`\r\x1b[K${this.#label}: ${this.#phase} (${phase} s, ${total} s in all)`);
  }
}
