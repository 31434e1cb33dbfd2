/**
 * B8 through the provider adapters (no network): a result cut at the run's
 * budget and a result_read page, from the Python fixture server (real
 * process), in each adapter's wire format. The notice reaches the model in
 * every adapter; an image a page returns travels as Anthropic's image block,
 * and is named in text by the adapters that send results as text (OpenAI, AI
 * SDK). No adapter has a local tokenizer: none exports a counter.
 */
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import * as aiSdk from 'agt-mcp/ai-sdk';
import * as anthropic from 'agt-mcp/anthropic';
import * as openai from 'agt-mcp/openai';
import type { LoopMessage, NativeRun, ToolResult } from '../../src/index.js';
import { batch, py, runFixture } from '../support/runs.js';

// The fixture's 1×1 PNG (test/fixtures/mcp_server.py, PNG_1X1): the `mixed` tool's image part.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const f = runFixture(['results', 'big']);

type Part = { type: string; text?: string; data?: string; mimeType?: string };
const partsOf = (result: ToolResult | undefined): Part[] => {
  if (result?.status !== 'ok') throw new Error(`not ok: ${JSON.stringify(result)}`);
  return result.content as Part[];
};
const noticeOf = (result: ToolResult | undefined): string => String(partsOf(result).at(-1)?.text);

/**
 * `mixed` (2,250 characters of text, a PNG, a text resource, text) cut at 1,000 tokens (4,000 characters): the cut
 * (the image a reference at 2,250), the page of the image (result_read at its offset, limit 1), and the last page.
 */
async function cutAndPages(): Promise<{ run: NativeRun; cut: ToolResult; image: ToolResult; last: ToolResult }> {
  const run = await f.start({ resultBudget: { tokens: 1000 } });
  const call = async (callId: string, name: string, args: Record<string, unknown>) =>
    (await run.executeBatch(batch(run, [{ callId, name, arguments: args }]))).results[0] as ToolResult;
  const cut = await call('m1', py('mixed'), { bytes: 4000 });
  const image = await call('r1', 'result_read', { callId: 'm1', offset: 2250, limit: 1 });
  const last = await call('r2', 'result_read', { callId: 'm1', offset: cut.status === 'ok' ? (cut.cut?.keptChars ?? 0) : 0 });
  // What the adapters are given, as the run made it.
  expect(cut.status === 'ok' && cut.cut).toMatchObject({ totalChars: 4515 });
  expect(noticeOf(cut)).toMatch(/^\[agt-mcp: this result is 4515 characters .*Read on with result_read \{"callId":"m1","offset":\d+\}\]$/);
  expect(partsOf(cut).some((p) => p.text?.startsWith('[image part (image/png) not shown: result_read {"callId":"m1","offset":2250'))).toBe(
    true,
  );
  expect(partsOf(image).map((p) => p.type)).toEqual(['image', 'text']);
  expect(partsOf(image)[0]).toMatchObject({ type: 'image', mimeType: 'image/png', data: PNG });
  expect(noticeOf(last)).toMatch(/this is the end of the result\]$/);
  return { run, cut, image, last };
}

