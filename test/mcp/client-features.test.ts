/**
 * The client side of the protocol beyond tools/list and tools/call, against the
 * standard-library Python server over stdio: resources and prompts with
 * pagination, list_changed notifications, call timeouts and cancellation,
 * progress, elicitation and sampling handlers, and what the prober reports.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection, McpProber } from '../../src/index.js';
import { failure, pythonConfig, readEvents, tempDir, waitFor } from '../support/index.js';

let tmp: ReturnType<typeof tempDir>;
let events: string;
let connection: McpConnection | undefined;
beforeEach(() => {
  tmp = tempDir();
  events = path.join(tmp.dir, 'events.log');
});
afterEach(async () => {
  await connection?.close();
  connection = undefined;
  tmp.cleanup();
});

const features = (...names: string[]) =>
  pythonConfig({ extra: [...names.flatMap((n) => ['--feature', n]), '--events', events, '--page-size', '2', '--resources', '5'] });

describe('resources and prompts (P2)', () => {
  it('P2: every page of resources/list and prompts/list; read a resource, get a prompt', async () => {
    connection = await connectMcp(features('resources', 'prompts'));
    const resources = await connection.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['fixture://r/0', 'fixture://r/1', 'fixture://r/2', 'fixture://r/3', 'fixture://r/4']);
    expect(readEvents(events).filter((e) => e.method === 'resources/list')).toHaveLength(3); // 5 resources, pages of 2
    expect((await connection.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['fixture://r/{id}']);
    expect(await connection.readResource('fixture://r/3')).toEqual({
      contents: [{ uri: 'fixture://r/3', mimeType: 'text/plain', text: 'content of fixture://r/3' }],
    });
    await expect(connection.readResource('fixture://nope')).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/resource not found$/),
    }); // the server's words
    expect((await connection.listPrompts()).map((p) => p.name)).toEqual(['greet', 'plain']);
    const prompt = await connection.getPrompt('greet', { who: 'Ada' });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Say hello to Ada.' });
    await expect(connection.getPrompt('missing')).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/no such prompt .*unknown prompt$/),
      details: { rpcCode: -32602 },
    });
  });

  it('P2: a server that declares neither lists nothing and is not asked', async () => {
    connection = await connectMcp(features());
    expect(await connection.listResources()).toEqual([]);
    expect(await connection.listPrompts()).toEqual([]);
    expect(readEvents(events).filter((e) => e.method !== 'tools/list')).toEqual([]);
  });

  it('P2: the probe reports resource and prompt counts beside the tools, and a list that fails', async () => {
    const prober = new McpProber();
    const good = await prober.probe({ mcpServers: { py: features('resources', 'prompts') } });
    expect(good).toMatchObject({ ok: true, resources: { count: 5, templates: 1 }, prompts: { count: 2 } });
    const plain = await prober.probe({ mcpServers: { py: features() } });
    expect(plain.resources).toBeUndefined();
    expect(plain.prompts).toBeUndefined();
    const broken = await prober.probe({ mcpServers: { py: features('broken-resources', 'prompts') } });
    expect(broken.ok).toBe(false);
    expect(broken.resources).toEqual({ count: 0, templates: 0, error: expect.stringMatching(/resources\/list/) });
    expect(broken.prompts).toEqual({ count: 2 });
    expect(broken.tools.every((t) => t.ok)).toBe(true);
  });
});

describe('output schemas in probes (S7)', () => {
  it('S7: an outputSchema is compiled like an inputSchema; a bad one is reported for that tool alone', async () => {
    const report = await new McpProber().probe({ mcpServers: { py: features('output') } });
    const byName = new Map(report.tools.map((t) => [t.name, t]));
    expect(byName.get('divide')).toMatchObject({ ok: true, dialect: '2020-12', output: { dialect: '2020-12' } });
    expect(byName.get('echo')?.output).toBeUndefined();
    const broken = byName.get('broken_output_schema');
    expect(broken).toMatchObject({
      ok: false,
      dialect: '2020-12',
      output: { error: { code: 'schema_load_failed', schemaPath: expect.stringContaining('/properties/x') } },
    });
    expect(broken?.output?.error?.message).toMatch(/^tool "broken_output_schema": outputSchema failed to load/);
    expect(report.tools.filter((t) => !t.ok).map((t) => t.name)).toEqual(['broken_output_schema']);
  });

  it('P2: the probe reports tool annotations as the server declared them', async () => {
    const report = await new McpProber().probe({ mcpServers: { py: features() } });
    expect(report.tools.find((t) => t.name === 'withdraw')?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    });
  });
});

describe('list_changed notifications', () => {
  it('F1: tools, resources and prompts list_changed reach the listeners; unsubscribing stops them', async () => {
    connection = await connectMcp(features('list-changed', 'resources', 'prompts'));
    const seen: string[] = [];
    const stop = connection.onListChanged((kind) => seen.push(kind));
    await connection.callTool('grow', { name: 'fresh' });
    await connection.callTool('touch', {});
    expect(seen).toEqual(['tools', 'resources', 'prompts']); // notifications precede the result on the same stream
    expect((await connection.listTools()).map((t) => t.name)).toContain('fresh');
    stop();
    await connection.callTool('storm', { n: 3 });
    expect(seen).toHaveLength(3);
  });
});

describe('call timeout, cancellation and progress', () => {
  it('a call the server never answers ends with call_timeout; the server is sent notifications/cancelled', async () => {
    connection = await connectMcp(features('slow'));
    const f = await failure(connection.callTool('never', {}, { timeoutMs: 300 }));
    expect(f).toMatchObject({ code: 'call_timeout', details: { timeoutMs: 300 } });
    expect(connection.inFlight).toBe(0);
    await waitFor(() => readEvents(events).some((e) => e.event === 'cancelled'));
    expect(connection.closed).toBe(false);
    expect((await connection.callTool('echo', { message: 'still here' })).isError).toBe(false);
  });

  it('an aborted signal cancels the call at once: cancelled, notifications/cancelled sent, nothing left in flight', async () => {
    connection = await connectMcp(features('slow'));
    const controller = new AbortController();
    const pending = connection.callTool('never', {}, { signal: controller.signal });
    await waitFor(() => connection?.inFlight === 1);
    controller.abort('the user pressed stop');
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    expect(connection.inFlight).toBe(0);
    await waitFor(() => readEvents(events).some((e) => e.event === 'cancelled'));
    expect(readEvents(events).find((e) => e.event === 'cancelled')?.reason).toBe('the user pressed stop');
  });

  it('progress notifications reach the hook; a throwing hook does not break the call', async () => {
    connection = await connectMcp(features('progress'));
    const seen: unknown[] = [];
    const result = await connection.callTool('count', { n: 3 }, { onProgress: (p) => void seen.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: 'counted 3' }]);
    expect(seen).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })));
    const again = await connection.callTool(
      'count',
      { n: 2 },
      {
        onProgress: () => {
          throw new Error('hook bug');
        },
      },
    );
    expect(again.isError).toBe(false);
  });

  it('a malformed structuredContent still comes back as the server sent it (the caller judges it)', async () => {
    connection = await connectMcp(features('output'));
    expect((await connection.callTool('malformed_structured', {})).structuredContent).toBe('not an object s3cr3t-value');
  });
});

describe('server-initiated requests (P2: capabilities follow the handlers)', () => {
  it('P2: without handlers no capability is declared, and the server cannot elicit', async () => {
    connection = await connectMcp(features('elicit'));
    expect(connection.clientCapabilities).toEqual({});
    const result = await connection.callTool('ask', { question: 'how are you?' });
    expect(result.isError).toBe(true); // the SDK refused the request: the capability was not declared
  });

  it('P2: an elicitation handler declares elicitation, answers the server, and gets the schema defaults applied', async () => {
    const asked: unknown[] = [];
    connection = await connectMcp(features('elicit'), {
      elicitation: async (request) => {
        asked.push(request);
        return { action: 'accept', content: { answer: 'well' } };
      },
    });
    expect(connection.clientCapabilities).toEqual({ elicitation: { form: { applyDefaults: true } } });
    const result = await connection.callTool('ask', { question: 'how are you?' });
    expect(result.structuredContent).toEqual({ action: 'accept', content: { answer: 'well', mood: 'fine' } });
    expect(asked).toEqual([expect.objectContaining({ message: 'how are you?' })]);
  });

  it('P2: a sampling handler declares sampling; a handler that throws leaks nothing to the server', async () => {
    connection = await connectMcp(features('sample'), {
      sampling: async (request) => ({
        role: 'assistant',
        model: 'host-model',
        content: { type: 'text', text: `summary of ${request.messages.length} message(s)` },
      }),
    });
    expect(connection.clientCapabilities).toEqual({ sampling: {} });
    const result = await connection.callTool('summarize', { text: 'long text' });
    expect(result.content).toEqual([{ type: 'text', text: 'summary of 1 message(s)' }]);
    await connection.close();
    connection = await connectMcp(features('sample'), {
      sampling: async () => {
        throw new Error('internal host detail');
      },
    });
    const refused = await connection.callTool('summarize', { text: 'x' });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused)).not.toContain('internal host detail');
  });
});
