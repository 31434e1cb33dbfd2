/**
 * Large tool sets: with 300 tools mounted, the model sees
 * tool_search and what it loaded; a search loads its hits at the batch
 * boundary, never mid-batch (F2); a call to a deferred tool is validated and
 * reviewed like any call, never a batch rejection (B4); loads survive
 * suspend/resume without changing the fingerprint (B2).
 */
import { describe, expect, it } from 'vitest';
import { type AuditEvent, NativeRun, policies, toolAlias } from '../../../src/index.js';
import { aiSdkTools } from 'agt-mcp/ai-sdk';
import { toAnthropicTools } from 'agt-mcp/anthropic';
import { toOpenAITools } from 'agt-mcp/openai';
import { batch, py, referenceServer, runFixture, setup } from '../../support/index.js';

const fx = runFixture(['many']);
const names = (run: NativeRun) => run.tools().map((t) => t.name);
const search = (run: NativeRun, query: string, limit?: number) =>
  run.executeBatch(batch(run, [{ callId: 's', name: 'tool_search', arguments: { query, ...(limit ? { limit } : {}) } }]));

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
    const call = await run.executeBatch(batch(run, [{ callId: 'c', name: py('create_invoice'), arguments: {} }]));
    expect(call.results[0]).toMatchObject({ status: 'ok' });
  });

  it('B4: a call to a deferred tool never loaded is validated like any call: bad arguments get the schema issues, good ones run', async () => {
    const run = await fx.start();
    const bad = await run.executeBatch(batch(run, [{ callId: 'b', name: py('delete_order'), arguments: {} }]));
    expect(bad.results[0]).toMatchObject({ status: 'invalid_arguments' });
    expect(fx.env.calls()).toEqual([]); // never reached the server
    const good = await run.executeBatch(batch(run, [{ callId: 'g', name: py('delete_order'), arguments: { id: 'o-1' } }]));
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

  it('B1: each provider adapter gets the reduced list; after a search the next step sends the loaded tools too (OpenAI stays far below 128)', async () => {
    const run = await fx.start();
    expect(toOpenAITools(run.tools(), { api: 'chat' }).map((t) => t.function.name)).toEqual(['tool_search']);
    expect(toAnthropicTools(run.tools()).map((t) => t.name)).toEqual(['tool_search']);
    expect(Object.keys(aiSdkTools(run))).toEqual(['tool_search']);
    await search(run, 'invoice');
    const next = toOpenAITools(run.tools(), { api: 'chat' });
    expect(next.length).toBeGreaterThan(1);
    expect(next.length).toBeLessThanOrEqual(1 + 32);
    expect(Object.keys(aiSdkTools(run))).toContain(py('create_invoice')); // a ToolSet built again after the load
  });

  it('F2: one run over the 300-tool fixture, the Python server and server-everything: search, load at the boundary, call', async () => {
    const env = await setup({ features: ['many'] });
    const everything = { command: process.execPath, args: [referenceServer('everything'), 'stdio'], cwd: env.tmp.dir };
    await env.service.write({ kind: 'mcp', reference: 'tools/every', create: true, data: { mcpServers: { every: everything } } });
    await env.service.write({
      kind: 'agent',
      reference: 'team/all',
      create: true,
      data: { mcps: ['tools/py', 'tools/other', 'tools/every'] },
    });
    const run = await NativeRun.start({ agent: 'team/all', service: env.service, policy: policies.autoAllow('*') });
    fx.adopt(env, run);
    expect(names(run)).toEqual(['tool_search']);
    const found = await search(run, 'get a tiny image', 3);
    const image = toolAlias('tools/every', 'get-tiny-image');
    expect(found.toolsLoaded?.loaded).toContain(image);
    const call = await run.executeBatch(batch(run, [{ callId: 'i', name: image, arguments: {} }]));
    expect(call.results[0]).toMatchObject({ status: 'ok' });
  });

  it("B1: Anthropic's own defer_loading, opted into: every tool, the deferred ones marked, Anthropic's search instead of tool_search", async () => {
    const run = await fx.start();
    const all = run.tools({ includeDeferred: true });
    expect(all.length).toBeGreaterThan(300);
    expect(all.filter((t) => t.deferred !== true).map((t) => t.name)).toEqual(['tool_search']);
    const sent = toAnthropicTools(all, { deferLoading: true });
    expect(sent[0]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    expect(sent.some((t) => t.name === 'tool_search')).toBe(false);
    expect(sent.slice(1).every((t) => 'defer_loading' in t && t.defer_loading === true)).toBe(true);
    // A tool Anthropic found and the model called directly is validated and runs like any call.
    const call = await run.executeBatch(batch(run, [{ callId: 'a', name: py('get_refund'), arguments: { id: 'r-1' } }]));
    expect(call.results[0]).toMatchObject({ status: 'ok' });
    expect(toAnthropicTools(run.tools()).map((t) => t.name)).toEqual(['tool_search']); // without the opt-in: our own search
  });
});
