/**
 * SPEC §11 runtime/tool-contract, end to end with the standard-library Python
 * MCP server and a scripted model (no real model):
 * register → test → probe → self-mount → refresh → bad call → correction →
 * unmount → tools gone → broken mount keeps the old tools → authorization.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NativeRun, policies, runAgentLoop, type ToolCall, type ToolResult } from '../../src/index.js';
import { ScriptedModel, type ScriptedInput } from '../../src/testing/index.js';
import { batch, py, pythonConfig, setup } from '../support/index.js';

let env: Awaited<ReturnType<typeof setup>>;
const runs: NativeRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((r) => r.close()));
  env?.tmp.cleanup();
});

const call = (callId: string, name: string, args: Record<string, unknown>): ToolCall => ({ callId, name, arguments: JSON.stringify(args) });
const lastResults = (input: ScriptedInput): ToolResult[] => {
  const tool = [...input.history].reverse().find((m) => m.role === 'tool');
  return tool?.role === 'tool' ? tool.results : [];
};

describe('tool contract, end to end', () => {
  it('B4, F1, F2, P1, P2, R2: register → test → probe → self-mount → bad call → correction → unmount', async () => {
    env = await setup();
    await env.service.delete({ kind: 'mcp', reference: 'tools/py' }); // the agent registers it itself
    await env.service.write({ kind: 'agent', reference: 'team/builder', create: true, data: { capabilities: ['resource_management'] } });
    const run = await NativeRun.start({ agent: 'team/builder', service: env.service, policy: policies.autoAllow('*') });
    runs.push(run);
    const server = { mcpServers: { py: pythonConfig({ extra: ['--log', env.log] }) } };
    const seen: { step: number; tools: string[] }[] = [];
    const model = new ScriptedModel([
      // R2: register exactly one server through the framework tool
      () => ({ toolCalls: [call('reg', 'resource_write', { kind: 'mcp', reference: 'tools/py', create: true, data: server })] }),
      // P1 then P2: static test, live probe
      (input) => {
        expect(lastResults(input)[0]).toMatchObject({
          status: 'ok',
          structuredContent: { kind: 'mcp', reference: 'tools/py', revision: 1 },
        });
        return {
          toolCalls: [
            call('t', 'resource_test', { kind: 'mcp', reference: 'tools/py' }),
            call('p', 'mcp_probe', { reference: 'tools/py' }),
          ],
        };
      },
      (input) => {
        const [test, probe] = lastResults(input);
        expect(test).toMatchObject({ status: 'ok', structuredContent: { ok: true, transport: 'stdio' } });
        expect(probe).toMatchObject({
          status: 'ok',
          structuredContent: { ok: true, tools: expect.arrayContaining([expect.objectContaining({ name: 'add', ok: true })]) },
        });
        expect(input.tools.map((t) => t.name)).not.toContain(py('add'));
        return { toolCalls: [call('mount', 'resource_write', { kind: 'agent', reference: 'team/builder', add: { mcps: ['tools/py'] } })] };
      },
      // F1: after the batch, the mounted tools are there; a bad call first (B4)
      (input) => {
        seen.push({ step: 4, tools: input.tools.map((t) => t.name) });
        expect(input.tools.map((t) => t.name)).toContain(py('add'));
        return { toolCalls: [call('bad', py('add'), { a: 1.5, b: 'two' })] };
      },
      (input) => {
        const [bad] = lastResults(input);
        expect(bad).toMatchObject({ callId: 'bad', status: 'invalid_arguments' });
        expect(env.calls()).toEqual([]); // nothing reached the server
        return { toolCalls: [call('good', py('add'), { a: 1, b: 2 })] };
      },
      (input) => {
        expect(lastResults(input)[0]).toMatchObject({ callId: 'good', status: 'ok', structuredContent: { sum: 3 } });
        return {
          toolCalls: [call('unmount', 'resource_write', { kind: 'agent', reference: 'team/builder', remove: { mcps: ['tools/py'] } })],
        };
      },
      (input) => {
        expect(input.tools.map((t) => t.name)).not.toContain(py('add'));
        return { text: 'done' };
      },
    ]);
    const outcome = await runAgentLoop({ run, model, maxSteps: 10 });
    expect(outcome).toMatchObject({ status: 'completed', steps: 7, text: 'done' });
    expect(env.calls()).toEqual([{ tool: 'add', arguments: { a: 1, b: 2 } }]);
    // after the batch the tools are gone: calling one now rejects the batch (unknown tool)
    await expect(run.executeBatch(batch(run, [call('late', py('add'), { a: 1, b: 1 })]))).rejects.toMatchObject({
      details: { reason: 'unknown_tool' },
    });
    expect(outcome.history.filter((m) => m.role === 'system').map((m) => (m as { text: string }).text)).toEqual([
      expect.stringMatching(/tools reloaded/),
      expect.stringMatching(/tools reloaded/),
    ]);
  });

  it('F4: a mount whose server is broken: refresh fails, the old tools still work, the model is told', async () => {
    env = await setup();
    await env.service.write({
      kind: 'mcp',
      reference: 'tools/broken',
      create: true,
      // Only the server that never answers gets a short handshake (its own config's): the healthy one keeps the
      // default, so a loaded machine never turns its slow start into a failure.
      data: { mcpServers: { b: { ...pythonConfig({ mode: 'hang' }), handshakeTimeoutMs: 800 } } },
    });
    await env.service.write({ kind: 'agent', reference: 'team/builder', create: true, data: { role: 'manager', mcps: ['tools/py'] } });
    const run = await NativeRun.start({
      agent: 'team/builder',
      service: env.service,
      policy: policies.autoAllow('*'),
      timeouts: { closeGraceMs: 200 },
    });
    runs.push(run);
    const model = new ScriptedModel([
      { toolCalls: [call('m', 'resource_write', { kind: 'agent', reference: 'team/builder', add: { mcps: ['tools/broken'] } })] },
      (input) => {
        const notice = input.history.find((m) => m.role === 'system');
        expect(notice).toMatchObject({
          text: expect.stringMatching(
            /^configuration saved, but loading failed: mount "tools\/broken" failed to load: the server did not answer initialize/,
          ),
        });
        return { toolCalls: [call('e', py('echo'), { message: 'old tools still work' })] };
      },
      (input) => {
        expect(lastResults(input)[0]).toMatchObject({ status: 'ok' });
        return { text: 'ok' };
      },
    ]);
    expect(await runAgentLoop({ run, model, maxSteps: 5 })).toMatchObject({ status: 'completed', steps: 3 });
  });

  it('G1, G3: without resource_management the framework tools are invisible and uncallable; a worker cannot call a tool it did not mount', async () => {
    env = await setup();
    await env.service.write({ kind: 'agent', reference: 'team/worker', create: true, data: { mcps: ['tools/other'] } });
    const run = await NativeRun.start({ agent: 'team/worker', service: env.service, policy: policies.autoAllow('*') });
    runs.push(run);
    const names = run.tools().map((t) => t.name);
    expect(names.filter((n) => n.startsWith('resource_') || n === 'mcp_probe' || n === 'agent_mcp_list')).toEqual([]);
    await expect(
      run.executeBatch(batch(run, [call('w', 'resource_write', { kind: 'agent', reference: 'team/worker', add: { mcps: ['tools/py'] } })])),
    ).rejects.toMatchObject({ details: { reason: 'unknown_tool' } });
    await expect(run.executeBatch(batch(run, [call('x', py('echo'), { message: 'not mine' })]))).rejects.toMatchObject({
      details: { reason: 'unknown_tool' },
    });
    expect(env.calls()).toEqual([]);
    expect(((await env.service.read({ kind: 'agent', reference: 'team/worker' })).data as { mcps: string[] }).mcps).toEqual([
      'tools/other',
    ]);
  });
});
