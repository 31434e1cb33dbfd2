/**
 * B8, the bound of what a run keeps: 100 results cut at the budget (about
 * 200 KB each, 20 MB in all) from the Python fixture server, with
 * `resultBudget.keptBytes` 4 MiB. The run keeps the newest within the bound
 * (its suspended state, its heap), drops the oldest (result_read says so) and
 * leaves no process listener once closed.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { NativeRun, policies, type ToolResult } from '../../../src/index.js';
import { batch, py, runFixture } from '../../support/runs.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void; // the heap as it is, not as it was before the last collection
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const MB = 1024 * 1024;
const KEPT_BYTES = 4 * MB;
const RESULTS = 100;
const PER_BATCH = 10;
const LINES = { n: 2_000, width: 100 }; // 200,000 characters: over the default 25,000 tokens (100,000 characters)
const listeners = () => process.eventNames().reduce((n, e) => n + process.listenerCount(e), 0);

// Calls `lines` for ids first..first+count-1 in batches of PER_BATCH; every result ok and cut.
async function cutResults(run: NativeRun, prefix: string, count: number): Promise<void> {
  for (let b = 0; b < count; b += PER_BATCH) {
    const calls = Array.from({ length: Math.min(PER_BATCH, count - b) }, (_, i) => ({
      callId: `${prefix}${b + i + 1}`,
      name: py('lines'),
      arguments: LINES,
    }));
    const { results } = await run.executeBatch(batch(run, calls));
    for (const result of results) expect(result).toMatchObject({ status: 'ok', cut: { keptChars: 100_000, totalChars: 200_000 } });
  }
}

const read = async (run: NativeRun, callId: string): Promise<ToolResult> =>
  (await run.executeBatch(batch(run, [{ callId: `read-${callId}`, name: 'result_read', arguments: { callId, offset: 100_000 } }])))
    .results[0] as ToolResult;

describe('B8: the results a run keeps are bounded (resultBudget.keptBytes)', () => {
  const f = runFixture(['results']);

  it('B8: 100 cut results of 200 KB keep the newest within keptBytes: the oldest dropped and said so, the heap bounded, the state within the bound', async () => {
    const run = await f.start({ resultBudget: { keptBytes: KEPT_BYTES } });
    await cutResults(run, 'warm', PER_BATCH); // the code paths compiled, the pools and buffers grown, before the baseline
    const before = heap();
    await cutResults(run, 'c', RESULTS);
    const grown = heap() - before;
    // 20 MB of results went through; measured: about 2 MB grown with the bound (the warm-up already kept 2 MB), about
    // 19.5 MB with keptBytes 64 MiB (every result kept). Three times keptBytes leaves room for the run's own churn.
    expect(grown).toBeLessThan(3 * KEPT_BYTES);

    const oldest = await read(run, 'c1');
    expect(oldest).toMatchObject({ status: 'tool_error', error: { code: 'not_found' } });
    expect(oldest.status === 'tool_error' && oldest.error.message).toMatch(/no longer kept/);
    const newest = await read(run, `c${RESULTS}`);
    expect(newest.status).toBe('ok');
    const page = newest.status === 'ok' ? (newest.content[0] as { text: string }).text : '';
    expect(page.slice(0, 11)).toBe('line 001000'); // the 1,001st line starts at character 100,000 (100 a line)

    const state = await run.suspend();
    const kept = state.results?.kept ?? [];
    const bytes = kept.reduce((n, entry) => n + Buffer.byteLength(JSON.stringify(entry.content)), 0);
    expect(bytes).toBeLessThanOrEqual(KEPT_BYTES);
    expect(kept.length).toBeGreaterThan(10); // 4 MiB holds 20 results of 200 KB: the bound keeps, not just drops
    expect(kept.at(-1)?.callId).toBe(`c${RESULTS}`);
    expect(kept.map((entry) => entry.callId)).not.toContain('c1');
    expect(state.results?.dropped).toContain('c1');
  }, 120_000);

  it('B8: a run that cut and kept results leaves no process listener once closed', async () => {
    const warm = await f.start({ resultBudget: { keptBytes: KEPT_BYTES } });
    await cutResults(warm, 'w', 2);
    await warm.close();
    const before = listeners();
    const env = f.env;
    const run = await NativeRun.start({
      agent: 'team/alice',
      service: env.service,
      policy: policies.autoAllow('*'),
      resultBudget: { keptBytes: KEPT_BYTES },
    });
    f.adopt(env, run);
    await cutResults(run, 'c', 30);
    expect((await read(run, 'c30')).status).toBe('ok');
    await run.close();
    expect(listeners()).toBe(before);
  }, 120_000);
});
