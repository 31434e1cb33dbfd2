/**
 * agt-mcp/ai-sdk against the real AI SDK (generateText) with its own mock
 * language model (no network): the tool set's execute goes through the run's
 * batch pipeline — one batch per model step — and aiSdkModel drives runAgentLoop
 * (B3, B4, B5, G4).
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkModel, aiSdkTools } from 'agt-mcp/ai-sdk';
import { type AuditEvent, policies, runAgentLoop } from '../../src/index.js';
import { py, runFixture } from '../support/index.js';

const fx = runFixture();
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const toolCall = (toolCallId: string, toolName: string, input: unknown) => ({
  type: 'tool-call' as const,
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});

/** A mock model that answers with the given content per step, recording each prompt. */
function scripted(steps: unknown[][]) {
  const prompts: unknown[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options);
      const content = steps.shift() ?? [{ type: 'text', text: 'done' }];
      const calls = content.some((c) => (c as { type: string }).type === 'tool-call');
      return { content, finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] } as never;
    },
  });
  return { model, prompts };
}

describe('aiSdkTools', () => {
  it('B3/B4/B5: the calls of one step are one batch through the pipeline; invalid ones come back as results', async () => {
    const audit: AuditEvent[] = [];
    const run = await fx.start({
      audit: { record: (e) => void audit.push(e) },
      policy: policies.chain(policies.autoAllow([py('echo'), py('add')])),
    });
    const { model, prompts } = scripted([
      [
        toolCall('c1', py('echo'), { message: 'via ai sdk' }),
        toolCall('c2', py('add'), { a: 'x', b: 1 }),
        toolCall('c3', py('withdraw'), { amount: 1 }),
      ],
      [{ type: 'text', text: 'all done' }],
    ]);
    const result = await generateText({ model, prompt: 'go', tools: aiSdkTools(run, { batchId: 'step' }), stopWhen: stepCountIs(3) });
    expect(result.text).toBe('all done');
    expect(fx.env.calls()).toEqual([{ tool: 'echo', arguments: { message: 'via ai sdk' } }]);
    const calls = audit.filter((e) => e.type === 'tool_call');
    expect(new Set(calls.map((e) => e.batchId))).toEqual(new Set(['step:1'])); // one batch for the step
    expect(calls.map((e) => [e.callId, e.status])).toEqual(
      expect.arrayContaining([
        ['c1', 'ok'],
        ['c2', 'invalid_arguments'],
        ['c3', 'permission_denied'],
      ]),
    );
    const toolMessage = JSON.stringify((prompts[1] as { prompt: unknown[] }).prompt.at(-1));
    expect(toolMessage).toContain('via ai sdk');
    expect(toolMessage).toContain('invalid_arguments');
    expect(toolMessage).toContain('permission_denied');
  });

  it("the schemas the SDK sends to the model are the run's, object-rooted", async () => {
    const run = await fx.start();
    const { model, prompts } = scripted([[{ type: 'text', text: 'nothing to do' }]]);
    await generateText({ model, prompt: 'go', tools: aiSdkTools(run) });
    const tools = (prompts[0] as { tools: { name: string; inputSchema: Record<string, unknown> }[] }).tools;
    expect(tools.find((t) => t.name === py('echo'))?.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string', minLength: 1, maxLength: 200 } },
      required: ['message'],
    });
  });
});

describe('aiSdkModel', () => {
  it('B4: runAgentLoop drives an AI SDK model; a correction after invalid_arguments costs a step', async () => {
    const run = await fx.start();
    const { model } = scripted([
      [toolCall('w1', py('add'), { a: 1 })],
      [toolCall('w2', py('add'), { a: 1, b: 2 })],
      [{ type: 'text', text: 'three' }],
    ]);
    const outcome = await runAgentLoop({ run, model: aiSdkModel({ generateText, model, input: 'add 1 and 2' }), maxSteps: 4 });
    expect(outcome).toMatchObject({ status: 'completed', steps: 3, text: 'three' });
    expect(fx.env.calls()).toEqual([{ tool: 'add', arguments: { a: 1, b: 2 } }]);
  });

  it("B6: a rejected step's notice goes to the model in a user turn, never a system message", async () => {
    const run = await fx.start();
    const { model, prompts } = scripted([[toolCall('u1', 'no_such_tool', {})], [{ type: 'text', text: 'ok' }]]);
    const outcome = await runAgentLoop({ run, model: aiSdkModel({ generateText, model, input: 'go' }), maxSteps: 3 });
    expect(outcome.status).toBe('completed');
    const second = (prompts[1] as { prompt: { role: string; content: unknown }[] }).prompt;
    expect(second.filter((m) => m.role === 'system')).toEqual([]);
    const notice = second.find((m) => m.role === 'user' && JSON.stringify(m.content).includes('[agt-mcp notice]'));
    expect(JSON.stringify(notice?.content)).toMatch(/no_such_tool/);
  });
});
