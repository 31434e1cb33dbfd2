/**
 * A tiny benchmark harness: each measurement runs `fn` in rounds and reports
 * the median time per operation, since these machines are noisy.
 */
export interface Measurement {
  name: string;
  /** Median nanoseconds per operation over the rounds. */
  nsPerOp: number;
}

/** Times `fn` (called `opsPerRound` times per round) and returns the median ns/op. */
export function measure(name: string, fn: (i: number) => unknown, options: { rounds?: number; opsPerRound?: number } = {}): Measurement {
  const rounds = options.rounds ?? 15;
  const ops = options.opsPerRound ?? 2000;
  let sink: unknown;
  for (let i = 0; i < Math.min(ops, 500); i++) sink = fn(i); // warm-up
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ops; i++) sink = fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / ops);
  }
  if (sink === Symbol.for('never')) console.log(sink);
  return { name, nsPerOp: median(samples) };
}

/** The median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Formats nanoseconds for a table. */
/** The median milliseconds of `rounds` starts of something closed right after (a run, a connection); closing is not timed. */
export async function medianStartMs(rounds: number, start: () => Promise<{ close(): Promise<void> }>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const started = await start();
    times.push(performance.now() - t);
    await started.close();
  }
  return median(times);
}

export function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** A benchmark's result: a markdown section and the targets it checked. */
export interface BenchReport {
  title: string;
  markdown: string;
  targets: { name: string; ok: boolean; detail: string }[];
}
