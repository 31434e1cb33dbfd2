/**
 * One result builder for every path that runs handlers (H1, C4): a declared
 * failure (AgtError or ToolErrorSignal) is a tool_error with its code; any
 * other throw is a generic tool_failed that says nothing of its cause; output
 * becomes the same content everywhere.
 */
import { describe, expect, it } from 'vitest';
import { defineTool, toolError } from '../src/authoring/index.js';
import { createToolServer } from '../src/authoring/serve/server.js';
import { AgtError, HarnessToolSet, policies, RESULT_STATUSES, toolAlias } from '../src/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as v from 'valibot';
import { batch, runFixture } from './support/index.js';

const fx = runFixture();
const declared = () => new AgtError('not_found', 'no such ticket', { details: { id: 7 } });
const secret = () => new Error('db password hunter2 in a stack');

describe('handler outcomes', () => {
  it('H1: delegate tools: output, a declared failure and a hidden one', async () => {
    const outcomes = [
      async () => ({ ticket: 7 }),
      async () => {
        throw declared();
      },
      async () => {
        throw secret();
      },
    ];
    const run = await fx.start({
      policy: policies.autoAllow('*'),
      delegates: outcomes.map((handler, i) => ({ name: `d${i}`, targets: ['team/b'], handler: handler as never })),
    });
    const { results } = await run.executeBatch(
      batch(
        run,
        outcomes.map((_h, i) => ({ callId: `c${i}`, name: `d${i}`, arguments: { agent: 'team/b', task: 't' } })),
      ),
    );
    expect(results[0]).toEqual({
      callId: 'c0',
      status: 'ok',
      content: [{ type: 'text', text: '{"ticket":7}' }],
      structuredContent: { ticket: 7 },
    });
    expect(results[1]).toEqual({
      callId: 'c1',
      status: 'tool_error',
      error: { code: 'not_found', message: 'no such ticket', details: { id: 7 } },
    });
    expect(results[2]).toEqual({
      callId: 'c2',
      status: 'tool_failed',
      error: { code: 'tool_failed', message: 'the delegate tool failed' },
    });
  });

  it('H1: harness tools give the same outcomes for the same handlers', async () => {
    const set = new HarnessToolSet([
      { name: 'ok', inputSchema: { type: 'object' }, handler: async () => ({ ticket: 7 }) },
      {
        name: 'declared',
        inputSchema: { type: 'object' },
        handler: async () => {
          throw declared();
        },
      },
      { name: 'signal', inputSchema: { type: 'object' }, handler: async () => toolError('conflict', 'already closed') },
      {
        name: 'hidden',
        inputSchema: { type: 'object' },
        handler: async () => {
          throw secret();
        },
      },
    ]);
    const [ok, agt, signal, hidden] = await Promise.all(
      ['ok', 'declared', 'signal', 'hidden'].map((name) => set.handle({ callId: name, name, arguments: {} })),
    );
    expect(ok).toEqual({
      callId: 'ok',
      status: 'ok',
      content: [{ type: 'text', text: '{"ticket":7}' }],
      structuredContent: { ticket: 7 },
    });
    expect(agt).toEqual({
      callId: 'declared',
      status: 'tool_error',
      error: { code: 'not_found', message: 'no such ticket', details: { id: 7 } },
    });
    expect(signal).toEqual({
      callId: 'signal',
      status: 'tool_error',
      error: { code: 'conflict', message: 'already closed' },
    });
    expect(hidden).toEqual({
      callId: 'hidden',
      status: 'tool_failed',
      error: { code: 'tool_failed', message: 'the tool failed unexpectedly' },
    });
  });

  it('C4: an authored server sends the same codes as isError results, and hides unexpected causes', async () => {
    const tools = [
      defineTool({
        name: 'declared',
        description: 'd',
        input: v.object({}),
        handler: () => {
          throw declared();
        },
      }),
      defineTool({ name: 'signal', description: 's', input: v.object({}), handler: () => toolError('conflict', 'already closed') }),
      defineTool({
        name: 'hidden',
        description: 'h',
        input: v.object({}),
        handler: () => {
          throw secret();
        },
      }),
    ];
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createToolServer({ name: 't', version: '1', tools }).connect(serverSide);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientSide);
    const text = async (name: string) => {
      const r = (await client.callTool({ name, arguments: {} })) as { isError?: boolean; content: { text: string }[] };
      expect(r.isError).toBe(true);
      return JSON.parse(r.content[0]?.text ?? '{}');
    };
    expect(await text('declared')).toEqual({ error: { code: 'not_found', message: 'no such ticket', details: { id: 7 } } });
    expect(await text('signal')).toEqual({ error: { code: 'conflict', message: 'already closed' } });
    expect(await text('hidden')).toEqual({ error: { code: 'tool_failed', message: 'the tool failed unexpectedly' } });
    await client.close();
  });
});

describe('RESULT_STATUSES: one list of result statuses', () => {
  it('B3: one batch gives each status of the list once: ok, invalid arguments, a denial, a declared and a hidden failure', async () => {
    const outcomes = [async () => 'fine', async () => Promise.reject(declared()), async () => Promise.reject(secret())];
    const run = await fx.start({
      policy: policies.autoAllow(['d0', 'd1', 'd2', toolAlias('tools/py', 'echo')]),
      delegates: [...outcomes, async () => 'never'].map((handler, i) => ({
        name: `d${i}`,
        targets: ['team/b'],
        handler: handler as never,
      })),
    });
    const task = { agent: 'team/b', task: 't' };
    const { results } = await run.executeBatch(
      batch(run, [
        { callId: 'ok', name: 'd0', arguments: task },
        { callId: 'declared', name: 'd1', arguments: task },
        { callId: 'hidden', name: 'd2', arguments: task },
        { callId: 'denied', name: 'd3', arguments: task },
        { callId: 'invalid', name: toolAlias('tools/py', 'echo'), arguments: { message: 42 } },
      ]),
    );
    expect(results.map((r) => r.status)).toEqual(['ok', 'tool_error', 'tool_failed', 'permission_denied', 'invalid_arguments']);
    // `interrupted` ends no call of a batch: only run.recover() gives it, to a decided call whose host died (in-flight.test.ts).
    expect([...RESULT_STATUSES].filter((s) => s !== 'interrupted').sort()).toEqual([...new Set(results.map((r) => r.status))].sort());
  });
});
