/**
 * The handler context of the authoring kit: progress, log
 * messages, sampling and elicitation mid-call, the request's authentication,
 * and output schemas with title and annotations — through the SDK's own
 * client (C2, C4).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createToolServer, defineTool, type ServableTool, type ToolContext, type ToolServerOptions } from '../../src/authoring/index.js';

const tool = (name: string, handler: (context: ToolContext) => unknown, extra: Partial<Parameters<typeof defineTool>[0]> = {}) =>
  defineTool({ name, description: name, input: v.object({}), handler: (_input, context) => handler(context) as never, ...extra });

async function connect(
  tools: ServableTool[],
  client = new Client({ name: 'test', version: '1.0.0' }),
  options: Partial<ToolServerOptions> = {},
) {
  const server = createToolServer({ name: 'ctx', version: '1.0.0', tools, ...options });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const plain = b.onmessage;
  // What an authenticating transport (the SDK's bearer auth on HTTP) hands the server with each message.
  b.onmessage = (message, extra) =>
    plain?.(message, { ...extra, authInfo: { token: 't', clientId: 'client-7', scopes: ['tickets:write'] } });
  await client.connect(a);
  return client;
}

describe('the handler context', () => {
  it('C4: progress reaches the client that asked for it, in order; a call without a progress token sends none', async () => {
    const client = await connect([
      tool('steps', async ({ progress }) => {
        await progress(1, { total: 2, message: 'half' });
        await progress(2, { total: 2 });
        return 'done';
      }),
    ]);
    const seen: unknown[] = [];
    await client.callTool({ name: 'steps', arguments: {} }, CallToolResultSchema, { onprogress: (p) => void seen.push(p) });
    expect(seen).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2 },
    ]);
    expect((await client.callTool({ name: 'steps', arguments: {} })).content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('C4: log messages go to the client at or above the level it set (logging is declared)', async () => {
    const client = await connect([
      tool('noisy', async ({ log }) => {
        await log('info', 'routine');
        await log('error', { disk: 'full' }, 'storage');
        return 'ok';
      }),
    ]);
    expect(client.getServerCapabilities()?.logging).toEqual({});
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'noisy', arguments: {} });
    expect(messages).toEqual([{ level: 'error', data: { disk: 'full' }, logger: 'storage' }]);
  });

  it("C4: sampling and elicitation ask the client mid-call; a client that does not offer them is the tool's `unsupported` error", async () => {
    const tools = [
      tool('summarize', async ({ sample }) => {
        const answer = await sample({ messages: [{ role: 'user', content: { type: 'text', text: 'sum up' } }], maxTokens: 50 });
        return (answer.content as { text: string }).text;
      }),
      tool('confirm', async ({ elicit }) => {
        const answer = await elicit({ message: 'go?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
        return { action: answer.action, ok: answer.content?.ok ?? null };
      }),
    ];
    const able = new Client({ name: 'able', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    able.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'short' },
      model: 'm',
    }));
    able.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { ok: true } }));
    const client = await connect(tools, able);
    expect((await client.callTool({ name: 'summarize', arguments: {} })).content).toEqual([{ type: 'text', text: 'short' }]);
    expect((await client.callTool({ name: 'confirm', arguments: {} })).structuredContent).toEqual({ action: 'accept', ok: true });
    const plain = await connect(tools);
    const refused = await plain.callTool({ name: 'summarize', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as { text: string }[])[0]!.text)).toMatchObject({
      error: { code: 'unsupported', details: { feature: 'sampling' } },
    });
  });

  it("C4: authInfo is the transport's authentication of the request, as the handler sees it", async () => {
    const client = await connect([
      tool('whoami', ({ authInfo }) => ({ client: authInfo?.clientId ?? null, scopes: authInfo?.scopes ?? [] })),
    ]);
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({
      client: 'client-7',
      scopes: ['tickets:write'],
    });
  });
});

describe('output schemas, titles and annotations', () => {
  const quotient = v.strictObject({ quotient: v.pipe(v.number(), v.integer()), remainder: v.pipe(v.number(), v.integer(), v.minValue(0)) });
  const divide = (result: unknown) =>
    defineTool({
      name: 'divide',
      title: 'Divide',
      description: 'Integer division.',
      annotations: { readOnlyHint: true, openWorldHint: false },
      input: v.object({}),
      output: quotient,
      handler: () => result as never,
    });

  it('C2: title, annotations and the outputSchema generated from `output` are listed; a valid structured result is sent', async () => {
    const client = await connect([divide({ quotient: 3, remainder: 1 })]);
    const [listed] = (await client.listTools()).tools;
    expect(listed).toMatchObject({
      name: 'divide',
      title: 'Divide',
      annotations: { readOnlyHint: true, openWorldHint: false },
      outputSchema: { type: 'object', required: ['quotient', 'remainder'], additionalProperties: false },
    });
    expect((await client.callTool({ name: 'divide', arguments: {} })).structuredContent).toEqual({ quotient: 3, remainder: 1 });
  });

  it('C4: a result that breaks the outputSchema, or has no structured content, is never sent: output_invalid with paths, and the author hears of it', async () => {
    const heard: string[] = [];
    const onError = (error: unknown) => void heard.push((error as { code: string }).code);
    const bad = await connect([divide({ quotient: 'three', remainder: -1, secret: 's3cr3t' })], undefined, { onError });
    const result = await bad.callTool({ name: 'divide', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(JSON.stringify(result)).not.toContain('s3cr3t');
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({
      error: {
        code: 'output_invalid',
        details: { issues: expect.arrayContaining([expect.objectContaining({ instancePath: '/quotient' })]) },
      },
    });
    const textOnly = await connect([divide('3 r 1')], undefined, { onError });
    expect(JSON.parse(((await textOnly.callTool({ name: 'divide', arguments: {} })).content as { text: string }[])[0]!.text)).toMatchObject(
      {
        error: { code: 'output_invalid' },
      },
    );
    expect(heard).toEqual(['output_invalid', 'output_invalid']);
    expect(() => defineTool({ name: 'x', description: '', input: v.object({}), output: v.string() as never, handler: () => 'x' })).toThrow(
      /output must be a valibot object schema/,
    );
  });
});
