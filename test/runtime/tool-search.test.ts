/**
 * Large tool sets (issue 27): with 300 tools mounted, the model sees
 * tool_search and what it loaded; a search loads its hits at the batch
 * boundary, never mid-batch (F2); a call to a deferred tool is validated and
 * reviewed like any call, never a batch rejection (B4); loads survive
 * suspend/resume without changing the fingerprint (B2).
 */
import { describe, expect, it } from 'vitest';
import { type AuditEvent, NativeRun, policies } from '../../src/index.js';
import { batch, py, runFixture } from '../support/index.js';

const fx = runFixture(['many']);
const names = (run: NativeRun) => run.tools().map((t) => t.name);
const search = (run: NativeRun, query: string, limit?: number) =>
  run.executeBatch(batch(run, [{ id: 's', name: 'tool_search', arguments: { query, ...(limit ? { limit } : {}) } }]));

describe('tool search over 300 tools', () => {
  it('B1: in auto mode the model sees tool_search and no deferred tool; mode off lists everything', async () => {
    const run = await fx.start();
    expect(names(run)).toEqual(['tool_search']);
    expect(run.snapshot.aliases).not.toContain('tool_search'); // not part of the snapshot: fingerprints stay as they were
    await run.close();
    const all = await fx.start({ toolSearch: { mode: 'off' } });
    expect(names(all).length).toBeGreaterThan(300);
    expect(names(all)).not.toContain('tool_search');
  });

  it('F2: a search loads its hits at the end of its batch; the next batch calls one (one batch of overhead)', async () => {
    const run = await fx.start();
    const found = await search(run, 'create an invoice');
    const result = found.results[0] as { structuredContent?: { tools: { name: string; mount: string }[] } };
    expect(result.structuredContent?.tools[0]).toMatchObject({ name: py('create_invoice'), mount: 'tools/py' });
    expect(found.toolsLoaded?.loaded).toContain(py('create_invoice'));
    expect(names(run)).toContain(py('create_invoice'));
    const call = await run.executeBatch(batch(run, [{ id: 'c', name: py('create_invoice'), arguments: {} }]));
    expect(call.results[0]).toMatchObject({ status: 'ok' });
  });

  it('B4: a call to a deferred tool never loaded is validated like any call: bad arguments get the schema issues, good ones run', async () => {
    const run = await fx.start();
    const bad = await run.executeBatch(batch(run, [{ id: 'b', name: py('delete_order'), arguments: {} }]));
    expect(bad.results[0]).toMatchObject({ status: 'invalid_arguments' });
    expect(fx.env.calls()).toEqual([]); // never reached the server
    const good = await run.executeBatch(batch(run, [{ id: 'g', name: py('delete_order'), arguments: { id: 'o-1' } }]));
    expect(good.results[0]).toMatchObject({ status: 'ok' });
  });

  it('F2: beyond maxLoadedTools the least recently used is unloaded, with a notice and an audit event', async () => {
    const events: AuditEvent[] = [];
    const run = await fx.start({ toolSearch: { maxLoadedTools: 2 }, audit: { record: (e) => void events.push(e) } });
    await search(run, 'refund', 1);
    await search(run, 'shipment', 1);
    const third = await search(run, 'warehouse', 1);
    expect(third.toolsLoaded?.unloaded).toHaveLength(1);
    expect(third.toolsLoaded?.message).toMatch(/unloaded \(least recently used\)/);
    expect(names(run).filter((n) => n !== 'tool_search')).toHaveLength(2);
    const loads = events.filter((e) => e.type === 'tools_loaded');
    expect(loads).toHaveLength(3);
    expect(JSON.stringify(loads)).not.toContain('warehouse"}'); // names only, never arguments
  });

  it('B2: suspend and resume keep the loaded tools and the fingerprint', async () => {
    const run = await fx.start();
    await search(run, 'create an invoice', 1);
    const state = await run.suspend();
    expect(state.loadedTools).toEqual([py('create_invoice')]);
    await run.close();
    const resumed = await NativeRun.resume(state, { service: fx.env.service, policy: policies.autoAllow('*') });
    fx.adopt(fx.env, resumed);
    expect(names(resumed)).toContain(py('create_invoice'));
    expect(resumed.snapshot.fingerprint).toBe(state.fingerprint);
  });

  it('B1: pinned tools are always shown; bad options fail the start', async () => {
    const run = await fx.start({ toolSearch: { pinned: [py('get_customer'), /list_order$/] } });
    expect(names(run).sort()).toEqual(['tool_search', py('get_customer'), py('list_order')].sort());
    await expect(fx.start({ toolSearch: { maxLoadedTools: 0 } })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { field: 'toolSearch.maxLoadedTools' },
    });
  });
});
