/**
 * Durable approvals through the provider adapters: a step whose
 * call waits ends the loop as awaiting_approval without asking the model
 * again; after the decision (the history kept as JSON, as a host keeps it
 * between requests) the next request holds one tool result per call id, in
 * call order — valid for the OpenAI, Anthropic and AI SDK APIs (G4, B4).
 */
import Anthropic from '@anthropic-ai/sdk';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { aiSdkModel, aiSdkTools } from 'agt-mcp/ai-sdk';
import { anthropicModel } from 'agt-mcp/anthropic';
import { openAIModel } from 'agt-mcp/openai';
import { type AgentLoopOptions, type LoopMessage, type ModelLike, type NativeRun, policies, runAgentLoop } from '../../src/index.js';
import { py, runFixture } from '../support/index.js';
import { recorded, recordedFetch } from './helpers.js';

const fx = runFixture();
const waitFor = (tool: string) => policies.chain(policies.approval(py(tool)), policies.autoAllow('*'));
const asStored = (history: LoopMessage[]): LoopMessage[] => JSON.parse(JSON.stringify(history));

/** Runs the loop to awaiting_approval, then again with `decisions`: the two outcomes. */
async function twoRequests(run: NativeRun, model: ModelLike, decisions: AgentLoopOptions['decisions']) {
  const first = await runAgentLoop({ run, model, maxSteps: 3 });
  expect(first.status).toBe('awaiting_approval');
  const second = await runAgentLoop({ run, model, maxSteps: 3, history: asStored(first.history), decisions });
  return { first, second };
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** An AI SDK mock model answering `steps` in turn, keeping each prompt. */
function mockModel(steps: unknown[][]) {
  const prompts: { prompt: { role: string; content: { type: string; toolCallId?: string }[] }[] }[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options as never);
      const content = steps.shift() ?? [];
      const calls = content.some((c) => (c as { type: string }).type === 'tool-call');
      return { content, finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] } as never;
    },
  });
  return { model, prompts };
}

describe('approvals with provider histories', () => {
  it('G4: OpenAI Chat Completions: the step waits for whereami; after approval the next request has a tool message per call, in order', async () => {
    const run = await fx.start({ policy: waitFor('whereami') });
    const { fetch, requests } = recordedFetch([recorded('openai-chat-step1'), recorded('openai-chat-step2')]);
    const client = new OpenAI({ apiKey: 'sk-test-not-used', fetch, maxRetries: 0 });
    const model = openAIModel({ client, api: 'chat', model: 'gpt-4.1', input: 'echo hello' });
    const { first, second } = await twoRequests(run, model, { call_Hf5DkR8t1Ua9Yw2Xc7Pn4Lj6: { approve: true } });
    expect(first.pending?.map((p) => [p.callId, p.tool])).toEqual([['call_Hf5DkR8t1Ua9Yw2Xc7Pn4Lj6', py('whereami')]]);
    expect(second.status).toBe('completed');
    expect(requests).toHaveLength(2); // the model was not asked while the call waited
    const messages = (requests[1]?.body as { messages: { role: string; tool_call_id?: string }[] }).messages;
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
      'call_Qm3XbC9r2nLw5Tz8Yk1Vd4Hs',
      'call_Zp7LcN2s9Ra4Wq1Xe6Bt3Mv0',
      'call_Hf5DkR8t1Ua9Yw2Xc7Pn4Lj6',
    ]);
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['echo', 'whereami']);
  });

  it('G4: Anthropic Messages: a rejected withdraw is an is_error tool_result with the reason, among one result per tool_use', async () => {
    const run = await fx.start({ policy: waitFor('withdraw') });
    const { fetch, requests } = recordedFetch([recorded('anthropic-step1'), recorded('anthropic-step2')]);
    const client = new Anthropic({ apiKey: 'sk-ant-test-not-used', fetch, maxRetries: 0 });
    const model = anthropicModel({ client, model: 'claude-sonnet-4-5', maxTokens: 1024, input: 'echo and withdraw' });
    const { second } = await twoRequests(run, model, { toolu_01Op9Qr8St7Uv6Wx5Yz4Ab3: { approve: false, reason: 'too much money' } });
    expect(second.status).toBe('completed');
    const body = requests[1]?.body as {
      messages: { role: string; content: { tool_use_id?: string; is_error?: boolean; content?: { text: string }[] }[] }[];
    };
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const results = body.messages.at(-1)?.content ?? [];
    expect(results.map((b) => [b.tool_use_id, b.is_error ?? false])).toEqual([
      ['toolu_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8', false],
      ['toolu_01Op9Qr8St7Uv6Wx5Yz4Ab3', true],
      ['toolu_01Cd2Ef3Gh4Ij5Kl6Mn7Op8', true],
    ]);
    expect(JSON.parse(results[1]?.content?.[0]?.text ?? '{}')).toMatchObject({
      error: { code: 'permission_denied', message: 'too much money' },
    });
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['echo']); // the rejected withdraw never reached the server
  });

  it('G4: AI SDK (aiSdkModel): after the approval the next prompt has a tool-result part for every tool-call', async () => {
    const run = await fx.start({ policy: waitFor('withdraw') });
    const { model: mock, prompts } = mockModel([
      [
        { type: 'tool-call', toolCallId: 'c1', toolName: py('withdraw'), input: '{"amount":1}' },
        { type: 'tool-call', toolCallId: 'c2', toolName: py('echo'), input: '{"message":"m"}' },
      ],
      [{ type: 'text', text: 'done' }],
    ]);
    const { second } = await twoRequests(run, aiSdkModel({ generateText, model: mock, input: 'go' }), { c1: { approve: true } });
    expect(second).toMatchObject({ status: 'completed', text: 'done' });
    const tool = prompts[1]?.prompt.find((m) => m.role === 'tool');
    expect(tool?.content.map((p) => [p.type, p.toolCallId])).toEqual([
      ['tool-result', 'c1'],
      ['tool-result', 'c2'],
    ]);
    expect(
      fx.env
        .calls()
        .map((c) => c.tool)
        .sort(),
    ).toEqual(['echo', 'withdraw']);
  });

  it('G4: aiSdkTools (the SDK runs its own loop and cannot wait): a deferred call is rejected at once, one result per call, nothing left pending', async () => {
    const run = await fx.start({ policy: waitFor('withdraw') });
    const { model: mock, prompts } = mockModel([
      [
        { type: 'tool-call', toolCallId: 't1', toolName: py('echo'), input: '{"message":"sdk"}' },
        { type: 'tool-call', toolCallId: 't2', toolName: py('withdraw'), input: '{"amount":1}' },
      ],
      [{ type: 'text', text: 'ok' }],
    ]);
    const result = await generateText({ model: mock, prompt: 'go', tools: aiSdkTools(run), stopWhen: stepCountIs(3) });
    expect(result.text).toBe('ok');
    const toolMessage = JSON.stringify(prompts[1]?.prompt.at(-1));
    expect(toolMessage).toContain('sdk');
    expect(toolMessage).toMatch(/permission_denied.*cannot wait/);
    expect(run.pending()).toEqual([]);
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['echo']);
  });
});
