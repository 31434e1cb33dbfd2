/**
 * The per-call path (issues 49, 64), `npm run bench -- per-call`: agt-mcp's
 * NativeRun against a bare SDK v2 `Client` over stdio — one call a batch
 * against one `callTool`, and a batch of 10 against 10 parallel `callTool`s —
 * on the Python fixture (2025) and on an SDK v2 `McpServer`
 * (bench/kit-servers.ts `bare`) in both eras (2025: the default client;
 * 2026-07-28: `versionNegotiation: { mode: 'auto' }`). Each side runs in a
 * process of its own (bench/per-call-side.mjs, plain node, on a fresh server
 * of its own): a host runs one of the two, not both, and in one process each
 * side's garbage, GC pauses and JIT state would land on the other's measure
 * (issue 64: one process read 1.30× on the Python fixture where the two
 * sides alone were at parity). Each round spawns the two sides one after the
 * other, which first alternating round by round, and pairs them. Wall and the
 * side's own CPU (process.cpuUsage of its process: the client only, not its
 * server) per operation; ratios are medians of per-round ratios, with their
 * range. Targets (issue 64): one call ≤ 1.05×, a batch of 10 ≤ 1.10×. It
 * measures the built package (`dist/`, what a host imports: `npm run build`
 * first; PER_CALL_DIST=<dir> another build), not the sources under tsx.
 * PER_CALL_ROUNDS (default 9), PER_CALL_ONLY=<substring of a server's name>,
 * PER_CALL_SEQUENTIAL (3,000), PER_CALL_BATCHES (300) and PER_CALL_WARMUP
 * (2,000 calls, a tenth as many groups of 10) per side and round: a fresh
 * process needs that long a warm-up to measure the steady state a host that
 * lives for weeks runs in (with 50 warm-up calls and 600 timed, each side's
 * CPU per call was 2–3× its steady state — JIT compilation — and NativeRun,
 * more code to compile, read 1.07–1.34×). PER_CALL_BARE_SESSION=own starts
 * the bare side's server in a session of its own (`setsid`), as agt-mcp
 * starts every stdio server (its own process group), so the two sides differ
 * in the client alone.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Math.max(1, Number(process.env.PER_CALL_ROUNDS ?? 9));
const SEQUENTIAL = Math.max(1, Number(process.env.PER_CALL_SEQUENTIAL ?? 3000));
const BATCHES = Math.max(1, Number(process.env.PER_CALL_BATCHES ?? 300));
const WARMUP = Math.max(0, Number(process.env.PER_CALL_WARMUP ?? 2000));
const SIDE_TIMEOUT_MS = 180_000;
const ONE_TARGET = 1.05;
const TEN_TARGET = 1.1;

/** A server and era, by its name in the table and its key in bench/per-call-side.mjs (which holds its config). */
interface Target {
  name: string;
  key: 'py' | 'v2' | 'v2new';
}

const ALL: Target[] = [
  { name: 'Python fixture, 2025', key: 'py' },
  { name: 'SDK v2 server, 2025', key: 'v2' },
  { name: 'SDK v2 server, 2026-07-28', key: 'v2new' },
];
const TARGETS = ALL.filter((t) => t.name.includes(process.env.PER_CALL_ONLY ?? ''));

/** Wall and client CPU µs per operation. */
interface Cost {
  wall: number;
  cpu: number;
}
/** One side's costs in a round: one call, and ten at once. */
interface Sample {
  one: Cost;
  ten: Cost;
}
type SideName = 'ours' | 'bare';

// One side alone: bench/per-call-side.mjs in a process of its own; its one JSON line, or a throw with its stderr.
function side(target: Target, which: SideName): Promise<Sample> {
  const script = path.join(root, 'bench/per-call-side.mjs');
  const env = {
    ...process.env,
    PER_CALL_SEQUENTIAL: String(SEQUENTIAL),
    PER_CALL_BATCHES: String(BATCHES),
    PER_CALL_WARMUP: String(WARMUP),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, target.key, which], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const timer = setTimeout(() => child.kill('SIGTERM'), SIDE_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`per-call ${target.name}, ${which}: exit ${code ?? signal}\n${err.trim()}`));
      try {
        resolve(JSON.parse(line) as Sample);
      } catch {
        reject(new Error(`per-call ${target.name}, ${which}: no JSON line on stdout (${JSON.stringify(out)})\n${err.trim()}`));
      }
    });
  });
}

// One round: the two sides one after the other, each in its own process on its own server; `flip` runs ours first.
async function round(target: Target, flip: boolean): Promise<{ bare: Sample; ours: Sample }> {
  const order: SideName[] = flip ? ['ours', 'bare'] : ['bare', 'ours'];
  const got: Partial<Record<SideName, Sample>> = {};
  for (const which of order) got[which] = await side(target, which);
  return { bare: got.bare as Sample, ours: got.ours as Sample };
}

const spread = (values: number[]) => `${median(values).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
const us = (values: number[]) => `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

/** Runs the per-call benchmark. */
export async function runPerCallBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const rows: string[] = [];
  for (const target of TARGETS) {
    const samples: { bare: Sample; ours: Sample }[] = [];
    for (let r = 0; r < ROUNDS; r++) samples.push(await round(target, r % 2 === 1));
    for (const [what, key, goal] of [
      ['one call', 'one', ONE_TARGET],
      ['10 at once', 'ten', TEN_TARGET],
    ] as const) {
      const of = (which: SideName, cost: keyof Cost) => samples.map((s) => s[which][key][cost]);
      const ratio = (cost: keyof Cost) => samples.map((s) => s.ours[key][cost] / s.bare[key][cost]);
      rows.push(
        `| ${target.name} | ${what} | ${us(of('bare', 'wall'))} | ${us(of('ours', 'wall'))} | ${spread(ratio('wall'))} | ${us(of('bare', 'cpu'))} | ${us(of('ours', 'cpu'))} | ${spread(ratio('cpu'))} |`,
      );
      const wall = median(ratio('wall'));
      const against = key === 'one' ? 'a bare v2 Client' : 'ten parallel bare calls';
      const name = `${target.name}: ${key === 'one' ? 'one call' : 'a batch of 10'} ≤ ${goal.toFixed(2)}× ${against} (wall)`;
      targets.push({ name, ok: wall <= goal, detail: `${wall.toFixed(2)}×, CPU ${median(ratio('cpu')).toFixed(2)}×` });
    }
  }
  return {
    title: 'Per call over stdio (issues 49, 64): NativeRun against a bare SDK v2 Client',
    targets,
    markdown: [
      `Medians of ${ROUNDS} rounds, with their range. Each side runs in a process of its own (\`bench/per-call-side.mjs\`, plain node), on a fresh server of its own, as a host runs one of them: in one process each side's garbage, GC pauses and JIT state would land on the other's measure. A round spawns the two sides one after the other (which first alternating round by round); each warms up with ${WARMUP} calls and ${Math.ceil(WARMUP / 10)} groups of 10, then times ${SEQUENTIAL} sequential calls (one call a batch against one \`callTool\`) and ${BATCHES} groups of 10 (one batch of 10 against \`Promise.all\` of 10 bare calls). µs per operation: wall, and the client's CPU (\`process.cpuUsage\` of that side's process, all its threads; not its server's). Ratios: medians of per-round ratios, NativeRun over bare. The built package (\`dist/\`) is measured.`,
      '',
      '| server | operation | bare wall µs | NativeRun wall µs | wall ratio | bare CPU µs | NativeRun CPU µs | CPU ratio |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  };
}
