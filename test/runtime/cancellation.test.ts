/**
 * Per-call timeout, cancellation and progress in runs: every in-flight
 * tools/call is cancelled on the server (notifications/cancelled), the call
 * ends as tool_failed call_timeout or cancelled, the batch returns, and
 * nothing is left in flight (B3, B5, G4).
 */
import { describe, expect, it } from 'vitest';
import { type AuditEvent, type PermissionRequest, policies, type ProgressEvent, runAgentLoop } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { batch, py, runFixture, waitFor } from '../support/index.js';

const fx = runFixture(['slow', 'progress']);
const start = (options: Parameters<typeof fx.start>[0] = {}) => fx.start(options);

const cancelledOnServer = () => fx.env.serverEvents().filter((e) => e.event === 'cancelled').length;
const statusOf = (r: { status: string; error?: { code: string } }) => (r.status === 'ok' ? 'ok' : `${r.status}:${r.error?.code}`);

describe('call timeout', () => {
  it('B5: a server that never answers is ended by timeouts.callMs; the other calls of the batch still succeed', async () => {
    const audit: AuditEvent[] = [];
    const r = await start({ timeouts: { callMs: 400 }, audit: { record: (e) => void audit.push(e) } });
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'n', name: py('never'), arguments: {} },
        { callId: 'e', name: py('echo'), arguments: { message: 'hi' } },
      ]),
    );
    expect(results.map(statusOf)).toEqual(['tool_failed:call_timeout', 'ok']);
    expect((results[0] as { error: { message: string } }).error.message).toMatch(/did not answer within 400 ms/);
    await waitFor(() => cancelledOnServer() === 1);
    expect(audit.find((e) => e.type === 'tool_call' && e.callId === 'n')).toMatchObject({ status: 'tool_failed', code: 'call_timeout' });
  });

  it('B5: 8 slow calls with a timeout (timeouts.callMs): every one is cancelled on the server, none is left in flight', async () => {
    const r = await start({ timeouts: { callMs: 300 }, concurrency: 8 });
    const calls = Array.from({ length: 8 }, (_, i) => ({ callId: `s${i}`, name: py('never'), arguments: {} }));
    const { results } = await r.executeBatch(batch(r, calls));
    expect(results.map(statusOf)).toEqual(Array(8).fill('tool_failed:call_timeout'));
    await waitFor(() => cancelledOnServer() === 8);
    expect(r.notices).toEqual([]);
  });

  it('B5: the call timeout is timeouts.callMs; a bad value is invalid_input and the 0.1 callTimeoutMs is option_removed, before anything starts', async () => {
    const r = await start({ timeouts: { callMs: 300 } });
    const { results } = await r.executeBatch(batch(r, [{ callId: 'n', name: py('never'), arguments: {} }]));
    expect((results[0] as { error: { message: string } }).error.message).toMatch(/did not answer within 300 ms/);
    await r.close();
    await expect(start({ timeouts: { callMs: 0 } })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { field: 'timeouts.callMs' },
    });
    await expect(start({ callTimeoutMs: 60_000 } as never)).rejects.toMatchObject({
      code: 'option_removed',
      message: expect.stringMatching(/give the call timeout as timeouts\.callMs/),
    });
  });
});

