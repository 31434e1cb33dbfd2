/**
 * agt-mcp/openai against the official OpenAI SDK with recorded payloads (no
 * network): tool formats for Chat Completions and Responses, strict mode on the
 * 41 real schemas, calls and results round-tripped through a real run (B4, B5,
 * B6, S4).
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fromOpenAIToolCalls, openAIModel, toOpenAITools, toOpenAIToolMessages } from 'agt-mcp/openai';
import { executeModelCalls, runAgentLoop } from '../../src/index.js';
import { py, runFixture } from '../support/index.js';
import { openAIStrictIssues, realToolSchemas, recorded, recordedFetch } from './helpers.js';

const fx = runFixture();
const real = realToolSchemas().map(({ name, schema }) => ({
  name: name.replace(/[^A-Za-z0-9_-]/g, '_'),
  description: name,
  inputSchema: schema,
}));

describe('tool formats', () => {
  it("S4: on the 41 real schemas, strict tools pass OpenAI's strict rules and the rest go non-strict, object-rooted, without $schema", () => {
    const tools = toOpenAITools(real, { api: 'chat' });
    const strict = tools.filter((t) => t.function.strict);
    for (const tool of strict) expect(openAIStrictIssues(tool.function.parameters), tool.function.name).toEqual([]);
    for (const tool of tools) {
      expect(tool.function.parameters.type).toBe('object');
      expect(tool.function.parameters).not.toHaveProperty('$schema');
    }
    expect(strict).toHaveLength(41); // all of them have a faithful strict form (docs/hosts.md)
    expect(toOpenAITools(real, { api: 'chat', strict: false }).every((t) => !t.function.strict)).toBe(true);
  });

  it('S4: a schema without a faithful strict form ($ref, anyOf, an open object) is sent non-strict, as declared', () => {
    const schemas = [
      { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string' } } },
      { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
      { type: 'object', additionalProperties: true },
    ];
    const tools = toOpenAITools(
      schemas.map((inputSchema, i) => ({ name: `t${i}`, inputSchema })),
      { api: 'responses' },
    );
    expect(tools.map((t) => t.strict)).toEqual([false, false, false]);
    expect(tools.map((t) => t.parameters)).toEqual(schemas);
  });

  it("the formats are the official SDK's types (checked by the compiler) and Responses always says strict", () => {
    const chat: OpenAI.Chat.Completions.ChatCompletionTool[] = toOpenAITools(real, { api: 'chat' });
    const responses: OpenAI.Responses.FunctionTool[] = toOpenAITools(real, { api: 'responses' });
    expect(chat).toHaveLength(41);
    expect(responses.every((t) => typeof t.strict === 'boolean')).toBe(true);
  });
});

describe("OpenAI's documented tool limits", () => {
  it('B1: 192 tools become the first 128, and the host is told what was left out and how to fix it; bad names are left out too', () => {
    const many = Array.from({ length: 192 }, (_, i) => ({ name: `tool_${i}`, inputSchema: { type: 'object' } }));
    const notices: string[] = [];
    const chat = toOpenAITools([...many, { name: 'bad name!', inputSchema: { type: 'object' } }], {
      api: 'chat',
      onNotice: (n) => notices.push(n),
    });
    expect(chat).toHaveLength(128);
    expect(chat.map((t) => (t as { function: { name: string } }).function.name)).toEqual(many.slice(0, 128).map((t) => t.name));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/1 tool name\(s\) OpenAI does not accept were left out \(bad name!\)/);
    expect(notices[0]).toMatch(
      /at most 128 tools per request: 64 of 192 were left out \(tool_128, tool_129, tool_130 and 61 more\); .*tool search/,
    );
    expect(toOpenAITools(many.slice(0, 10), { api: 'responses', onNotice: (n) => notices.push(n) })).toHaveLength(10);
    expect(notices).toHaveLength(1); // nothing to say when everything fits
  });
});

describe('Chat Completions round trip through a run', () => {
  it('B4/B5: valid, invalid and strict-null calls each get a tool message; the model sees invalid_arguments with the paths', async () => {
    const run = await fx.start();
    const { fetch, requests } = recordedFetch([recorded('openai-chat-step1'), recorded('openai-chat-step2')]);
    const client = new OpenAI({ apiKey: 'sk-test-not-used', fetch, maxRetries: 0 });
    const outcome = await runAgentLoop({
      run,
      model: openAIModel({ client, api: 'chat', model: 'gpt-4.1', input: 'echo hello', instructions: 'be terse' }),
      maxSteps: 3,
    });
    expect(outcome).toMatchObject({ status: 'completed', steps: 2, text: 'The echo said hello from gpt; add needs integers.' });
    // What reached the server: the echo, and whereami without the strict-mode null (S4: nothing else changed).
    expect(fx.env.calls()).toEqual([
      { tool: 'echo', arguments: { message: 'hello from gpt' } },
      { tool: 'whereami', arguments: {} },
    ]);
    const second = requests[1]?.body as {
      messages: { role: string; tool_call_id?: string; content?: string }[];
      tools: { function: { name: string; strict: boolean } }[];
    };
    const toolMessages = second.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual([
      'call_Qm3XbC9r2nLw5Tz8Yk1Vd4Hs',
      'call_Zp7LcN2s9Ra4Wq1Xe6Bt3Mv0',
      'call_Hf5DkR8t1Ua9Yw2Xc7Pn4Lj6',
    ]);
    expect(toolMessages[0]?.content).toBe('hello from gpt');
    expect(JSON.parse(toolMessages[1]?.content ?? '{}')).toMatchObject({
      error: { code: 'invalid_arguments', details: { issues: [{ instancePath: '/a' }] } },
    });
    expect(second.tools.find((t) => t.function.name === py('whereami'))?.function.strict).toBe(true);
    expect(requests[0]?.url).toMatch(/\/chat\/completions$/);
  });

  it('B6: unknown tool names and duplicate ids become per-call invalid_arguments results; nothing of that step runs; never a throw', async () => {
    const run = await fx.start();
    const message = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: py('echo'), arguments: '{"message":"x"}' } },
        { id: 'call_b', type: 'function', function: { name: 'made_up', arguments: '{}' } },
        { id: 'call_c', type: 'function', function: { name: py('echo'), arguments: '{"message":"y"}' } },
        { id: 'call_c', type: 'function', function: { name: py('echo'), arguments: '{"message":"z"}' } },
      ],
    };
    const result = await executeModelCalls(run, fromOpenAIToolCalls(message, { tools: run.tools() }), { batchId: 'b1' });
    expect(result.results.map((r) => [r.callId, r.status, r.status === 'ok' ? '' : (r.error.details?.reason ?? r.error.code)])).toEqual([
      ['call_a', 'tool_failed', 'batch_rejected'],
      ['call_b', 'invalid_arguments', 'unknown_tool'],
      ['call_c', 'invalid_arguments', 'duplicate_call_id'],
      ['call_c', 'invalid_arguments', 'duplicate_call_id'],
    ]);
    expect(result.rejected?.message).toMatch(/"made_up" is not a tool of this run/);
    expect(fx.env.calls()).toEqual([]);
    expect(toOpenAIToolMessages(result, { api: 'chat' })).toHaveLength(4);
  });
});

describe('Responses API round trip through a run', () => {
  it("B5: a non-JSON arguments string is that call's invalid_arguments; the other call runs; outputs go back as function_call_output", async () => {
    const run = await fx.start();
    const { fetch, requests } = recordedFetch([recorded('openai-responses-step1'), recorded('openai-responses-step2')]);
    const client = new OpenAI({ apiKey: 'sk-test-not-used', fetch, maxRetries: 0 });
    const outcome = await runAgentLoop({
      run,
      model: openAIModel({ client, api: 'responses', model: 'gpt-4.1', input: 'echo hi', instructions: 'You are a terse assistant.' }),
      maxSteps: 3,
    });
    expect(outcome).toMatchObject({ status: 'completed', text: 'Echoed; the add call had broken JSON.' });
    expect(fx.env.calls()).toEqual([{ tool: 'echo', arguments: { message: 'hi responses' } }]);
    const input = (requests[1]?.body as { input: { type?: string; call_id?: string; output?: string }[] }).input;
    const outputs = input.filter((i) => i.type === 'function_call_output');
    expect(outputs.map((o) => o.call_id)).toEqual(['call_Lr4Xb8Nq2Tw6Ya0Zc3Vd7Ks1', 'call_Mq5Yc9Or3Ux7Zb1Ad4We8Lt2']);
    expect(JSON.parse(outputs[1]?.output ?? '{}')).toMatchObject({
      error: { code: 'invalid_arguments', message: expect.stringMatching(/not valid JSON/) },
    });
    expect(input.filter((i) => i.type === 'function_call')).toHaveLength(2);
    expect(requests[0]?.url).toMatch(/\/responses$/);
  });
});
