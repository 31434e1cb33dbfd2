/**
 * The authoring kit's results: what a handler returns reaches the
 * client as meant (isError and structuredContent kept; data with a `content`
 * field stays data), crashes are reported to the author but not the client,
 * and a kit server on stdio survives over-long and malformed lines (C2, C4).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createToolServer, defineTool, toolError, type ToolOutput, type ToolServerOptions, toolResult } from '../../src/authoring/index.js';
import { resultText } from '../../src/providers/content.js';
import { HarnessToolSet, policies } from '../../src/index.js';
import { REPO_ROOT, runFixture } from '../support/index.js';

const returning = (output: ToolOutput | (() => never)) =>
  defineTool({
    name: 'give',
    description: 'Returns what the test says.',
    input: v.object({}),
    handler: () => (typeof output === 'function' ? output() : output),
  });

async function callGive(output: ToolOutput | (() => never), options: Partial<ToolServerOptions> = {}) {
  const server = createToolServer({ name: 'unit', version: '1.0.0', tools: [returning(output)], ...options });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    return await client.callTool({ name: 'give', arguments: {} });
  } finally {
    await client.close();
  }
}

describe('what a handler returns', () => {
  it("C4: an MCP result's isError reaches the client as an error; structuredContent beside content is kept", async () => {
    expect(await callGive({ content: [{ type: 'text', text: 'disk full' }], isError: true })).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'disk full' }],
    });
    const marked = await callGive(toolResult({ content: [{ type: 'text', text: '2 rows' }], structuredContent: { rows: 2 } }));
    expect(marked).toMatchObject({ content: [{ type: 'text', text: '2 rows' }], structuredContent: { rows: 2 } });
    expect(marked.isError).toBeUndefined();
  });

  it('C2: data that has its own content field is data: sent whole as JSON text and structuredContent, never taken for MCP content', async () => {
    const doc = { id: 'd1', content: ['p'] };
    expect(await callGive(doc)).toMatchObject({ content: [{ type: 'text', text: JSON.stringify(doc) }], structuredContent: doc });
    const page = { id: 'd2', title: 'T', content: [{ type: 'text', text: 'body' }] };
    expect((await callGive(page)).structuredContent).toEqual(page); // id and title are not dropped
  });

  it("C4: a handler's crash goes to onError (stderr by default); the client gets the generic tool_failed and the unknown tool is named", async () => {
    const seen: string[] = [];
    const result = await callGive(
      () => {
        throw new Error('db password is hunter2');
      },
      { onError: (error, { tool }) => void seen.push(`${tool}: ${(error as Error).message}`) },
    );
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ error: { code: 'tool_failed' } });
    expect(seen).toEqual(['give: db password is hunter2']);
    const server = createToolServer({ name: 'unit', version: '1.0.0', tools: [returning('x')] });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/unknown tool "nope"/);
    await client.close();
  });
});

describe('argument issues', () => {
  it("S8: invalid arguments are checked against the published schema first: issues carry JSON Schema's keyword and schemaPath, as hosts see them, and no value", async () => {
    const amount = defineTool({
      name: 'pay',
      description: 'Pays.',
      input: v.strictObject({ amount: v.pipe(v.number(), v.integer(), v.maxValue(500)) }),
      handler: ({ amount }) => ({ paid: amount }),
    });
    const server = createToolServer({ name: 'unit', version: '1.0.0', tools: [amount] });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const result = await client.callTool({ name: 'pay', arguments: { amount: 9999 } });
    const text = (result.content as { text: string }[])[0]!.text;
    expect(JSON.parse(text).error).toMatchObject({
      code: 'invalid_arguments',
      details: { issues: [{ instancePath: '/amount', keyword: 'maximum', schemaPath: expect.stringContaining('maximum') }] },
    });
    expect(text).not.toContain('9999');
    await client.close();
  });
});

const fx = runFixture();

describe('the same rule in runs and harness tools', () => {
  it("B5: a delegate or harness tool that returns an isError result is that call's tool_error, with the ToolError code when it follows the convention", async () => {
    const failing = toolResult({ content: [{ type: 'text', text: '{"error":{"code":"busy","message":"try later"}}' }], isError: true });
    const run = await fx.start({
      policy: policies.autoAllow('*'),
      delegates: [{ name: 'hand_off', targets: ['team/bob'], handler: async () => failing }],
    });
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'd',
      calls: [{ callId: 'h', name: 'hand_off', arguments: { agent: 'team/bob', task: 'x' } }],
    });
    expect(results[0]).toMatchObject({ status: 'tool_error', error: { code: 'busy', message: 'try later' } });
    const harness = new HarnessToolSet([
      { name: 'plain', inputSchema: { type: 'object' }, handler: async () => ({ content: [{ type: 'text', text: 'no' }], isError: true }) },
    ]);
    expect(await harness.handle({ callId: 'p', name: 'plain', arguments: {} })).toMatchObject({
      status: 'tool_error',
      error: { code: 'tool_error', message: 'no' },
    });
  });

  it('C4: one tool-error writing on both sides: what a kit server sends for toolError() is what a run gives its model for the same failure', async () => {
    const kit = await callGive(() => toolError('busy', 'try later', { retryAfterSeconds: 5 }));
    expect(kit.isError).toBe(true);
    const kitText = (kit.content as { text: string }[])[0]!.text;
    const run = await fx.start({
      policy: policies.autoAllow('*'),
      delegates: [
        { name: 'hand_off', targets: ['team/bob'], handler: async () => toolError('busy', 'try later', { retryAfterSeconds: 5 }) },
      ],
    });
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'k',
      calls: [{ callId: 'k1', name: 'hand_off', arguments: { agent: 'team/bob', task: 'x' } }],
    });
    expect(resultText(results[0]!)).toBe(kitText);
    expect(JSON.parse(kitText)).toEqual({ error: { code: 'busy', message: 'try later', details: { retryAfterSeconds: 5 } } });
  });
});

/** Starts the bounded fixture server; `next()` reads its next stdout line as JSON. */
function boundedServer(args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/authoring/fixtures/bounded-server.ts'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return {
    child,
    send: (line: string) => child.stdin.write(`${line}\n`),
    next: async () => JSON.parse((await lines.next()).value as string) as Record<string, unknown>,
    stderr: () => stderr,
  };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

describe('serveStdio', () => {
  it('C4: an 11 MiB line is discarded with a JSON-RPC error and the server goes on; a non-JSON line gets a parse error', async () => {
    const server = boundedServer();
    const exited = once(server.child, 'exit');
    server.child.stdin.write('x'.repeat(11 * 1024 * 1024));
    server.send('');
    expect(await server.next()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/over 10485760 bytes/) } });
    server.send('not json');
    expect(await server.next()).toMatchObject({ id: null, error: { code: -32700 } });
    server.send(initialize);
    expect(await server.next()).toMatchObject({ id: 1, result: { serverInfo: { name: 'bounded' } } });
    expect(server.stderr()).toMatch(/discarded an incoming message over 10485760 bytes/);
    server.child.stdin.end();
    expect((await exited)[0]).toBe(0);
  });

  it('C4: maxMessageBytes sets the bound; a message just under it is served', async () => {
    const server = boundedServer(['2000']);
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping', params: { pad: 'p'.repeat(1900) } }));
    expect(await server.next()).toMatchObject({ id: 7, result: {} });
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping', params: { pad: 'p'.repeat(2100) } }));
    expect(await server.next()).toMatchObject({ id: null, error: { code: -32600 } });
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }));
    expect(await server.next()).toMatchObject({ id: 9, result: {} });
    server.child.stdin.end();
    await once(server.child, 'exit');
  });
});
