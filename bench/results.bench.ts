/**
 * The result budget (issue 63, B8), `npm run bench -- results`: what cutting a
 * 1 MB result at the default budget (25,000 tokens) and keeping it whole for
 * `result_read` adds to a call. Two runs of the same kind, each on its own
 * Python fixture server (`--feature results`, tool `lines` {n: 10000, width:
 * 100}, 1,000,000 characters), `limits.maxResultBytes` 2 MiB so the transport
 * bound does not cut it first: one with the default budget, one with
 * `resultBudget: false`. Each round times CALLS one-call batches on each
 * side, the sides alternating call by call and the first side alternating
 * round by round; a round's figure is its median. Then the cut alone, in
 * process (KeptResults.cut on a prebuilt result: no server, no transport),
 * and one `result_read` page of the kept result, in process and as a call.
 * Target: cut and keep ≤ 5 ms over the uncut path (the issue's).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, NativeRun, policies, ResourceService, type ToolResult } from '../src/index.js';
import { resolveResultBudget } from '../src/runtime/results/budget.js';
import { KeptResults } from '../src/runtime/results/kept-results.js';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.RESULTS_ROUNDS ?? 11);
const CALLS = 5;
const WARMUP = 5;
const LINES = { n: 10_000, width: 100 };
const ms = (n: number) => (Math.abs(n) < 0.1 ? `${(n * 1000).toFixed(1)} µs` : `${n.toFixed(2)} ms`);
const range = (values: number[]) => `${ms(Math.min(...values))} – ${ms(Math.max(...values))}`;

async function start(
  resultBudget: false | undefined,
): Promise<{ run: NativeRun; call(id: string, name: string, args: Record<string, unknown>): Promise<ToolResult> }> {
  const service = new ResourceService({ store: new MemoryStore() });
  const config = {
    command: 'python3',
    args: [path.join(root, 'test/fixtures/mcp_server.py'), '--feature', 'results'],
    cwd: path.join(root, 'test/fixtures'),
  };
  await service.write({ kind: 'mcp', reference: 'bench/py', create: true, data: { mcpServers: { py: config } } });
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: ['bench/py'] } });
  const run = await NativeRun.start({
    agent: 'bench/agent',
    service,
    policy: policies.autoAllow('*'),
    limits: { maxResultBytes: 2 * 1024 * 1024 },
    ...(resultBudget === false ? { resultBudget } : {}),
  });
  let batchNo = 0;
  const call = async (callId: string, name: string, args: Record<string, unknown>) => {
    batchNo += 1;
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: `b${batchNo}`,
      calls: [{ callId, name, arguments: args }],
    });
    const result = results[0];
    if (result?.status !== 'ok') throw new Error(`call ${name} did not answer ok: ${JSON.stringify(result).slice(0, 300)}`);
    return result;
  };
  return { run, call };
}

// Milliseconds per call of `fn`, median of `count` after a warm-up of a tenth.
function perCall(fn: (i: number) => unknown, count: number): number {
  for (let i = 0; i < Math.max(1, count / 10); i++) fn(i);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    fn(i);
    times.push(performance.now() - t);
  }
  return median(times);
}

/** `npm run bench -- results`. */
export async function runResultsBench(): Promise<BenchReport> {
  const cut = await start(undefined);
  const uncut = await start(false);
  try {
    const tool = cut.run.tools().find((t) => t.name.endsWith('__lines'))?.name;
    if (tool === undefined) throw new Error('no lines tool on the fixture');
    const first = await cut.call('w0', tool, LINES);
    const whole = await uncut.call('w0', tool, LINES);
    const chars = (whole.status === 'ok' && (whole.content[0] as { text: string }).text.length) || 0;
    if (first.status !== 'ok' || first.cut === undefined || whole.status !== 'ok' || whole.cut !== undefined)
      throw new Error('the budgeted run did not cut, or the unbudgeted one did');
    for (let i = 1; i < WARMUP; i++) await Promise.all([cut.call(`w${i}`, tool, LINES), uncut.call(`w${i}`, tool, LINES)]);
    const rounds = { cut: [] as number[], uncut: [] as number[], diff: [] as number[] };
    const cpu = { cut: [] as number[], uncut: [] as number[] }; // this process's CPU time per call (the servers run in others)
    const cpuNow = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    let id = 0;
    let lastCut = '';
    for (let r = 0; r < ROUNDS; r++) {
      const times = { cut: [] as number[], uncut: [] as number[] };
      for (let c = 0; c < CALLS; c++) {
        const order = (r + c) % 2 === 0 ? (['cut', 'uncut'] as const) : (['uncut', 'cut'] as const);
        for (const side of order) {
          id += 1;
          const c0 = cpuNow();
          const t = performance.now();
          await (side === 'cut' ? cut : uncut).call(`c${id}`, tool, LINES);
          times[side].push(performance.now() - t);
          cpu[side].push(cpuNow() - c0);
          if (side === 'cut') lastCut = `c${id}`;
        }
      }
      rounds.cut.push(median(times.cut));
      rounds.uncut.push(median(times.uncut));
      rounds.diff.push(median(times.cut) - median(times.uncut));
    }
    const [cutMs, uncutMs, diffMs] = [median(rounds.cut), median(rounds.uncut), median(rounds.diff)];

    // The cut alone: a prebuilt result of the same text, a fresh KeptResults (default budget) now and then so the
    // 16 MiB keep drops as it does in a run.
    const text = (whole.content[0] as { text: string }).text;
    const result: ToolResult = { status: 'ok', callId: 'x', content: [{ type: 'text', text }] };
    const budget = resolveResultBudget(undefined)!; // undefined resolves to the defaults, never to "no budget"
    let kept = new KeptResults(budget);
    const cutAlone = perCall((i) => {
      if (i % 100 === 0) kept = new KeptResults(budget);
      return kept.cut({ ...result, callId: `x${i}` }, tool);
    }, 500);
    const small: ToolResult = { status: 'ok', callId: 's', content: [{ type: 'text', text: text.slice(0, 50_000) }] };
    const underBudget = perCall(() => kept.cut(small, tool), 5_000);
    const reader = new KeptResults(budget);
    reader.cut({ ...result, callId: 'r' }, tool);
    const pageInProcess = perCall((i) => reader.read('r', 100_000 + (i % 8) * 100_000, undefined), 500);
    const fresh = new KeptResults(budget);
    fresh.load(reader.state()); // a resumed run: the first read builds the result's line
    const t = performance.now();
    fresh.read('r', 100_000, undefined);
    const firstReadAfterLoad = performance.now() - t;
    const reads: number[] = [];
    for (let i = 0; i < 21; i++) {
      const s = performance.now();
      await cut.call(`read${i}`, 'result_read', { callId: lastCut, offset: 100_000 + (i % 8) * 100_000 });
      reads.push(performance.now() - s);
    }
    const readCall = median(reads.slice(1));

    return {
      title: 'Result budget (issue 63)',
      markdown: [
        `One call of the Python fixture's \`lines\` {n: 10000, width: 100} (${chars.toLocaleString('en-US')} characters) in a batch of its own, on a NativeRun with the default budget (25,000 tokens: cut to 100,000 characters and kept whole) and on one with \`resultBudget: false\`, each on its own server, \`limits.maxResultBytes\` 2 MiB; ${ROUNDS} rounds of ${CALLS} calls a side, alternating call by call; a round's figure is its median:`,
        '',
        '| | median of rounds | range of rounds |',
        '| --- | --- | --- |',
        `| uncut (\`resultBudget: false\`) | ${ms(uncutMs)} | ${range(rounds.uncut)} |`,
        `| cut and kept (default budget) | ${ms(cutMs)} | ${range(rounds.cut)} |`,
        `| difference (per round) | ${ms(diffMs)} | ${range(rounds.diff)} |`,
        '',
        `Ratio ${(cutMs / uncutMs).toFixed(3)}×. This process's CPU time per call (median of all ${ROUNDS * CALLS} a side; the servers run in others): ${ms(median(cpu.uncut))} uncut, ${ms(median(cpu.cut))} cut and kept.`,
        '',
        'The cut alone and a page, in process (KeptResults, no server, median of many), and a page read as a call on the run:',
        '',
        '| | median |',
        '| --- | --- |',
        `| cut and keep a ${chars.toLocaleString('en-US')}-character result | ${ms(cutAlone)} |`,
        `| a 50,000-character result (under the budget, passed through) | ${ms(underBudget)} |`,
        `| one \`result_read\` page (100,000 characters) of the kept result | ${ms(pageInProcess)} |`,
        `| the first page after the run is resumed (builds the result's line) | ${ms(firstReadAfterLoad)} (one read) |`,
        `| one \`result_read\` page as a call (a batch of its own, on the run) | ${ms(readCall)} |`,
      ].join('\n'),
      targets: [
        {
          name: 'a 1 MB result cut and kept ≤ 5 ms over the uncut path',
          ok: diffMs <= 5,
          detail: `${ms(diffMs)} (cut alone ${ms(cutAlone)})`,
        },
      ],
    };
  } finally {
    await Promise.all([cut.run.close(), uncut.run.close()]);
  }
}