describe('cancellation', () => {
  it("a run's AbortSignal cancels every in-flight call; calls not yet started never reach the server", async () => {
    const controller = new AbortController();
    const r = await start({ signal: controller.signal, concurrency: 2 });
    const pending = r.executeBatch(
      batch(r, [
        { callId: 'a', name: py('never'), arguments: {} },
        { callId: 'b', name: py('sleep'), arguments: { ms: 60_000 } },
        { callId: 'c', name: py('echo'), arguments: { message: 'queued behind the slow ones' } },
      ]),
    );
    await waitFor(() => fx.env.calls().length === 2); // both slow calls reached the server
    controller.abort();
    const { results } = await pending;
    expect(results.map(statusOf)).toEqual(['tool_failed:cancelled', 'tool_failed:cancelled', 'tool_failed:cancelled']);
    await waitFor(() => cancelledOnServer() === 2);
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['never', 'sleep']); // the queued echo never ran
    // The run stays cancelled: a later batch runs nothing.
    const later = await r.executeBatch(batch(r, [{ callId: 'd', name: py('echo'), arguments: { message: 'x' } }]));
    expect(later.results.map(statusOf)).toEqual(['tool_failed:cancelled']);
    expect(fx.env.calls()).toHaveLength(2);
  });

  it('a batch signal cancels that batch only; a human review that never answers does not hang it (G4)', async () => {
    let asked = 0;
    const r = await start({
      policy: policies.chain(
        policies.autoAllow(py('echo')),
        policies.human(() => {
          asked += 1;
          return new Promise<boolean>(() => undefined);
        }),
      ),
    });
    const controller = new AbortController();
    const pending = r.executeBatch(batch(r, [{ callId: 'w', name: py('withdraw'), arguments: { amount: 1 } }]), {
      signal: controller.signal,
    });
    await waitFor(() => asked === 1);
    controller.abort();
    expect((await pending).results.map(statusOf)).toEqual(['tool_failed:cancelled']);
    expect(fx.env.calls()).toEqual([]); // never executed
    const next = await r.executeBatch(batch(r, [{ callId: 'e', name: py('echo'), arguments: { message: 'next batch' } }]));
    expect(next.results.map(statusOf)).toEqual(['ok']);
  });

  it('G4: policies are told the signal, so a review UI can stop asking', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const r = await start({
      policy: {
        review: (_request: PermissionRequest, context) => {
          seen = context?.signal;
          return new Promise(() => undefined);
        },
      },
    });
    const pending = r.executeBatch(batch(r, [{ callId: 'e', name: py('echo'), arguments: { message: 'x' } }]), {
      signal: controller.signal,
    });
    await waitFor(() => seen !== undefined);
    expect(seen?.aborted).toBe(false);
    controller.abort();
    await pending;
    expect(seen?.aborted).toBe(true);
  });
});

describe('progress', () => {
  it("progress notifications reach the run's onProgress with the call id and alias", async () => {
    const seen: ProgressEvent[] = [];
    const r = await start({ onProgress: (e) => void seen.push(e) });
    const { results } = await r.executeBatch(batch(r, [{ callId: 'p', name: py('count'), arguments: { n: 3 } }]));
    expect(results.map(statusOf)).toEqual(['ok']);
    expect(seen).toEqual(
      [1, 2, 3].map((i) => ({ runId: r.id, callId: 'p', tool: py('count'), progress: i, total: 3, message: `step ${i}` })),
    );
  });
});

describe('cancellation of delegates and loops', () => {
  it('B7: a delegate handler gets the signal; cancelling ends the call at once as cancelled', async () => {
    const controller = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    const r = await start({
      signal: controller.signal,
      delegates: [
        {
          name: 'hand_off',
          targets: ['team/bob'],
          handler: (_input, meta) => {
            handlerSignal = meta.signal;
            return new Promise(() => undefined);
          },
        },
      ],
    });
    const pending = r.executeBatch(batch(r, [{ callId: 'd', name: 'hand_off', arguments: { agent: 'team/bob', task: 'long work' } }]));
    await waitFor(() => handlerSignal !== undefined);
    controller.abort();
    expect((await pending).results.map(statusOf)).toEqual(['tool_failed:cancelled']);
    expect(handlerSignal?.aborted).toBe(true);
  });

  it('runAgentLoop with a signal: the step in flight is cancelled and the loop ends as cancelled', async () => {
    const controller = new AbortController();
    const r = await start();
    const model = new ScriptedModel([{ toolCalls: [{ callId: 'n', name: py('never'), arguments: {} }] }, { text: 'never reached' }]);
    const loop = runAgentLoop({ run: r, model, maxSteps: 5, signal: controller.signal });
    await waitFor(() => fx.env.calls().length === 1);
    controller.abort();
    const outcome = await loop;
    expect(outcome.status).toBe('cancelled');
    expect(outcome.steps).toBe(1);
    const tool = outcome.history.find((m) => m.role === 'tool');
    expect(tool?.role === 'tool' && tool.results.map(statusOf)).toEqual(['tool_failed:cancelled']);
  });
});
