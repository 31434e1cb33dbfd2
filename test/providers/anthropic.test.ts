/**
 * agt-mcp/anthropic against the official Anthropic SDK with recorded payloads
 * (no network): input_schema on the 41 real schemas, tool_use → the run's
 * pipeline → tool_result blocks (B4, B5, B6).
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicModel, fromAnthropicToolUse, toAnthropicToolResult, toAnthropicToolResults, toAnthropicTools } from 'agt-mcp/anthropic';
import { executeModelCalls, runAgentLoop } from '../../src/index.js';
import { py, runFixture } from '../support/index.js';
import { realToolSchemas, recorded, recordedFetch } from './helpers.js';

const fx = runFixture();

describe('tool format', () => {
  it("input_schema is the server's schema with an object root and no $schema, as the SDK's Tool type takes it", () => {
    const real = realToolSchemas();
    const tools: Anthropic.Messages.Tool[] = toAnthropicTools(
      real.map(({ name, schema }) => ({ name: name.replace(/[^A-Za-z0-9_-]/g, '_'), inputSchema: schema })),
    );
    expect(tools).toHaveLength(41);
    tools.forEach((tool, i) => {
      const { $schema: _dialect, ...declared } = real[i]!.schema;
      expect(tool.input_schema).toEqual({ type: 'object', ...declared });
    });
  });

  it('an image result becomes an image block; a failed result is_error with the ToolError text', () => {
    const image = toAnthropicToolResult({
      callId: 't1',
      status: 'ok',
      content: [
        { type: 'text', text: 'a chart' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
    });
    expect(image).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: [
        { type: 'text', text: 'a chart' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      ],
    });
    const failed: Anthropic.Messages.ToolResultBlockParam = toAnthropicToolResult({
      callId: 't2',
      status: 'permission_denied',
      error: { code: 'permission_denied', message: 'no' },
    });
    expect(failed).toMatchObject({
      is_error: true,
      content: [{ type: 'text', text: '{"error":{"code":"permission_denied","message":"no"}}' }],
    });
  });
});

describe('Messages round trip through a run', () => {
  it('B4/B5: tool_use blocks run through the pipeline; each gets a tool_result in the next user message', async () => {
    const run = await fx.start();
    const { fetch, requests } = recordedFetch([recorded('anthropic-step1'), recorded('anthropic-step2')]);
    const client = new Anthropic({ apiKey: 'sk-ant-test-not-used', fetch, maxRetries: 0 });
    const model = anthropicModel({
      client,
      model: 'claude-sonnet-4-5',
      maxTokens: 1024,
      instructions: 'be terse',
      input: 'echo and withdraw',
    });
    const outcome = await runAgentLoop({ run, model, maxSteps: 3 });
    expect(outcome).toMatchObject({ status: 'completed', text: 'Echo worked; the withdrawal exceeds the balance; add needs b.' });
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['echo', 'withdraw']); // add was invalid: never reached the server
    const second = requests[1]?.body as {
      messages: { role: string; content: { type: string; tool_use_id?: string; is_error?: boolean; content?: { text: string }[] }[] }[];
      tools: { name: string }[];
    };
    const results = second.messages.at(-1)?.content ?? [];
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect((requests[0]?.body as { system?: string }).system).toBe('be terse'); // `instructions` is Anthropic's `system`
    expect(results.map((b) => [b.tool_use_id, b.is_error ?? false])).toEqual([
      ['toolu_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8', false],
      ['toolu_01Op9Qr8St7Uv6Wx5Yz4Ab3', true],
      ['toolu_01Cd2Ef3Gh4Ij5Kl6Mn7Op8', true],
    ]);
    expect(JSON.parse(results[1]?.content?.[0]?.text ?? '{}')).toMatchObject({ error: { code: 'insufficient_funds' } });
    expect(JSON.parse(results[2]?.content?.[0]?.text ?? '{}')).toMatchObject({ error: { code: 'invalid_arguments' } });
    expect(second.tools.map((t) => t.name)).toContain(py('echo'));
  });

  it('B6: an unknown tool in tool_use rejects that step per call; never a throw', async () => {
    const run = await fx.start();
    const calls = fromAnthropicToolUse([
      { type: 'text', text: 'x' },
      { type: 'tool_use', id: 'u1', name: 'nope', input: {} },
      { type: 'tool_use', id: 'u2', name: py('echo'), input: { message: 'm' } },
    ]);
    const result = await executeModelCalls(run, calls, { batchId: 'b' });
    expect(toAnthropicToolResults(result).map((b) => [b.tool_use_id, b.is_error])).toEqual([
      ['u1', true],
      ['u2', true],
    ]);
    expect(fx.env.calls()).toEqual([]);
  });
});
