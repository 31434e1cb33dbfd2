import { describe, expect, it } from 'vitest';
import { frameworkToolsFor } from '../../src/framework/tools.js';
import { HarnessToolSet, isAgtError } from '../../src/index.js';

const ticketTool = (calls: unknown[]) => ({
  name: 'create_ticket',
  description: 'Create a ticket',
  inputSchema: {
    type: 'object',
    properties: { title: { type: 'string', minLength: 3 }, priority: { enum: ['low', 'high'] } },
    required: ['title'],
    additionalProperties: false,
  },
  handler: async (args: Record<string, unknown>) => {
    calls.push(args);
    return `created ${String(args.title)}`;
  },
});

describe('H2/H3: harness dynamic tools', () => {
  it('H2: a bad definition fails when the set is built, before the turn is submitted', () => {
    const error = (() => {
      try {
        new HarnessToolSet([{ name: 'bad', inputSchema: { type: 'object', properties: { x: { type: 5 } } }, handler: async () => '' }]);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isAgtError(error) && error.code).toBe('schema_load_failed');
    expect(() => new HarnessToolSet([{ name: 'has space', inputSchema: { type: 'object' }, handler: async () => '' }])).toThrow(
      /must match/,
    );
  });

  it('H2: an incoming call is validated first and reaches the host callback only if valid', async () => {
    const calls: unknown[] = [];
    const set = new HarnessToolSet([ticketTool(calls)]);
    expect(set.tools()).toEqual([
      { name: 'create_ticket', description: 'Create a ticket', inputSchema: expect.objectContaining({ required: ['title'] }) },
    ]);
    const bad = await set.handle({ callId: 't1', name: 'create_ticket', arguments: { title: 'no', priority: 'urgent' } });
    expect(bad).toMatchObject({ callId: 't1', status: 'invalid_arguments' });
    expect(calls).toEqual([]);
    const good = await set.handle({ callId: 't2', name: 'create_ticket', arguments: '{"title":"Broken login"}' });
    expect(good).toMatchObject({ status: 'ok', content: [{ type: 'text', text: 'created Broken login' }] });
    expect(calls).toEqual([{ title: 'Broken login' }]);
  });

  it('H3: a call for a tool the set does not define is not ours to run', async () => {
    const set = new HarnessToolSet([ticketTool([])]);
    expect(await set.handle({ callId: 'x', name: 'Bash', arguments: {} })).toMatchObject({
      status: 'invalid_arguments',
      error: { code: 'invalid_arguments', details: { reason: 'unknown_tool' } },
    });
  });
});

describe('G2: harness agents and the probe', () => {
  it('G2: a harness agent with resource management gets the framework tools but no probe; a native one gets the probe', () => {
    const names = (agent: Parameters<typeof frameworkToolsFor>[0]) => frameworkToolsFor(agent).map((t) => t.name);
    expect(names({ kind: 'harness', capabilities: ['resource_management'] })).toEqual([
      'resource_write',
      'resource_read',
      'resource_test',
      'resource_delete',
      'agent_mcp_list',
    ]);
    expect(names({ kind: 'native', role: 'manager' })).toContain('mcp_probe');
    expect(names({ kind: 'native', role: 'worker' })).toEqual([]);
  });
});
