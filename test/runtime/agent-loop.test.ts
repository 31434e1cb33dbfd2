import { afterEach, describe, expect, it } from 'vitest';
import { NativeRun, policies, runAgentLoop } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { py, setup } from '../support/index.js';

let env: Awaited<ReturnType<typeof setup>>;
let run: NativeRun;
afterEach(async () => {
  await run?.close();
  env?.tmp.cleanup();
});

describe('runAgentLoop with a scripted model', () => {
  it('B4: after invalid_arguments the model corrects itself within its step budget; no retry loop of ours', async () => {
    env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('tools/py') });
    const model = new ScriptedModel([
      { toolCalls: [{ callId: 'c1', name: py('add'), arguments: '{"a": "1", "b": 2}' }] },
      ({ history }) => {
        const last = history[history.length - 1];
        const failed = last?.role === 'tool' && last.results[0]?.status === 'invalid_arguments';
        return failed ? { toolCalls: [{ callId: 'c2', name: py('add'), arguments: { a: 1, b: 2 } }] } : { text: 'unexpected' };
      },
      { text: 'the sum is 3' },
    ]);
    const outcome = await runAgentLoop({ run, model, maxSteps: 5 });
    expect(outcome).toMatchObject({ status: 'completed', steps: 3, text: 'the sum is 3' });
    expect(env.calls()).toEqual([{ tool: 'add', arguments: { a: 1, b: 2 } }]);
  });

  it('B4: the step budget bounds corrections', async () => {
    env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*') });
    const wrong = { toolCalls: [{ callId: 'w', name: py('add'), arguments: { a: 'x' } }] };
    const model = new ScriptedModel([wrong, wrong, wrong, wrong]);
    const outcome = await runAgentLoop({ run, model, maxSteps: 3 });
    expect(outcome).toMatchObject({ status: 'max_steps', steps: 3 });
    expect(model.inputs).toHaveLength(3);
    expect(env.calls()).toEqual([]);
  });

  it('B6: a rejected batch goes back to the model as a message and costs a step', async () => {
    env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*') });
    const model = new ScriptedModel([{ toolCalls: [{ callId: 'u', name: 'made_up_tool', arguments: {} }] }, { text: 'ok' }]);
    const outcome = await runAgentLoop({ run, model, maxSteps: 3 });
    expect(outcome.steps).toBe(2);
    expect(outcome.history.some((m) => m.role === 'system' && /unknown|not a tool/.test(m.text))).toBe(true);
  });
});
