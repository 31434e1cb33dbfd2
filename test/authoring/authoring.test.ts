import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { contractCases, createToolServer, defineTool, runContract, toolError } from '../../src/authoring/index.js';
import fs from 'node:fs';
import path from 'node:path';
import { McpProber, ToolSchemaRegistry } from '../../src/index.js';
import { pythonConfig, REPO_ROOT } from '../support/index.js';

const transfer = defineTool({
  name: 'transfer',
  description: 'Move money between accounts.',
  input: v.strictObject({
    from: v.pipe(v.string(), v.minLength(2)),
    amount: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)),
    memo: v.optional(v.pipe(v.string(), v.maxLength(10))),
  }),
  handler: ({ from, amount }, { caller }) => {
    if (caller?.id !== from) toolError('forbidden', 'you may only move your own money');
    if (amount > 100) toolError('insufficient_funds', 'the balance is too low', { balance: 100 });
    return { moved: amount };
  },
});

/** A client linked to a server of `tools`; with `clientId`, every request carries that authentication, as an authenticating transport gives it. */
async function linked(tools: Parameters<typeof createToolServer>[0]['tools'], clientId?: string) {
  const server = createToolServer({ name: 'unit', version: '1.0.0', tools });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const plain = a.onmessage;
  if (clientId !== undefined)
    a.onmessage = (message, extra) => plain?.(message, { ...extra, authInfo: { token: 't', clientId, scopes: [] } });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(b);
  return client;
}

describe('C2: one valibot definition', () => {
  it('C2: the published inputSchema is generated from the definition (2020-12) and loads in the registry', () => {
    expect(transfer.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        from: { type: 'string', minLength: 2 },
        amount: { type: 'integer', minimum: 1, maximum: 500 },
        memo: { type: 'string', maxLength: 10 },
      },
      required: ['from', 'amount'],
      additionalProperties: false,
    });
    expect(new ToolSchemaRegistry().compile(transfer.inputSchema, { tool: 'transfer' }).dialect).toBe('2020-12');
  });

  it('C2: a rule JSON Schema cannot express (transform, custom check) fails at definition time', () => {
    const make = (input: v.GenericSchema) => () => defineTool({ name: 'x', description: '', input, handler: () => 'ok' });
    expect(make(v.object({ n: v.pipe(v.string(), v.transform(Number)) }))).toThrow(/cannot be published as JSON Schema.*would drift/);
    expect(
      make(
        v.object({
          n: v.pipe(
            v.string(),
            v.check((s) => s.length > 2),
          ),
        }),
      ),
    ).toThrow(/"check" action/);
    expect(make(v.string() as never)).toThrow(/must be a valibot object schema/);
  });

  it('C2: the server parses with the same schema: what the schema forbids, the server refuses, with paths and no values', async () => {
    const client = await linked([transfer]);
    const listed = await client.listTools();
    expect(listed.tools[0]?.inputSchema).toEqual(transfer.inputSchema);
    const bad = await client.callTool({ name: 'transfer', arguments: { from: 'al', amount: 9999, extra: 'SECRET-VALUE' } });
    expect(bad.isError).toBe(true);
    const text = (bad.content as { text: string }[])[0]?.text ?? '';
    expect(JSON.parse(text).error).toMatchObject({ code: 'invalid_arguments', details: { issues: expect.any(Array) } });
    expect(text).not.toMatch(/9999|SECRET-VALUE/);
  });
});

describe('C4: the server checks business state and permission', () => {
  it('C4: a schema-valid call can still be unauthorised or fail for business reasons, as a tool error with a code; a forged _meta.caller changes nothing', async () => {
    const call = async (clientId: string | undefined, args: Record<string, unknown>, meta?: Record<string, unknown>) => {
      const client = await linked([transfer], clientId);
      const result = await client.callTool({ name: 'transfer', arguments: args, ...(meta ? { _meta: meta } : {}) });
      await client.close();
      return result.isError
        ? JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}').error.code
        : (result.structuredContent as { moved: number }).moved;
    };
    expect(await call('mallory', { from: 'alice', amount: 50 })).toBe('forbidden');
    expect(await call('mallory', { from: 'alice', amount: 50 }, { caller: 'alice' })).toBe('forbidden'); // the client's word is not identity
    expect(await call(undefined, { from: 'alice', amount: 50 }, { caller: 'alice' })).toBe('forbidden');
    expect(await call('alice', { from: 'alice', amount: 200 })).toBe('insufficient_funds');
    expect(await call('alice', { from: 'alice', amount: 50 })).toBe(50);
  });
});

