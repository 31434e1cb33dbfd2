/**
 * The sandbox's cost (P5, issue 62): the Python fixture started and called sandboxed against the same
 * server unsandboxed, alternated in one run (medians). Cold start: a first server, which also starts the
 * sandbox host (the runtime's proxy and bridges), and a server started while another holds the host. Per
 * call: the sandbox must not sit on the call path — target ≤ 1.05× per call. Needs Node >= 22.12 and
 * bubblewrap, socat and ripgrep: elsewhere it prints why it skipped.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMcp, type McpConnection } from '../src/index.js';
import { sandboxMissing } from '../src/config/sandbox.js';
import { type StdioServerConfig } from '../src/config.js';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = 7;
const CALLS = 200;
const timeouts = { handshakeMs: 30_000 };

async function startMs(config: StdioServerConfig): Promise<number> {
  const started = performance.now();
  const connection = await connectMcp(config, { timeouts });
  const ms = performance.now() - started;
  await connection.close();
  return ms;
}

// Median µs per call of CALLS sequential echo calls on each connection, alternated call by call (a load spike hits both).
async function perCallUs(plain: McpConnection, boxed: McpConnection): Promise<{ plain: number; boxed: number }> {
  const times = { plain: [] as number[], boxed: [] as number[] };
  for (let i = 0; i < CALLS; i++) {
    for (const [name, connection] of [
      ['plain', plain],
      ['boxed', boxed],
    ] as const) {
      const t = performance.now();
      await connection.callTool('echo', { message: `m${i}` });
      times[name].push((performance.now() - t) * 1000);
    }
  }
  return { plain: median(times.plain), boxed: median(times.boxed) };
}

/** Runs the sandbox benchmark (or says why it cannot here). */
export async function runSandboxBench(): Promise<BenchReport> {
  const title = 'Sandboxed stdio servers (P5): cold start and per call, sandboxed vs not';
  const missing = sandboxMissing();
  if (missing.length > 0) {
    const why = missing.map((m) => m.split(';')[0]).join(', ');
    console.log(`sandbox bench skipped (${why}); run it on Node >= 22.12: bash .ci/runtime.sh 24 npm run bench -- sandbox`);
    return { title, markdown: `Skipped on Node ${process.versions.node}: ${why}.`, targets: [] };
  }
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-sandbox-'));
  try {
    const plain: StdioServerConfig = { command: 'python3', args: [path.join(root, 'test/fixtures/mcp_server.py')], cwd };
    const boxed: StdioServerConfig = { ...plain, sandbox: true };
    await startMs(plain); // warm the file cache for both
    await startMs(boxed);
    const cold = { plain: [] as number[], boxed: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      cold.plain.push(await startMs(plain));
      cold.boxed.push(await startMs(boxed)); // the host starts with it and ends after it
    }
    // Started while another sandboxed server holds the host: the sandbox's own cost per server.
    const holder = await connectMcp(boxed, { timeouts });
    const warm: number[] = [];
    for (let r = 0; r < ROUNDS; r++) warm.push(await startMs(boxed));
    const a = await connectMcp(plain, { timeouts });
    const calls = { plain: [] as number[], boxed: [] as number[] };
    try {
      await perCallUs(a, holder); // warm-up of both connections
      for (let r = 0; r < 5; r++) {
        const round = await perCallUs(a, holder);
        calls.plain.push(round.plain);
        calls.boxed.push(round.boxed);
      }
    } finally {
      await Promise.all([a.close(), holder.close()]);
    }
    const [p, b, w] = [median(cold.plain), median(cold.boxed), median(warm)];
    const [cp, cb] = [median(calls.plain), median(calls.boxed)];
    const callRatio = cb / cp;
    const rows = [
      '| measure | unsandboxed | sandboxed | ratio | added |',
      '| --- | --- | --- | --- | --- |',
      `| cold start, first server (starts the sandbox host) | ${p.toFixed(1)} ms | ${b.toFixed(1)} ms | ${(b / p).toFixed(2)}× | +${(b - p).toFixed(1)} ms |`,
      `| cold start, host already running | ${p.toFixed(1)} ms | ${w.toFixed(1)} ms | ${(w / p).toFixed(2)}× | +${(w - p).toFixed(1)} ms |`,
      `| per call (median of ${CALLS} sequential calls alternated with the other, median of 5 rounds) | ${cp.toFixed(0)} µs | ${cb.toFixed(0)} µs | ${callRatio.toFixed(3)}× | ${(cb - cp).toFixed(0)} µs |`,
    ];
    return {
      title,
      markdown: rows.join('\n'),
      targets: [{ name: 'a sandboxed call ≤ 1.05× an unsandboxed one', ok: callRatio <= 1.05, detail: `${callRatio.toFixed(3)}×` }],
    };
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}
