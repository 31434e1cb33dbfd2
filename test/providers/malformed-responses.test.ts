/**
 * A provider response an adapter cannot read is an error that names the
 * missing field (`model_response_invalid`), never a completed loop with no
 * text. The OpenAI and Anthropic cases go through the real
 * SDK clients with a recorded fetch (no network), but for the Responses API
 * (the SDK throws on that one itself); the AI SDK case through a
 * generateText of the shape the adapter takes.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { aiSdkModel } from 'agt-mcp/ai-sdk';
import { anthropicModel } from 'agt-mcp/anthropic';
import { openAIModel } from 'agt-mcp/openai';
import { isAgtError, type ModelLike, runAgentLoop } from '../../src/index.js';
import { runFixture } from '../support/index.js';
import { recordedFetch } from './helpers.js';

const fx = runFixture();

const openAI = (payload: Record<string, unknown>, api: 'chat' | 'responses') =>
  openAIModel({
    client: new OpenAI({ apiKey: 'sk-test-not-used', fetch: recordedFetch([payload]).fetch, maxRetries: 0 }),
    api,
    model: 'gpt-4.1',
    input: 'go',
  });
const anthropic = (payload: Record<string, unknown>) =>
  anthropicModel({
    client: new Anthropic({ apiKey: 'sk-ant-test-not-used', fetch: recordedFetch([payload]).fetch, maxRetries: 0 }),
    model: 'claude-sonnet-4-5',
    maxTokens: 256,
    input: 'go',
  });
const aiSdk = (result: unknown) => aiSdkModel({ generateText: async () => result as never, model: {}, input: 'go' });

const cases: [string, () => ModelLike, string, string][] = [
  ['openAIModel (chat), no choices', () => openAI({ id: 'x', object: 'chat.completion' }, 'chat'), 'openAIModel', 'choices'],
  ['openAIModel (chat), no choices at all in the list', () => openAI({ id: 'x', choices: [] }, 'chat'), 'openAIModel', 'choices'],
  [
    'openAIModel (chat), a choice with no message',
    () => openAI({ id: 'x', choices: [{ index: 0 }] }, 'chat'),
    'openAIModel',
    'choices[0].message',
  ],
  // The official SDK itself throws a TypeError on a Responses answer with no output; a client of the same shape does not.
  [
    'openAIModel (responses, a client of the same shape), no output',
    () =>
      openAIModel({
        client: { responses: { create: async () => ({ id: 'x', object: 'response' }) } },
        api: 'responses',
        model: 'm',
        input: 'go',
      }),
    'openAIModel',
    'output',
  ],
  ['anthropicModel, no content', () => anthropic({ id: 'x', type: 'message', role: 'assistant' }), 'anthropicModel', 'content'],
  ['aiSdkModel, neither text nor toolCalls', () => aiSdk({}), 'aiSdkModel', 'text'],
  ['aiSdkModel, toolCalls not a list', () => aiSdk({ text: '', toolCalls: 'x' }), 'aiSdkModel', 'toolCalls'],
  [
    'aiSdkModel, a tool call with no name',
    () => aiSdk({ text: '', toolCalls: [{ toolCallId: 'c1', input: {} }] }),
    'aiSdkModel',
    'toolCalls[0].toolCallId/toolName',
  ],
  ['aiSdkModel, not an object', () => aiSdk(null), 'aiSdkModel', 'response'],
];

describe('B3: a provider response the adapter cannot read stops the loop with the field named', () => {
  for (const [name, model, provider, field] of cases) {
    it(`B3: ${name} is model_response_invalid (field ${field}); nothing of the step runs`, async () => {
      const run = await fx.start();
      const error = await runAgentLoop({ run, model: model(), maxSteps: 2 }).catch((e: unknown) => e);
      expect(isAgtError(error) && error.code).toBe('model_response_invalid');
      expect((error as { details?: unknown }).details).toEqual({ provider, field });
      expect((error as Error).message).toContain(`has no ${field}`);
      expect(fx.env.calls()).toEqual([]);
    });
  }

  it('B3: anthropicModel skips content blocks that are not objects (null, a number) and reads the rest', async () => {
    const run = await fx.start();
    const outcome = await runAgentLoop({ run, model: anthropic({ content: [null, 3, { type: 'text', text: 'done' }] }), maxSteps: 2 });
    expect(outcome).toMatchObject({ status: 'completed', steps: 1, text: 'done' });
  });

  it('B3: a well-formed empty answer still completes (an assistant with nothing to say is not an error)', async () => {
    const run = await fx.start();
    const outcome = await runAgentLoop({ run, model: aiSdk({ text: 'done', toolCalls: [] }), maxSteps: 2 });
    expect(outcome).toMatchObject({ status: 'completed', steps: 1, text: 'done' });
  });
});
