import { afterEach, describe, expect, it, vi } from 'vitest';
import { executeModelCalls, isAgtError, NativeRun, policies, runAgentLoop } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing/index.js';
import { batch, py, setup } from '../../support/runs.js';
import { failure } from '../../support/paths.js';

// Stage 1 once: checkBatch returns every problem as data; executeBatch rejects on
// them, executeModelCalls maps them to per-call results; arguments are read once.
describe('stage 1 problems as data', () => {
  let env: Awaited<ReturnType<typeof setup>> | undefined;
  let run: NativeRun | undefined;
  afterEach(async () => {
    await run?.close();
    env?.tmp.cleanup();
    run = undefined;
    env = undefined;
  });

  async function start(options: Partial<Parameters<typeof NativeRun.start>[0]> = {}) {
    env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*'), ...options });
    return run;
  }

  const malformed = () => [
    { callId: 'ok', name: py('echo'), arguments: { message: 'hi' } },
    { callId: 'u', name: 'made_up', arguments: {} },
    { callId: 'd', name: py('echo'), arguments: { message: 'a' } },
    { callId: 'd', name: py('echo'), arguments: { message: 'b' } },
    { name: py('echo'), arguments: {} },
    { callId: 'n', name: 42, arguments: {} },
  ];

  it('B6: executeBatch rejects with every problem of the batch in details.problems, in call order; nothing runs', async () => {
    const r = await start();
    const error = await r.executeBatch(batch(r, malformed() as never)).catch((e: unknown) => e);
    expect(isAgtError(error) && error.code).toBe('batch_rejected');
    const details = (
      error as { details: { reason: string; callId: string; problems: { reason: string; index: number; callId?: string }[] } }
    ).details;
    expect(details).toMatchObject({ reason: 'unknown_tool', callId: 'u' });
    expect(details.problems.map((p) => [p.index, p.reason])).toEqual([
      [1, 'unknown_tool'],
      [2, 'duplicate_call_id'],
      [3, 'duplicate_call_id'],
      [4, 'missing_call_id'],
      [5, 'unknown_tool'],
    ]);
    expect(env!.calls()).toEqual([]);
  });

  it('B6: from a model, each offending call gets its own problem and the others batch_rejected; the audit records the rejection', async () => {
    const events: { type: string; reason?: unknown }[] = [];
    const r = await start({ audit: { record: (e) => void events.push(e) } });
    const out = await executeModelCalls(r, malformed(), { batchId: 'step-1' });
    expect(out.results.map((x) => [x.callId, x.status, x.status === 'ok' ? '' : (x.error.details?.reason ?? x.error.code)])).toEqual([
      ['ok', 'tool_failed', 'batch_rejected'],
      ['u', 'invalid_arguments', 'unknown_tool'],
      ['d', 'invalid_arguments', 'duplicate_call_id'],
      ['d', 'invalid_arguments', 'duplicate_call_id'],
      ['', 'invalid_arguments', 'missing_call_id'],
      ['n', 'invalid_arguments', 'unknown_tool'],
    ]);
    expect(out.rejected).toMatchObject({ reason: 'unknown_tool' });
    expect(out.results[1]).toMatchObject({
      error: {
        message: expect.stringMatching(/^"made_up" is not a tool of this run \(closest: .+\); call one of the tools you were given$/),
      },
    });
    expect(events).toEqual([expect.objectContaining({ type: 'batch_rejected', reason: 'unknown_tool' })]);
    expect(env!.calls()).toEqual([]);
  });

  it('B6: ScriptedModel scripts malformed model output (no id, a number for a name) and the loop answers every call', async () => {
    const r = await start();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: py('echo'), arguments: {} },
          { callId: 'x', name: 7 },
        ],
      },
      { text: 'done' },
    ]);
    const outcome = await runAgentLoop({ run: r, model, maxSteps: 2 });
    const tool = outcome.history.find((m) => m.role === 'tool');
    expect(tool?.role === 'tool' && tool.results.map((x) => x.status)).toEqual(['invalid_arguments', 'invalid_arguments']);
  });

  it("B4: a call's JSON arguments are parsed once (a delegate call: stage 1 reads its target, stage 2 validates the same value)", async () => {
    const handed: string[] = [];
    const r = await start({
      delegates: [
        {
          name: 'hand_off',
          targets: ['team/bob'],
          handler: async (input) => {
            handed.push(input.agent);
            return 'done';
          },
        },
      ],
    });
    const text = JSON.stringify({ agent: 'team/bob', task: 'parse me once' });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const result = await r.executeBatch(
        batch(r, [
          { callId: 'h', name: 'hand_off', arguments: text },
          { callId: 'e', name: py('echo'), arguments: '{"message":"once"}' },
        ]),
      );
      expect(result.results.map((x) => x.status)).toEqual(['ok', 'ok']);
      expect(parse.mock.calls.filter(([t]) => t === text)).toHaveLength(1);
      expect(parse.mock.calls.filter(([t]) => t === '{"message":"once"}')).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
    expect(handed).toEqual(['team/bob']);
  });

  it("B6: an unknown tool name is answered with at most 3 of the run's own tool names, closest first, in details and message", async () => {
    const r = await start();
    const typo = py('echo').replace('echo', 'ecko');
    const f = await failure(r.executeBatch(batch(r, [{ callId: 't', name: typo, arguments: { message: 'hi' } }])));
    expect(f.code).toBe('batch_rejected');
    const closest = (f.details as { closest: string[] }).closest;
    expect(closest[0]).toBe(py('echo'));
    expect(closest.length).toBeLessThanOrEqual(3);
    for (const name of closest) expect(r.snapshot.aliases).toContain(name);
    expect(f.details).toMatchObject({ reason: 'unknown_tool', tool: typo, problems: [{ closest }] });
    expect(f.message).toContain(`"${typo}" is not a tool of this run (closest: ${closest.join(', ')})`);
    const out = await executeModelCalls(r, [{ callId: 't', name: typo, arguments: {} }], { batchId: 'step-typo' });
    expect(out.results[0]).toMatchObject({ status: 'invalid_arguments', error: { details: { reason: 'unknown_tool', closest } } });
    expect(env!.calls()).toEqual([]);
  });

  it('B6: a batch of many unknown names is rejected with suggestions for the first three only; a hostile name is bounded and escaped', async () => {
    const r = await start();
    const hostile = `x\u001b[2J\u202e${'y'.repeat(10_000)}`;
    const calls = [hostile, ...Array.from({ length: 40 }, (_, i) => `nope_${i}`)].map((name, i) => ({
      callId: `c${i}`,
      name,
      arguments: {},
    }));
    const f = await failure(r.executeBatch(batch(r, calls)));
    const problems = (f.details as { problems: { closest?: string[]; message: string }[] }).problems;
    expect(problems).toHaveLength(41);
    expect(problems.map((p) => p.closest !== undefined)).toEqual(problems.map((_, i) => i < 3));
    expect(problems[0]!.message.length).toBeLessThan(400); // the name cut to MAX_NAME_LENGTH in the message
    expect(problems[0]!.message).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(env!.calls()).toEqual([]);
  });

  it('B6: results carry `callId` only; a call of the 0.1 shape (`id`) is batch_rejected saying the field is now `callId`', async () => {
    const r = await start();
    const { results } = await r.executeBatch(batch(r, [{ callId: 'new', name: py('echo'), arguments: { message: 'hi' } }]));
    expect(results[0]).toMatchObject({ callId: 'new', status: 'ok' });
    expect(results[0]).not.toHaveProperty('tool_call_id');
    const old = [{ id: 'old', name: py('echo'), arguments: { message: 'hi' } }] as never;
    const f = await failure(r.executeBatch(batch(r, old)));
    expect(f.code).toBe('batch_rejected');
    expect(f.details).toMatchObject({ reason: 'missing_call_id' });
    expect(f.message).toMatch(/has `id` but no `callId` \(the 0\.1 field `id` is now `callId`\)/);
  });
});
