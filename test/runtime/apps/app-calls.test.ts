/**
 * MCP Apps on a run (U1, U3, U4, U5): the extension declared, app-only tools
 * never given to the model, interfaces marked on tools and results, and every
 * call an app makes a call of the run — validated, permitted (an approval
 * waits and is decided in any process), audited with `origin: 'app'` — with
 * the model's and the app's tools kept apart by visibility and server.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AuditEvent, connectMcp, policies, runAgentLoop, type ToolResult } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing/index.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { batch, failure, py, pythonConfig, REPO_ROOT, runFixture, tempDir } from '../../support/index.js';

const fx = runFixture(['apps']);
const gateTally = () => policies.chain(policies.approval(py('tally'), 'tallying needs a human'), policies.autoAllow('*'));
const from = py('widget');

describe('U1: what the model is given', () => {
  it('U1: a connection with apps: true declares io.modelcontextprotocol/ui with the app MIME type; without it, nothing', async () => {
    const tmp = tempDir('agt-apps-');
    try {
      const log = path.join(tmp.dir, 'init.log');
      const config = pythonConfig({ extra: ['--feature', 'apps', '--log-init', log] });
      await (await connectMcp(config, { apps: true })).close();
      await (await connectMcp(config)).close();
      const [withApps, without] = fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).capabilities);
      expect(withApps.extensions).toEqual({ 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } });
      expect(without.extensions).toBeUndefined();
    } finally {
      tmp.cleanup();
    }
  });

  it('U1: apps: true marks the tools with an interface; app-only tools are not given to the model; its ok results name the interface and mount', async () => {
    const run = await fx.start({ apps: true });
    const tools = run.tools();
    expect(tools.find((t) => t.name === from)).toMatchObject({
      app: { resourceUri: 'ui://fixture/widget' },
      mount: 'tools/py',
      remoteTool: 'widget',
    });
    expect(tools.map((t) => t.name)).not.toContain(py('app_only'));
    expect(tools.find((t) => t.name === py('model_only'))?.app).toBeUndefined();
    const { results } = await run.executeBatch(batch(run, [{ callId: 'w', name: from, arguments: {} }]));
    expect(results[0]).toMatchObject({ status: 'ok', app: { resourceUri: 'ui://fixture/widget', mount: 'tools/py' } });
  });

  it('U1: without apps, no tool or result is marked (the host renders nothing), and app-only tools are still kept from the model', async () => {
    const run = await fx.start();
    expect(run.tools().some((t) => t.app !== undefined)).toBe(false);
    expect(run.tools().map((t) => t.name)).not.toContain(py('app_only'));
    const { results } = await run.executeBatch(batch(run, [{ callId: 'w', name: from, arguments: {} }]));
    expect(results[0]).not.toHaveProperty('app');
  });

  it('U1: the model calling an app-only tool is refused (permission_denied) and the server never sees it', async () => {
    const run = await fx.start({ apps: true });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'a', name: py('app_only'), arguments: {} }]));
    expect(results[0]).toMatchObject({ status: 'permission_denied', error: { details: { reason: 'app_visibility' } } });
    expect(fx.env.calls()).toEqual([]);
  });
});

describe('U3: an app calls tools through the run', () => {
  it("U3: an app's call runs through the pipeline by the server's own name, audited with origin 'app' and the tool whose app asked", async () => {
    const audit: AuditEvent[] = [];
    const run = await fx.start({ apps: true, audit: { record: (e) => void audit.push(e) } });
    const out = await run.callFromApp('app_only', {}, { from, batchId: 'app-1', callId: 'c1' });
    expect(out.results).toEqual([expect.objectContaining({ callId: 'c1', status: 'ok' })]);
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['app_only']);
    expect(audit.filter((e) => e.type === 'tool_call')).toEqual([
      expect.objectContaining({ batchId: 'app-1', callId: 'c1', tool: py('app_only'), origin: 'app', from, status: 'ok' }),
    ]);
  });

  it("U3: a model-only tool and another server's tool are each refused to an app; neither reaches a server", async () => {
    const run = await fx.start({ apps: true }, { mcps: ['tools/py', 'tools/other'] });
    const other = run.tools().find((t) => t.name.includes('other') && t.name.endsWith('echo'))?.name as string;
    expect(other).toBeDefined();
    const refused = async (tool: string, args: Record<string, unknown>, batchId: string) =>
      (await run.callFromApp(tool, args, { from, batchId })).results[0];
    expect(await refused('model_only', {}, 'm')).toMatchObject({
      status: 'permission_denied',
      error: { details: { reason: 'app_visibility' } },
    });
    expect(await refused(other, { message: 'x' }, 'o')).toMatchObject({ status: 'permission_denied' });
    expect(fx.env.calls()).toEqual([]);
  });

  it('U3: a framework tool (tool_search) is refused to an app: permission_denied, nothing searched', async () => {
    const run = await fx.start({ apps: true, toolSearch: { mode: 'always' } });
    expect(run.tools().map((t) => t.name)).toContain('tool_search');
    const out = await run.callFromApp('tool_search', { query: 'tally' }, { from, batchId: 'framework' });
    expect(out.results[0]).toMatchObject({ status: 'permission_denied', error: { details: { reason: 'app_visibility' } } });
    expect(out.toolsLoaded).toBeUndefined();
  });

  it('U3: invalid arguments are invalid_arguments and never sent; a deny policy is permission_denied', async () => {
    const run = await fx.start({ apps: true, policy: policies.chain(policies.deny(py('widget')), policies.autoAllow('*')) });
    expect((await run.callFromApp('tally', { n: 'one' }, { from, batchId: 'bad' })).results[0]?.status).toBe('invalid_arguments');
    expect((await run.callFromApp('widget', {}, { from, batchId: 'denied' })).results[0]?.status).toBe('permission_denied');
    expect(fx.env.calls()).toEqual([]);
  });

  it('U3: the batch identity rules hold: a batch id used before is rejected, nothing runs', async () => {
    const run = await fx.start({ apps: true });
    await run.callFromApp('tally', { n: 1 }, { from, batchId: 'once' });
    expect((await failure(run.callFromApp('tally', { n: 2 }, { from, batchId: 'once' }))).code).toBe('batch_rejected');
    expect(fx.env.calls().map((c) => c.arguments)).toEqual([{ n: 1 }]);
  });

  it('U3: from must be a tool of the run with an interface', async () => {
    const run = await fx.start({ apps: true });
    expect((await failure(run.callFromApp('tally', { n: 1 }, { from: py('tally'), batchId: 'x' }))).code).toBe('not_found');
  });

  it('U3, U4: an approval waits; awaitCall gives its result once run.decide approves it, and it ran once', async () => {
    const run = await fx.start({ apps: true, policy: gateTally() });
    const out = await run.callFromApp('tally', { n: 41 }, { from, batchId: 'gated', callId: 'g1' });
    expect(out.results).toEqual([]);
    expect(out.pending).toEqual([
      expect.objectContaining({ callId: 'g1', waitingFor: 'approval', origin: 'app', from, arguments: { n: 41 } }),
    ]);
    const waited = run.awaitCall('gated', 'g1');
    expect(fx.env.calls()).toEqual([]); // nothing ran before the approval
    const decided = await run.decide('gated', { g1: { approve: true } });
    const result = (await waited) as Extract<ToolResult, { status: 'ok' }>;
    expect(result).toEqual(decided.results[0]);
    expect(result.content).toEqual([{ type: 'text', text: '42' }]);
    expect(fx.env.calls()).toEqual([{ tool: 'tally', arguments: { n: 41 } }]);
  });

  it('U3: awaitCall of a call that does not wait is not_found; closing the run ends a wait with connection_closed, leaving no waiter', async () => {
    const run = await fx.start({ apps: true, policy: gateTally() });
    expect((await failure(run.awaitCall('nope', 'x'))).code).toBe('not_found');
    await run.callFromApp('tally', { n: 1 }, { from, batchId: 'left', callId: 'l1' });
    const controller = new AbortController();
    const aborted = run.awaitCall('left', 'l1', { signal: controller.signal });
    controller.abort();
    expect((await failure(aborted)).code).toBe('cancelled');
    const waited = failure(run.awaitCall('left', 'l1'));
    await run.close();
    expect((await waited).code).toBe('connection_closed');
  });

  it("U3: an app's call deferred here is decided in another process (resumed from SQLite): it runs once there, audited as the app's", async () => {
    const run = await fx.start({ apps: true, policy: gateTally() });
    const file = path.join(fx.env.tmp.dir, 'runs.db');
    const store = new SqliteRunStore({ path: file });
    try {
      await run.callFromApp('tally', { n: 6 }, { from, batchId: 'elsewhere', callId: 'e1' });
      await run.suspend({ store });
      const document = (await fx.env.service.read({ kind: 'mcp', reference: 'tools/py' })).data;
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(REPO_ROOT, 'test/runtime/fixtures/decide-app-call.ts'),
          file,
          JSON.stringify(document),
          run.id,
          'elsewhere',
          'e1',
        ],
        { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let printed = '';
      child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      expect((await once(child, 'exit'))[0]).toBe(0);
      const out = JSON.parse(printed) as { pid: number; pending: unknown[]; results: ToolResult[]; audit: AuditEvent[] };
      expect(out.pid).not.toBe(process.pid);
      expect(out.pending).toEqual([{ callId: 'e1', origin: 'app', from }]);
      expect(out.results).toEqual([expect.objectContaining({ callId: 'e1', status: 'ok', content: [{ type: 'text', text: '7' }] })]);
      expect(out.audit).toEqual([
        expect.objectContaining({ callId: 'e1', origin: 'app', from, status: 'ok', decidedBy: expect.any(String) }),
      ]);
      expect(fx.env.calls()).toEqual([{ tool: 'tally', arguments: { n: 6 } }]);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('U5: what an app adds to the model context', () => {
  it('U5: ui/update-model-context is kept per app (the last wins), bounded, and given to the model once, at its next step', async () => {
    const run = await fx.start({ apps: true });
    run.updateAppContext(from, { content: [{ type: 'text', text: 'first' }] });
    run.updateAppContext(from, { content: [{ type: 'text', text: 'counter is \u001b[31m3' }], structuredContent: { count: 3 } });
    expect(() => run.updateAppContext(from, { content: [{ type: 'text', text: 'x'.repeat(17 * 1024) }] })).toThrow(
      expect.objectContaining({ code: 'invalid_input' }),
    );
    expect(() => run.updateAppContext(py('tally'), { content: [] })).toThrow(expect.objectContaining({ code: 'not_found' }));
    const model = new ScriptedModel([{ text: 'noted' }, { text: 'again' }]);
    await runAgentLoop({ run, model, maxSteps: 1 });
    const given = model.inputs[0]!.history.filter((m) => m.role === 'system');
    expect(given).toHaveLength(1);
    const text = (given[0] as { text: string }).text;
    expect(text).toContain('counter is \\x1b[31m3');
    expect(text).toContain('{"count":3}');
    expect(text).not.toContain('first');
    expect(run.takeAppContext()).toBeUndefined(); // given once
  });
});
