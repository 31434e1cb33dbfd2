/**
 * MCP Apps metadata: a tool's `_meta` and `execution` and a
 * result's `_meta` are kept; a tool whose `_meta.ui.visibility` leaves out the
 * model is not shown to it, and is called by its app (B1, U1).
 */
import { describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/index.js';
import { batch, py, pythonConfig, runFixture } from '../support/index.js';

const fx = runFixture(['apps']);

describe('MCP Apps metadata', () => {
  it('B1: listed tools keep _meta and execution as the server declared them', async () => {
    await using connection = await connectMcp(pythonConfig({ extra: ['--feature', 'apps'] }));
    const tools = await connection.listTools();
    expect(tools.find((t) => t.name === 'app_only')).toMatchObject({
      _meta: { ui: { visibility: ['app'], resourceUri: 'ui://fixture/widget' } },
      execution: { taskSupport: 'optional' },
    });
    expect((await connection.callTool('widget', {}))._meta).toEqual({ ui: { state: 'widget' } });
  });

  it('B1, U1: run.tools() leaves out app-only tools (with _meta for the rest); includeAppOnly lists them; their app calls one; results keep _meta', async () => {
    const run = await fx.start();
    const names = run.tools().map((t) => t.name);
    expect(names).toContain(py('widget'));
    expect(names).not.toContain(py('app_only'));
    expect(run.tools().find((t) => t.name === py('widget'))?._meta).toEqual({ ui: { resourceUri: 'ui://fixture/widget' } });
    expect(run.tools({ includeAppOnly: true }).map((t) => t.name)).toContain(py('app_only'));
    const fromApp = await run.callFromApp('app_only', {}, { from: py('widget'), batchId: 'from-app', callId: 'a' });
    const { results: own } = await run.executeBatch(batch(run, [{ callId: 'w', name: py('widget'), arguments: {} }]));
    const results = [...fromApp.results, ...own];
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(results.map((r) => (r as { _meta?: unknown })._meta)).toEqual([{ ui: { state: 'app_only' } }, { ui: { state: 'widget' } }]);
  });

  it("B3: after hooks see a result's _meta as the server sent it", async () => {
    const seen: unknown[] = [];
    const run = await fx.start({ hooks: { after: [(_call, result) => void seen.push((result as { _meta?: unknown })._meta)] } });
    await run.executeBatch(batch(run, [{ callId: 'w', name: py('widget'), arguments: {} }]));
    expect(seen).toEqual([{ ui: { state: 'widget' } }]);
  });
});