describe('B8: a cut result and a result_read page in each provider format', () => {
  it('B8: Anthropic: the notice is the tool_result text; the image a page returns is an image block', async () => {
    const { cut, image, last } = await cutAndPages();
    const cutBlock = anthropic.toAnthropicToolResult(cut);
    expect(cutBlock.content).toHaveLength(1); // the cut holds references, never the image itself
    expect(cutBlock.content[0]).toMatchObject({ type: 'text' });
    const cutText = (cutBlock.content[0] as { text: string }).text;
    expect(cutText.endsWith(noticeOf(cut))).toBe(true);
    expect(cutText).toContain('[image part (image/png) not shown: result_read {"callId":"m1","offset":2250,"limit":1} returns it]');
    expect(cutText.startsWith('a0000000\n')).toBe(true);
    const imageBlock = anthropic.toAnthropicToolResult(image);
    expect(imageBlock).toEqual({
      type: 'tool_result',
      tool_use_id: 'r1',
      content: [
        { type: 'text', text: noticeOf(image) },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      ],
    });
    const lastBlock = anthropic.toAnthropicToolResult(last);
    expect((lastBlock?.content[0] as { text: string }).text.endsWith(noticeOf(last))).toBe(true);
  });

  it('B8: OpenAI (chat and responses): the notice ends the tool output; the image is named in text', async () => {
    const { cut, image, last } = await cutAndPages();
    for (const api of ['chat', 'responses'] as const) {
      const outputs = openai
        .toOpenAIToolMessages({ results: [cut, image, last] }, { api })
        .map((m) => ('content' in m ? m.content : m.output));
      expect(outputs[0]?.endsWith(noticeOf(cut))).toBe(true);
      expect(outputs[0]).toContain('[image part (image/png) not shown: result_read {"callId":"m1","offset":2250,"limit":1} returns it]');
      // The adapter sends results as text (a tool message takes no image): the image is named, the notice follows.
      expect(outputs[1]).toBe(`[image image/png not shown]\n${noticeOf(image)}`);
      expect(outputs[2]?.endsWith(noticeOf(last))).toBe(true);
    }
  });

  it("B8: AI SDK: the notice reaches the model's prompt through generateText; result_read's execute returns it", async () => {
    const { run, cut, image } = await cutAndPages();
    const prompts: unknown[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        prompts.push(options.prompt);
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
          warnings: [],
        } as never; // the mock's result type: the fields generateText reads, as test/providers/ai-sdk.test.ts gives them
      },
    });
    const history: LoopMessage[] = [
      { role: 'assistant', toolCalls: [{ callId: 'm1', name: py('mixed'), arguments: { bytes: 4000 } }] },
      { role: 'tool', batchId: 'b1', results: [cut] },
      { role: 'assistant', toolCalls: [{ callId: 'r1', name: 'result_read', arguments: { callId: 'm1', offset: 2250, limit: 1 } }] },
      { role: 'tool', batchId: 'b2', results: [image] },
    ];
    const answer = await aiSdk.aiSdkModel({ generateText, model, input: 'read it' }).respond({ tools: run.tools(), history });
    expect(answer.text).toBe('done');
    const tools = (prompts[0] as { role: string; content: { type: string; toolCallId?: string; output?: unknown }[] }[])
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content);
    expect(tools.map((c) => [c.type, c.toolCallId])).toEqual([
      ['tool-result', 'm1'],
      ['tool-result', 'r1'],
    ]);
    const [cutOutput, imageOutput] = tools.map((c) => c.output as { type: string; value: string });
    expect(cutOutput?.type).toBe('text');
    expect(cutOutput?.value.endsWith(noticeOf(cut))).toBe(true);
    expect(imageOutput).toEqual({ type: 'text', value: `[image image/png not shown]\n${noticeOf(image)}` });
    // aiSdkTools: result_read is in the set once a result was cut; its execute gives the page's text with the notice.
    const read = aiSdk.aiSdkTools(run).result_read;
    const text = await read?.execute({ callId: 'm1', offset: 2250, limit: 1 }, { toolCallId: 'r3' });
    expect(text).toBe(`[image image/png not shown]\n${noticeOf(image)}`);
  });

  it("B8: a tool's own error cut at the budget: every adapter sends the ToolError JSON with the cut content and its notice", async () => {
    const run = await f.start({ resultBudget: { tokens: 1000 } });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'e1', name: py('big_error'), arguments: { bytes: 10_000 } }]));
    const failed = results[0] as ToolResult;
    // Its message (the content's first 2,000 characters: errorOfContent) counts against the 4,000 characters of the budget.
    expect([failed.status, failed.status === 'tool_error' && failed.cut]).toEqual(['tool_error', { keptChars: 2000, totalChars: 10_000 }]);
    const noticeIn = (text: string | undefined) =>
      String((JSON.parse(text ?? '{}') as { error: { details: { content: Part[] } } }).error.details.content.at(-1)?.text);
    const notice =
      "[agt-mcp: this result is 10000 characters (about 2500 tokens), over this run's result budget of 1000 tokens; " +
      'shown: its first 2000. Read on with result_read {"callId":"e1","offset":2000}]';
    const block = anthropic.toAnthropicToolResult(failed);
    expect(block.is_error).toBe(true);
    expect(noticeIn((block.content[0] as { text: string }).text)).toBe(notice);
    for (const api of ['chat', 'responses'] as const) {
      const [message] = openai.toOpenAIToolMessages({ results: [failed] }, { api });
      expect(noticeIn(message && ('content' in message ? message.content : message.output))).toBe(notice);
    }
  });

  it('B8: no adapter exports a token counter: none of the provider SDKs counts tokens locally, so the estimate stays', () => {
    // @anthropic-ai/sdk: messages.countTokens is a request (POST /v1/messages/count_tokens); openai: responses.inputTokens.count
    // is a request (POST /responses/input_tokens); ai: no counter. docs/hosts.md says how a host plugs its own tokenizer.
    for (const entry of [anthropic, openai, aiSdk] as Record<string, unknown>[]) expect(Object.keys(entry)).not.toContain('countTokens');
  });
});