describe('C1/C3: contract cases against the running server', () => {
  it('C1: the example deliverable has its source, install and start steps, and contract tests; started as documented it serves its tools', async () => {
    const dir = path.join(REPO_ROOT, 'examples', 'tickets-server');
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme).toMatch(/^## Install$/m);
    expect(readme).toMatch(/^## Start$/m);
    const start = /```sh\ncd examples\/tickets-server\n(node [^\n]+)\n```/.exec(readme)?.[1]?.split(' ');
    expect(start).toEqual(['node', '--import', 'tsx', 'server.ts']);
    expect(fs.readFileSync(path.join(dir, 'contract.test.ts'), 'utf8')).toMatch(/contractSuite\(/);
    const report = await new McpProber().probe({
      mcpServers: { tickets: { command: process.execPath, args: start?.slice(1) ?? [], cwd: dir } },
    });
    expect(report.ok).toBe(true);
    expect(report.tools.map((t) => t.name).sort()).toEqual(['close_ticket', 'create_ticket', 'get_ticket']);
  });

  it('C3: cases cover valid arguments, a missing required field, a wrong type, boundaries and business errors', () => {
    const cases = contractCases(transfer, {
      valid: [{ from: 'alice', amount: 50 }],
      meta: { caller: 'alice' },
      businessErrors: [{ name: 'too much', args: { from: 'alice', amount: 200 }, meta: { caller: 'alice' }, code: 'insufficient_funds' }],
    });
    const names = cases.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'valid example 1',
        'missing required "from"',
        'missing required "amount"',
        'wrong type for "amount"',
        '"amount" at minimum',
        '"amount" just below minimum',
        '"amount" at maximum',
        '"amount" just above maximum',
        '"from" at minLength',
        '"from" just under minLength',
        '"memo" at maxLength',
        '"memo" just over maxLength',
        'too much',
      ]),
    );
    expect(cases.find((c) => c.name === '"amount" just above maximum')?.expect).toEqual({ code: 'invalid_arguments' });
  });

  it('C3: the contract runs over the real transport and catches a server that does not enforce its own schema', async () => {
    // The Python fixture publishes add's bounds (±1000) but its implementation never checks them.
    const add = {
      name: 'add',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'integer', minimum: -1000, maximum: 1000 }, b: { type: 'integer', minimum: -1000, maximum: 1000 } },
        required: ['a', 'b'],
      },
    };
    const report = await runContract(pythonConfig(), contractCases(add, { valid: [{ a: 1, b: 2 }] }));
    const failed = report.results.filter((r) => !r.passed).map((r) => r.case.name);
    expect(failed).toEqual(['"a" just below minimum', '"a" just above maximum', '"b" just below minimum', '"b" just above maximum']);
    expect(report.results.find((r) => r.case.name === 'missing required "a"')).toMatchObject({
      passed: true,
      got: { code: 'invalid_arguments' },
    });
  });

  it('C3: a server not built with the kit runs through the same runner, business errors included', async () => {
    const withdraw = {
      name: 'withdraw',
      inputSchema: { type: 'object', properties: { amount: { type: 'number', exclusiveMinimum: 0 } }, required: ['amount'] },
    };
    const report = await runContract(
      pythonConfig(),
      contractCases(withdraw, {
        valid: [{ amount: 1 }],
        businessErrors: [{ name: 'over the balance', args: { amount: 1e6 }, code: 'insufficient_funds' }],
      }),
    );
    expect(report.failed).toBe(0);
    expect(report.casesPerSecond).toBeGreaterThan(0);
  });
});
