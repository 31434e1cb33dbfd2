/**
 * The framework and delegate tools in a native run, against the real Python server: given only to the
 * manager and agents with resource_management, still passing the policy (G1, G2, G5); validated through
 * the registry with the ToolError shape (H1); delegate tools with a fixed schema and fixed targets (B7).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NativeRun, policies } from '../../src/index.js';
import { batch, py, setup } from '../support/index.js';

let env: Awaited<ReturnType<typeof setup>>;
let run: NativeRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
  env?.tmp.cleanup();
});

async function start(data: Record<string, unknown>, extra: Partial<Parameters<typeof NativeRun.start>[0]> = {}) {
  env = await setup();
  await env.service.write({ kind: 'agent', reference: 'team/alice', create: true, data });
  run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*'), ...extra });
  return run;
}

describe('G1, G2, G5, H1, B7: the framework and delegate tools', () => {
  it('G1: framework tools are unknown tools for an agent without resource_management', async () => {
    const r = await start({ mcps: ['tools/py'] });
    expect(r.tools().map((t) => t.name)).not.toContain('resource_write');
    await expect(
      r.executeBatch(batch(r, [{ callId: 'c', name: 'resource_read', arguments: { kind: 'agent', reference: 'team/alice' } }])),
    ).rejects.toMatchObject({ details: { reason: 'unknown_tool' } });
  });

  it('G1: the manager and agents with resource_management see the framework tools, which still pass the policy', async () => {
    const r = await start({ capabilities: ['resource_management'] }, { policy: policies.autoAllow('resource_read') });
    expect(r.tools().map((t) => t.name)).toEqual([
      'resource_write',
      'resource_read',
      'resource_test',
      'resource_delete',
      'mcp_probe',
      'agent_mcp_list',
    ]);
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'r', name: 'resource_read', arguments: { kind: 'agent', reference: 'team/alice' } },
        { callId: 'w', name: 'resource_write', arguments: { kind: 'agent', reference: 'team/alice', data: { name: 'x' } } },
      ]),
    );
    expect(results.map((x) => x.status)).toEqual(['ok', 'permission_denied']);
  });

  it('H1: framework tools validate through the registry, keep the ToolError shape and then apply domain rules', async () => {
    const r = await start({ role: 'manager' });
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'bad', name: 'resource_write', arguments: { kind: 'robot', reference: 'a/b' } },
        {
          callId: 'domain',
          name: 'resource_write',
          arguments: {
            kind: 'mcp',
            reference: 'tools/rel',
            create: true,
            data: { mcpServers: { x: { command: './run.sh', cwd: '/srv' } } },
          },
        },
        { callId: 'missing', name: 'resource_read', arguments: { kind: 'skill', reference: 'no/such' } },
      ]),
    );
    expect(results[0]).toMatchObject({
      status: 'invalid_arguments',
      error: { details: { issues: [{ instancePath: '/kind', keyword: 'enum' }] } },
    });
    expect(results[1]).toMatchObject({ status: 'tool_error', error: { code: 'invalid_config' } });
    expect(results[2]).toMatchObject({ status: 'tool_error', error: { code: 'not_found', message: expect.any(String) } });
  });

  it('G2: the probe comes with resource management (mcp_probe works for the manager)', async () => {
    const r = await start({ role: 'manager' });
    const { results } = await r.executeBatch(batch(r, [{ callId: 'p', name: 'mcp_probe', arguments: { reference: 'tools/py' } }]));
    expect(results[0]).toMatchObject({ status: 'ok', structuredContent: { ok: true, server: { name: 'agt-python-fixture' } } });
  });

  it('G5: using an assembled MCP needs no resource management; changing the assembly does', async () => {
    const r = await start({ mcps: ['tools/py'] });
    const { results } = await r.executeBatch(batch(r, [{ callId: 'c', name: py('add'), arguments: { a: 1, b: 1 } }]));
    expect(results[0]?.status).toBe('ok');
    expect(r.tools().map((t) => t.name)).not.toContain('resource_write');
  });

  it('B7: delegate tools have a fixed schema and fixed targets; another target rejects the batch', async () => {
    const handed: string[] = [];
    const r = await start(
      {},
      {
        delegates: [
          {
            name: 'delegate_research',
            targets: ['team/bob'],
            handler: async (input) => {
              handed.push(input.agent);
              return 'done';
            },
          },
        ],
      },
    );
    const tool = r.tools().find((t) => t.name === 'delegate_research');
    expect(tool?.inputSchema).toMatchObject({ required: ['agent', 'task'], additionalProperties: false });
    const ok = await r.executeBatch(
      batch(r, [{ callId: 'd1', name: 'delegate_research', arguments: { agent: 'team/bob', task: 'find X' } }]),
    );
    expect(ok.results[0]?.status).toBe('ok');
    await expect(
      r.executeBatch(
        batch(r, [
          { callId: 'd2', name: 'delegate_research', arguments: { agent: 'team/bob', task: 'fine' } },
          { callId: 'd3', name: 'delegate_research', arguments: { agent: 'team/mallory', task: 'steal' } },
        ]),
      ),
    ).rejects.toMatchObject({ details: { reason: 'delegation_forbidden' } });
    expect(handed).toEqual(['team/bob']);
  });
});
