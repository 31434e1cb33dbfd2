/**
 * A run's side of the rest of the MCP client, with the Python fixture server:
 * the start of every batch is a boundary and `run.refresh()` applies list
 * changes at once (F1–F4); a batch deadline (batchTimeoutMs); the run's
 * mount-level requests and notification hooks, told the run and mount (G3);
 * a keepalive ping that ends a deaf server; capabilities declared alike by
 * probes and runs (P2).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  connectMcp,
  type McpLogMessage,
  McpPool,
  McpProber,
  NativeRun,
  policies,
  type RunNotificationContext,
  toolAlias,
} from '../../src/index.js';
import { batch, failure, py, pythonConfig, referenceServer, runFixture, setup, tempDir } from '../support/index.js';

const fx = runFixture(['list-changed', 'slow', 'logs']);
const names = (run: { tools(): { name: string }[] }) => run.tools().map((t) => t.name);

describe('the start of every batch is a boundary', () => {
  it('F1: a list_changed that arrives between batches is applied before the next batch: its new tool can be called in it', async () => {
    const run = await fx.start();
    const first = await run.executeBatch(batch(run, [{ callId: 'g', name: py('grow'), arguments: { name: 'late_one', later: 1000 } }])); // 1 s: a loaded machine once took over 50 ms to end the batch
    expect(first.refresh).toBeUndefined(); // announced after the batch ended
    await vi.waitFor(() => expect(run.staleMounts).toEqual(['tools/py']), { timeout: 10_000, interval: 20 });
    expect(names(run)).not.toContain(py('late_one'));
    const second = await run.executeBatch(batch(run, [{ callId: 'l', name: py('late_one'), arguments: {} }]));
    expect(second.results[0]).toMatchObject({ status: 'ok' });
    expect(second.refresh).toMatchObject({ status: 'applied', trigger: 'list_changed' });
    expect(names(run)).toContain(py('late_one'));
  });

  it('F1: a batch rejected at stage 1 is a boundary too: the tools are current after it', async () => {
    const run = await fx.start();
    await run.executeBatch(batch(run, [{ callId: 'g', name: py('grow'), arguments: { name: 'late_two', later: 1000 } }])); // after the batch's end, as above
    await vi.waitFor(() => expect(run.staleMounts).toEqual(['tools/py']), { timeout: 10_000, interval: 20 });
    await expect(run.executeBatch(batch(run, [{ callId: 'x', name: py('no_such_tool'), arguments: {} }]))).rejects.toMatchObject({
      code: 'batch_rejected',
    });
    expect(run.staleMounts).toEqual([]);
    expect(names(run)).toContain(py('late_two'));
  });

  it('F1: run.refresh() applies announced changes now, so tools() is current before the model is asked; nothing to do: undefined', async () => {
    const run = await fx.start();
    expect(await run.refresh()).toBeUndefined();
    await run.executeBatch(batch(run, [{ callId: 'g', name: py('grow'), arguments: { name: 'late_three', later: 1000 } }])); // after the batch's end, as above
    await vi.waitFor(() => expect(run.staleMounts).toEqual(['tools/py']), { timeout: 10_000, interval: 20 });
    expect(await run.refresh()).toMatchObject({ status: 'applied', trigger: 'list_changed' });
    expect(names(run)).toContain(py('late_three'));
    expect(await run.refresh()).toBeUndefined();
  });

  it('F2: a refresh asked for while a batch runs does nothing; the batch keeps its snapshot and its end applies the change', async () => {
    const run = await fx.start();
    const running = run.executeBatch(
      batch(run, [
        { callId: 'g', name: py('grow'), arguments: { name: 'late_four', later: 50 } },
        { callId: 's', name: py('sleep'), arguments: { ms: 1500 } },
      ]),
    );
    await vi.waitFor(() => expect(run.staleMounts).toEqual(['tools/py']), { timeout: 10_000, interval: 20 });
    expect(await run.refresh()).toBeUndefined();
    expect(names(run)).not.toContain(py('late_four'));
    const done = await running;
    expect(done.results.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(done.refresh).toMatchObject({ status: 'applied', trigger: 'list_changed' });
    expect(names(run)).toContain(py('late_four'));
  });
});

describe('batchTimeoutMs (B3)', () => {
  it('B3: calls still running at the batch deadline end as call_timeout and the servers are told; the finished ones keep their results', async () => {
    const run = await fx.start({ batchTimeoutMs: 1500, concurrency: 4 });
    const calls = [
      { callId: 'quick', name: py('echo'), arguments: { message: 'fast' } },
      ...Array.from({ length: 3 }, (_, i) => ({ callId: `slow${i}`, name: py('never'), arguments: {} })),
    ];
    const { results } = await run.executeBatch(batch(run, calls));
    expect(results[0]).toMatchObject({ status: 'ok' });
    for (const r of results.slice(1))
      expect(r).toMatchObject({ status: 'tool_failed', error: { code: 'call_timeout', details: { reason: 'batch_timeout' } } });
    await run.close();
    expect(fx.env.serverEvents().filter((e) => e.event === 'cancelled')).toHaveLength(3);
  });

  it('B3: a bad batchTimeoutMs fails the start with invalid_input', async () => {
    await expect(fx.start({ batchTimeoutMs: -1 })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'batchTimeoutMs' } });
  });
});

describe("a run's mount-level requests and notification hooks (G3)", () => {
  it("G3: onLog is told the run and mount; setLogLevel and ping go to the run's own mounts only", async () => {
    const logs: [McpLogMessage, RunNotificationContext][] = [];
    const run = await fx.start({ onLog: (message, context) => logs.push([message, context]) });
    await run.setLogLevel('tools/py', 'debug');
    await vi.waitFor(() => expect(logs.map(([m]) => m.data)).toContain('level set'), { timeout: 10_000, interval: 20 });
    expect(logs[logs.length - 1]?.[1]).toEqual({ runId: run.id, agent: 'team/alice', mount: 'tools/py' });
    expect(fx.env.serverEvents().filter((e) => e.event === 'log_level')).toEqual([{ event: 'log_level', level: 'debug' }]);
    expect(await run.ping('tools/py')).toBeGreaterThanOrEqual(0);
    await expect(run.ping('tools/other')).rejects.toMatchObject({ code: 'not_found' });
    expect(run.instructions()).toEqual({}); // the fixture gives none
  });

  it('G3: a run declares roots answered with its context; a server that declares no subscriptions refuses subscribeResource', async () => {
    const asked: string[] = [];
    const run = await fx.start({
      roots: (context) => {
        asked.push(context.mount);
        return [{ uri: 'file:///work/a' }];
      },
    });
    await expect(run.subscribeResource('tools/py', 'file:///x')).rejects.toMatchObject({
      code: 'protocol_error',
      details: { reason: 'capability_not_declared' },
    });
    expect((await run.complete('tools/py', { type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })).values).toEqual([]);
    await run.rootsChanged(); // declared: the notification goes out (the fixture ignores it)
    expect(asked).toEqual([]); // the fixture never asks; the handler is only told when asked
  });
});

describe('keepalive and declared capabilities', () => {
  it('P2: a server deaf to pings is ended by the keepalive; the next call fails at once with connection_closed (ping_timeout)', async () => {
    await using connection = await connectMcp(pythonConfig({ extra: ['--feature', 'slow'] }), { pingIntervalMs: 200 });
    await connection.callTool('mute', {});
    await vi.waitFor(() => expect(connection.closed).toBe(true), { timeout: 20_000, interval: 50 });
    const f = await failure(connection.callTool('echo', { message: 'x' }));
    expect(f).toMatchObject({ code: 'connection_closed', details: { reason: 'ping_timeout' } });
  });

  it('P2: sampling.tools, URL elicitation and roots are declared alike by a probe and a run with the same handlers', async () => {
    const tmp = tempDir('agt-caps-');
    const init = path.join(tmp.dir, 'init.log');
    const handlers = {
      sampling: async () => ({ role: 'assistant' as const, model: 'm', content: { type: 'text', text: 'x' } }),
      samplingTools: true,
      elicitation: async () => ({ action: 'decline' as const }),
      elicitationModes: ['url'] as const,
      roots: [{ uri: 'file:///work' }],
    };
    const env = await setup();
    await env.service.write({
      kind: 'mcp',
      reference: 'tools/caps',
      create: true,
      data: { mcpServers: { caps: pythonConfig({ extra: ['--log-init', init] }) } },
    });
    await env.service.write({ kind: 'agent', reference: 'team/caps', create: true, data: { mcps: ['tools/caps'] } });
    const run = await NativeRun.start({ agent: 'team/caps', service: env.service, policy: policies.autoAllow('*'), ...handlers });
    fx.adopt(env, run);
    await new McpProber({ service: env.service, ...handlers }).probe('tools/caps');
    const declared = fs
      .readFileSync(init, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).capabilities);
    expect(declared).toHaveLength(2);
    expect(declared[0]).toEqual({ sampling: { tools: {} }, elicitation: { url: {} }, roots: { listChanged: true } });
    expect(declared[1]).toEqual(declared[0]);
    tmp.cleanup();
  });

  it("P2: a pooled connection answers roots/list with the pool's roots, never one run's", async () => {
    const env = await setup();
    const everything = { command: process.execPath, args: [referenceServer('everything'), 'stdio'], cwd: env.tmp.dir };
    await env.service.write({ kind: 'mcp', reference: 'tools/every', create: true, data: { mcpServers: { every: everything } } });
    await env.service.write({ kind: 'agent', reference: 'team/caps', create: true, data: { mcps: ['tools/every'] } });
    await using pool = new McpPool({ service: env.service, roots: [{ uri: 'file:///srv/tenant' }] });
    const run = await NativeRun.start({
      agent: 'team/caps',
      service: env.service,
      policy: policies.autoAllow('*'),
      pool,
      scope: 't',
      roots: () => [{ uri: 'file:///home/one-user' }],
    });
    fx.adopt(env, run);
    await run.refresh(); // server-everything adds get-roots-list once it knows the client declares roots
    const call = { callId: 'r', name: toolAlias('tools/every', 'get-roots-list'), arguments: {} };
    const { results } = await run.executeBatch(batch(run, [call]));
    const text = JSON.stringify(results[0]);
    expect(text).toContain('file:///srv/tenant');
    expect(text).not.toContain('one-user');
    await run.close();
  });
});
