/**
 * A run whose server's task answers lie (E6), both eras: a scripted
 * server process over stdio (test/mcp/fixtures/hostile-tasks.ts) mounted beside
 * the Python fixture server. A hostile answer fails only its own call — the
 * batch's other results stay — and a deferred task is bounded as an inline
 * one is: its TTL before a date is made of it, an unreadable `tasks/get` when
 * collected, a stored poll interval when read back.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, NativeRun, type NativeRunOptions, policies, ResourceService, toolAlias } from '../../../src/index.js';
import { MAX_INPUT_ROUNDS, MAX_SERVER_TASK_TTL_MS, MIN_TASK_POLL_MS } from '../../../src/bounds.js';
import { fileLines, py, pythonConfig, REPO_ROOT, tempDir, waitingOf } from '../../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/mcp/fixtures/hostile-tasks.ts');
const tmp = tempDir('agt-hostile-run-');
afterAll(() => tmp.cleanup());
const runs: NativeRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((r) => r.close()));
});

const hostile = (tool: string) => toolAlias('tools/hostile', tool);
const DAY = 24 * 60 * 60_000;

for (const protocol of ['legacy', '2026-07-28'] as const) {
  describe(`E6: a run whose server's task answers lie (${protocol})`, () => {
    const log = path.join(tmp.dir, `${protocol}.log`);
    const gets = () => fileLines(log).filter((l) => l === 'tasks/get').length;
    let registry: ResourceService;
    beforeAll(async () => {
      registry = new ResourceService({ store: new MemoryStore() });
      const server = { command: process.execPath, args: ['--import', 'tsx', SERVER, '--log', log], cwd: REPO_ROOT, protocol };
      await registry.write({ kind: 'mcp', reference: 'tools/hostile', create: true, data: { mcpServers: { hostile: server } } });
      await registry.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig() } } });
      await registry.write({ kind: 'agent', reference: 'team/h', create: true, data: { mcps: ['tools/hostile', 'tools/py'] } });
    });
    const options = (extra: Partial<NativeRunOptions> = {}) => ({ service: registry, policy: policies.autoAllow('*'), ...extra });
    const start = async (extra: Partial<NativeRunOptions> = {}) => {
      const run = await NativeRun.start({ agent: 'team/h', ...options(extra) });
      runs.push(run);
      return run;
    };
    const batch = (run: NativeRun, batchId: string, calls: { callId: string; name: string; arguments: Record<string, unknown> }[]) =>
      run.executeBatch({ runId: run.id, agent: run.agent, batchId, calls });
    const echo = { callId: 'echo', name: py('echo'), arguments: { message: 'kept' } };

    it('E6: a deferred task whose TTL is past the last Date, or huge, waits at most MAX_SERVER_TASK_TTL_MS; the batch keeps its other results', async () => {
      const run = await start({ tasks: 'defer' });
      const before = Date.now();
      const ended = await batch(run, 'b1', [
        echo,
        { callId: 'past', name: hostile('ttl'), arguments: { ttl: '8700000000000000' } },
        { callId: 'far', name: hostile('ttl'), arguments: { ttl: '1000000000000000' } },
        { callId: 'beyond', name: hostile('ttl'), arguments: { ttl: '1e20' } },
      ]);
      expect(ended.results.find((r) => r.callId === 'echo')).toMatchObject({ status: 'ok' });
      const waiting = ended.pending ?? [];
      // 1e20 is no integer: ext-tasks refuses a 2025 task carrying it (that call fails alone); a 2026-07-28 one is cut.
      if (protocol === 'legacy')
        expect(ended.results.find((r) => r.callId === 'beyond')).toMatchObject({
          status: 'tool_failed',
          error: { code: 'protocol_error' },
        });
      expect(waiting.map((p) => p.callId).sort()).toEqual(protocol === 'legacy' ? ['far', 'past'] : ['beyond', 'far', 'past']);
      for (const p of waiting) {
        expect(waitingOf(p, 'task').task.ttlMs).toBe(MAX_SERVER_TASK_TTL_MS);
        expect(Date.parse(p.expiresAt) - before).toBeLessThanOrEqual(Math.max(MAX_SERVER_TASK_TTL_MS, DAY) + 60_000);
      }
    });

    // 2026-07-28 only: on 2025 results carry no resultType (the SDK's decoder drops the field; the result is read as one).
    if (protocol === '2026-07-28')
      it('E6: under tasks "wait", a task whose result says resultType "task" fails its call protocol_error; the batch keeps its other results', async () => {
        const run = await start();
        const ended = await batch(run, 'b1', [echo, { callId: 'inner', name: hostile('task_result'), arguments: {} }]);
        expect(ended.results.find((r) => r.callId === 'echo')).toMatchObject({ status: 'ok' });
        expect(ended.results.find((r) => r.callId === 'inner')).toMatchObject({
          status: 'tool_failed',
          error: { code: 'protocol_error', details: { reason: 'invalid_result' } },
        });
      });

    it('E6: a deferred task whose tasks/get answer nests too deep is collected at once and fails as it does inline', async () => {
      const inline = await start();
      const failedInline = (await batch(inline, 'b1', [{ callId: 'deep', name: hostile('deep_get'), arguments: {} }])).results[0];
      expect(failedInline).toMatchObject({
        status: 'tool_failed',
        error: { code: 'protocol_error', details: { reason: 'result_too_deep' } },
      });
      const run = await start({ tasks: 'defer' });
      const started = await batch(run, 'b1', [{ callId: 'deep', name: hostile('deep_get'), arguments: {} }]);
      expect(started.pending?.map((p) => [p.callId, p.waitingFor])).toEqual([['deep', 'task']]);
      const collected = await run.collect('b1', { waitMs: 20_000 });
      expect(collected.results).toEqual([
        expect.objectContaining({
          callId: 'deep',
          status: 'tool_failed',
          error: expect.objectContaining({ code: 'protocol_error', details: expect.objectContaining({ reason: 'result_too_deep' }) }),
        }),
      ]);
      expect(run.pending('b1')).toEqual([]);
    }, 60_000);

    // 2026-07-28 only: there a task's status answer carries its questions and its result.
    if (protocol === '2026-07-28')
      it('E6: a deferred task whose tasks/get answer is too large, or asks more questions than a round may, is collected at once and fails as inline', async () => {
        const questions = Object.fromEntries(
          Array.from({ length: 1000 }, (_, i) => [
            `q${i}`,
            { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object' } } },
          ]),
        );
        const calls = [
          echo,
          { callId: 'large', name: hostile('script'), arguments: { gets: ['{"status":"completed"}'], bigText: 5 * 1024 * 1024 } },
          {
            callId: 'many',
            name: hostile('script'),
            arguments: { gets: [JSON.stringify({ status: 'input_required', inputRequests: questions })] },
          },
        ];
        const failed = (reason: string) => ({
          status: 'tool_failed',
          error: expect.objectContaining({ code: 'protocol_error', details: expect.objectContaining({ reason }) }),
        });
        const inline = await batch(await start({ elicitation: async () => ({ action: 'accept', content: {} }) }), 'b1', calls);
        expect(inline.results.find((r) => r.callId === 'echo')).toMatchObject({ status: 'ok' });
        expect(inline.results.find((r) => r.callId === 'large')).toMatchObject(failed('oversized_message'));
        expect(inline.results.find((r) => r.callId === 'many')).toMatchObject(failed('invalid_input_request'));
        const run = await start({ tasks: 'defer', elicitation: async () => ({ action: 'accept', content: {} }) });
        const started = await batch(run, 'b1', calls);
        expect(started.pending?.map((p) => p.callId).sort()).toEqual(['large', 'many']);
        const results: unknown[] = [];
        // Each is collected within one wait (before: both waited as working until their TTL).
        for (let round = 0; round < 2 && results.length < 2; round++)
          results.push(...(await run.collect('b1', { waitMs: 20_000 })).results);
        expect(results).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ callId: 'large', ...failed('oversized_message') }),
            expect.objectContaining({ callId: 'many', ...failed('invalid_input_request') }),
          ]),
        );
        expect(run.pending('b1')).toEqual([]);
      }, 90_000);

    it('E6: a deferred task whose server exits mid-wait is never stuck: it waits, and a resumed run (a new server process) collects it', async () => {
      const run = await start({ tasks: 'defer' });
      // Its second tasks/get ends the server process (2025 reads the task once as it hands it back).
      const gets = protocol === 'legacy' ? ['{}', 'exit'] : ['exit'];
      const started = await batch(run, 'b1', [echo, { callId: 'gone', name: hostile('script'), arguments: { gets } }]);
      expect(started.results.find((r) => r.callId === 'echo')).toMatchObject({ status: 'ok' });
      expect(started.pending?.map((p) => p.callId)).toEqual(['gone']);
      const collected = await run.collect('b1', { waitMs: 1000 });
      expect(collected.results).toEqual([]); // the server is gone: the call waits (its TTL bounds it), the batch is not spent
      expect(run.pending('b1').map((p) => p.callId)).toEqual(['gone']);
      const resumed = await NativeRun.resume(await run.suspend(), options({ tasks: 'defer' }));
      runs.push(resumed);
      // The fixture's new process knows the task by its id, and says it completed.
      const ended = await resumed.collect('b1', { waitMs: 20_000 });
      expect(ended.results).toEqual([expect.objectContaining({ callId: 'gone', status: 'ok' })]);
      expect(resumed.pending('b1')).toEqual([]);
    }, 60_000);

    it('E6: run.cancel of a task whose server never answers tasks/cancel ends the call at once (TASK_CANCEL_TIMEOUT_MS), and says the cancel was not confirmed', async () => {
      const run = await start({ tasks: 'defer', timeouts: { callMs: 30_000 } });
      const started = await batch(run, 'b1', [
        echo,
        { callId: 'deaf', name: hostile('script'), arguments: { gets: ['{}'], cancel: 'silent' } },
      ]);
      expect(started.pending?.map((p) => p.callId)).toEqual(['deaf']);
      const before = performance.now();
      const cancelled = await run.cancel('b1', 'deaf');
      // Before: the host waited the whole call timeout (30 s here, 60 s by default) for an answer that changes nothing.
      expect(performance.now() - before).toBeLessThan(20_000);
      expect(cancelled.results).toEqual([
        expect.objectContaining({ callId: 'deaf', status: 'tool_failed', error: expect.objectContaining({ code: 'cancelled' }) }),
      ]);
      expect((cancelled.results[0] as { error: { message: string } }).error.message).toMatch(/did not confirm/);
    }, 90_000);

    // 2026-07-28 only: there a task's questions are in its status, and the run may answer them itself.
    if (protocol === '2026-07-28')
      it('E7: a task that asks anew at every look is answered at most MAX_INPUT_ROUNDS rounds, at its pace, then ends input_rounds_exceeded — waited for or deferred', async () => {
        let answered = 0;
        const elicitation = async () => (answered++, { action: 'accept' as const, content: {} });
        const question = { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: {} } } };
        // Each tasks/get asks one question under a new key (q0, q1, …): every look is a new round.
        const asking = { gets: [JSON.stringify({ status: 'input_required', inputRequests: { 'q@@n@@': question } })] };
        const call = { callId: 'asks', name: hostile('script'), arguments: asking };
        const exceeded = expect.objectContaining({
          callId: 'asks',
          status: 'tool_failed',
          error: expect.objectContaining({ code: 'input_rounds_exceeded' }),
        });
        const inline = await batch(await start({ elicitation }), 'b1', [echo, call]);
        expect(inline.results).toEqual(expect.arrayContaining([expect.objectContaining({ callId: 'echo', status: 'ok' }), exceeded]));
        expect(answered).toBeLessThanOrEqual(MAX_INPUT_ROUNDS);
        answered = 0;
        const run = await start({ tasks: 'defer', elicitation });
        expect((await batch(run, 'b1', [echo, call])).pending?.map((p) => p.callId)).toEqual(['asks']);
        const before = gets();
        const began = performance.now();
        const collected = await run.collect('b1', { waitMs: 10_000 });
        // At the task's pace (its pollInterval, clamped to MIN_TASK_POLL_MS): a round a look, never a busy loop.
        expect(performance.now() - began).toBeGreaterThanOrEqual((MAX_INPUT_ROUNDS - 1) * MIN_TASK_POLL_MS);
        // Before: no end within the wait, and the handler answered some thousand rounds (a tasks/get each, unpaced).
        expect(collected.results).toEqual([exceeded]);
        expect(answered).toBeLessThanOrEqual(MAX_INPUT_ROUNDS);
        expect(gets() - before).toBeLessThanOrEqual(MAX_INPUT_ROUNDS + 2);
        expect(run.pending('b1')).toEqual([]);
      }, 60_000);

    it("E6: a task its server cancelled, or that outlived maxTotalMs, is told in the task's words — never 'cancelled by the host' nor 'the server did not answer'", async () => {
      const cancelled = { callId: 'sc', name: hostile('script'), arguments: { gets: ['{"status":"cancelled"}'] } };
      const endless = { callId: 'long', name: hostile('script'), arguments: { gets: ['{}'] } };
      const run = await start({ timeouts: { maxTotalMs: 1500 } });
      const ended = await batch(run, 'b1', [echo, cancelled, endless]);
      const byId = (id: string) => ended.results.find((r) => r.callId === id) as { error: { code: string; message: string } };
      expect(byId('echo')).toMatchObject({ status: 'ok' });
      expect(byId('sc').error.code).toBe('cancelled');
      expect(byId('sc').error.message).toMatch(/the server cancelled the task of this call/);
      expect(byId('long').error.code).toBe('call_timeout');
      expect(byId('long').error.message).toMatch(/the task of this call did not end within 1500 ms/); // before: "did not answer within 60000 ms"
      const deferring = await start({ tasks: 'defer' });
      await batch(deferring, 'b1', [cancelled]);
      const collected = (await deferring.collect('b1', { waitMs: 20_000 })).results[0] as { error: { message: string } };
      expect(collected.error.message).toMatch(/the server cancelled the task of this call/); // before: "cancelled by the host"
    }, 60_000);

    it('E6: a stored pollIntervalMs edited to 0 is clamped as the resumed run reads it back: no busy loop of tasks/get', async () => {
      const run = await start({ tasks: 'defer' });
      const started = await batch(run, 'b1', [{ callId: 'busy', name: hostile('erring_get'), arguments: {} }]);
      expect(started.pending?.map((p) => p.callId)).toEqual(['busy']);
      const state = await run.suspend();
      for (const p of state.pending ?? []) if (p.waitingFor === 'task') p.task = { ...p.task, pollIntervalMs: 0 };
      const resumed = await NativeRun.resume(state, options({ tasks: 'defer' }));
      runs.push(resumed);
      const before = gets();
      const waitMs = 1_000;
      // Every tasks/get is refused (-32603): the stored interval is all the collector has to pace itself by.
      expect((await resumed.collect('b1', { waitMs })).results).toEqual([]);
      expect(gets() - before).toBeLessThanOrEqual(waitMs / MIN_TASK_POLL_MS + 3); // MIN_TASK_POLL_MS apart; before the fix, hundreds
      expect(waitingOf(resumed.pending('b1')[0], 'task').task.pollIntervalMs).toBe(MIN_TASK_POLL_MS);
    }, 60_000);
  });
}
