/**
 * Soak: nothing a call or a run creates
 * outlives it — heap after many closed runs, listeners after 1,000 calls.
 * Long: `npm run test:soak` (CI runs it on Node 20), not `npm test`.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/index.js';
import { NO_SIGNAL } from '../../src/mcp/requests/server-answers.js';
import { batch, py, runFixture } from '../support/runs.js';
import { pythonConfig, readEvents, runTs, tempDir } from '../support/index.js';

const fx = runFixture(['big', 'hostile']);

describe('nothing a call creates outlives it', () => {
  it('B1: heap after 10 closed runs of 1 MB results stays within 1.2x the heap after one; the host signal keeps no listener', async () => {
    const out = JSON.parse(await runTs('test/hardening/fixtures/heap-runs.ts', ['10', '20', '1000000'], ['--expose-gc']));
    expect(out.listeners).toBe(0);
    expect(out.afterAll / out.afterOne).toBeLessThanOrEqual(1.2);
  });

  it('B1: 100 closed pooled runs with approvals (half decided, half closed pending) keep the heap within 1.2x of one; no lease or listener is left', async () => {
    const out = JSON.parse(await runTs('test/hardening/fixtures/heap-pooled-runs.ts', ['100', '100000'], ['--expose-gc']));
    expect(out).toMatchObject({ leases: 0, connections: 1, listeners: 0 });
    expect(out.afterAll / out.afterOne).toBeLessThanOrEqual(1.2);
  });

  it('B1/E1: 50 closed runs on a 2026-07-28 server (listen stream open) keep the heap within 1.2x of one; no listener, socket or timer is left', async () => {
    const out = JSON.parse(await runTs('test/hardening/fixtures/heap-modern-runs.ts', ['50', '20'], ['--expose-gc']));
    expect(out.listeners).toBe(0);
    expect(out.activeAfter).toBeLessThanOrEqual(out.activeBefore);
    expect(out.afterAll / out.afterOne).toBeLessThanOrEqual(1.2);
  });

  it('B1/E4: 100 closed runs with questions waiting (half answered, half closed waiting) keep the heap within 1.1x of one; no listener or socket is left', async () => {
    const out = JSON.parse(await runTs('test/hardening/fixtures/heap-modern-runs.ts', ['100', '4', 'questions'], ['--expose-gc']));
    expect(out.listeners).toBe(0);
    expect(out.activeAfter).toBeLessThanOrEqual(out.activeBefore);
    expect(out.afterAll / out.afterOne).toBeLessThanOrEqual(1.1);
  });

  it('B1: a host signal is back to its listener count after 1,000 calls, and aborting it later cancels no finished request', async () => {
    const tmp = tempDir('agt-signal-');
    const events = `${tmp.dir}/events.log`;
    await using connection = await connectMcp(pythonConfig({ extra: ['--feature', 'slow', '--events', events] }));
    const host = new AbortController();
    for (let i = 0; i < 1000; i++) await connection.callTool('echo', { message: 'x' }, { signal: host.signal });
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
    host.abort();
    // The server reads in order: once this later call is answered, a cancellation sent on abort would be in the log.
    await connection.callTool('sleep', { ms: 0 });
    expect(readEvents(events).filter((e) => e.event === 'cancelled')).toEqual([]);
    tmp.cleanup();
  });
});

describe('a run leaves no abort listener behind', () => {
  it('B1: 1,000 calls of a run (a host signal, and a signal per batch) leave both at their listener count; aborting later cancels no finished request', async () => {
    const host = new AbortController();
    const run = await fx.start({ signal: host.signal });
    const batchSignal = new AbortController().signal;
    for (let i = 0; i < 100; i++) {
      const calls = Array.from({ length: 10 }, (_, j) => ({ callId: `c${i}-${j}`, name: py('echo'), arguments: { message: 'x' } }));
      const { results } = await run.executeBatch(batch(run, calls), { signal: batchSignal });
      expect(results.every((r) => r.status === 'ok')).toBe(true);
    }
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(batchSignal, 'abort')).toHaveLength(0);
    host.abort();
    await run.close(); // the server reads in order: a cancellation sent on abort would be logged before it ends
    expect(fx.env.serverEvents().filter((e) => e.event === 'cancelled')).toEqual([]);
  });

  it('B1: a 1,000-call sequential run holds constant memory: heap after 1,000 calls within 1.1x the heap after 100; no listener left', async () => {
    const out = JSON.parse(await runTs('test/hardening/fixtures/heap-calls.ts', ['1000'], ['--expose-gc']));
    expect(out.listeners).toBe(0);
    expect(out.afterAll / out.after100).toBeLessThanOrEqual(1.1);
  });

  it('B1: a run without a signal makes 1,000 sequential calls without a MaxListenersExceededWarning; the shared signal of uncancellable requests keeps no listener', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const run = await fx.start();
      for (let i = 0; i < 1000; i++) {
        const { results } = await run.executeBatch(batch(run, [{ callId: `c${i}`, name: py('echo'), arguments: { message: 'x' } }]));
        expect(results[0]?.status).toBe('ok');
      }
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w === 'MaxListenersExceededWarning')).toEqual([]);
    expect(getEventListeners(NO_SIGNAL, 'abort')).toEqual([]); // never handed to the SDK: nothing hooks to it
  });
});
