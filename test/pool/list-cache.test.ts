/**
 * E3: lists honour the server's ttlMs on 2026-07-28: a pool's shared tool list
 * is reused by the runs of a scope only while its ttl lasts, never after;
 * a list change invalidates it at once; hints are bounded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpPool, MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { cacheHints, MAX_LIST_TTL_MS } from '../../src/mcp/requests/lists.js';
import { PublicLists } from '../../src/pool/shared-lists.js';
import { batch, waitFor } from '../support/index.js';
import { startV2Http, type V2HttpServer } from '../mcp/fixtures/v2-server.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function handClock() {
  let now = 1_000_000;
  return { now: () => now, after: () => () => undefined, advance: (ms: number) => void (now += ms) };
}

async function setup(toolsTtlMs: number, toolsScope: 'public' | 'private' = 'private') {
  const server: V2HttpServer = await startV2Http({ legacy: 'reject', toolsTtlMs, toolsScope });
  cleanups.push(() => server.close());
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: server.url } } } });
  await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/v2'] } });
  const clock = handClock();
  const pool = new McpPool({ service, clock });
  cleanups.push(() => pool.close());
  const start = (scope = 's') => NativeRun.start({ agent: 'team/a', service, policy: policies.autoAllow('*'), pool, scope });
  const lists = () => server.methods.filter((m) => m === 'tools/list').length;
  return { server, clock, start, lists };
}

describe('E3: list caching by ttlMs (2026-07-28)', () => {
  it('E3: a pooled tool list is reused within its ttl and listed again after it', async () => {
    const { clock, start, lists } = await setup(60_000);
    await (await start()).close();
    const after = lists();
    clock.advance(59_000);
    await (await start()).close();
    expect(lists()).toBe(after); // within the ttl: reused
    clock.advance(1_001);
    await (await start()).close();
    expect(lists()).toBe(after + 1); // past it: listed again
  });

  it("E3: with ttlMs 0 (the SDK server default) no run reuses another run's list", async () => {
    const { start, lists } = await setup(0);
    await (await start()).close();
    const after = lists();
    await (await start()).close();
    expect(lists()).toBe(after + 1);
  });

  it('E3: a list change invalidates the pooled list at once, whatever its ttl', async () => {
    const { start, lists } = await setup(3_600_000);
    const run = await start();
    await run.executeBatch(batch(run, [{ callId: 'g', name: toolAlias('tools/v2', 'grow'), arguments: {} }]));
    await waitFor(() => run.staleMounts.length > 0); // the change reached the pooled connection
    await run.close();
    const before = lists();
    const next = await start();
    expect(lists()).toBe(before + 1);
    expect(next.snapshot.aliases).toContain(toolAlias('tools/v2', 'extra_1'));
    await next.close();
  });

  it('E3: a public list is shared by every scope of the pool within its ttl; a private one only within its own', async () => {
    const open = await setup(60_000, 'public');
    await (await open.start('alice')).close();
    const afterFirst = open.lists();
    await (await open.start('bob')).close(); // another scope: its own connection, the public list
    expect(open.lists()).toBe(afterFirst);
    open.clock.advance(60_001);
    await (await open.start('carol')).close();
    expect(open.lists()).toBe(afterFirst + 1); // past the ttl: listed again

    const closed = await setup(60_000, 'private');
    await (await closed.start('alice')).close();
    const afterPrivate = closed.lists();
    await (await closed.start('bob')).close();
    expect(closed.lists()).toBe(afterPrivate + 1);
  });

  it('E3: a public list expires, and an expired one nobody asks for again is dropped when another is kept', () => {
    const clock = handClock();
    const lists = new PublicLists(clock);
    lists.put('old-revision', 'old-revision', [], { ttlMs: 1000, cacheScope: 'public' });
    lists.put('private', 'private', [], { ttlMs: 1000, cacheScope: 'private' });
    expect(lists.get('private')).toBeUndefined();
    clock.advance(1000);
    expect(lists.size).toBe(1); // expired, but nobody read it
    lists.put('new-revision', 'new-revision', [], { ttlMs: 1000, cacheScope: 'public' });
    expect(lists.size).toBe(1);
    expect(lists.get('old-revision')).toBeUndefined();
    expect(lists.get('new-revision')).toMatchObject({ until: clock.now() + 1000 });
  });

  it('E3: hints are bounded: a missing, negative or huge ttl and an unknown scope are made safe', () => {
    expect(cacheHints({})).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(cacheHints({ ttlMs: -5, cacheScope: 'shared' })).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(cacheHints({ ttlMs: 1e300, cacheScope: 'public' })).toEqual({ ttlMs: MAX_LIST_TTL_MS, cacheScope: 'public' });
    expect(cacheHints({ ttlMs: Number.NaN })).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(cacheHints({ ttlMs: '60000' })).toEqual({ ttlMs: 0, cacheScope: 'private' });
  });
});

describe('E7: connections that differ in what they defer are never shared', () => {
  it('E7: in one scope, a run that defers elicitation and a run with none get their own connections, whichever starts first', async () => {
    for (const order of [
      ['defer', 'plain'],
      ['plain', 'defer'],
    ] as const) {
      const server: V2HttpServer = await startV2Http({ legacy: 'reject' });
      cleanups.push(() => server.close());
      const service = new ResourceService({ store: new MemoryStore() });
      await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: server.url } } } });
      await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/v2'] } });
      const pool = new McpPool({ service });
      cleanups.push(() => pool.close());
      const runs: Record<string, NativeRun> = {};
      for (const kind of order)
        runs[kind] = await NativeRun.start({
          agent: 'team/a',
          service,
          policy: policies.autoAllow('*'),
          pool,
          scope: 'tenant',
          ...(kind === 'defer' ? { elicitation: 'defer' as const } : {}),
        });
      expect(pool.stats().connections, order.join(' then ')).toBe(2);
      const ask = toolAlias('tools/v2', 'ask');
      const deferred = await runs.defer!.executeBatch(batch(runs.defer!, [{ callId: 'd', name: ask, arguments: { what: 'ship' } }]));
      expect(deferred.pending?.map((p) => p.waitingFor)).toEqual(['input']);
      const plain = await runs.plain!.executeBatch(batch(runs.plain!, [{ callId: 'p', name: ask, arguments: { what: 'ship' } }]));
      expect(plain.pending ?? []).toEqual([]);
      expect(plain.results.map((r) => r.status)).toEqual(['tool_failed']); // the server may not ask a client that declared no elicitation
      for (const run of Object.values(runs)) await run.close();
    }
  });
});

describe('E3: public lists and tenants', () => {
  it('E3: runs that bring their own credentials never share a public list; one pool-wide credential does; `publicLists: "any"` opts in', async () => {
    const server: V2HttpServer = await startV2Http({ legacy: 'reject', toolsTtlMs: 60_000, toolsScope: 'public' });
    cleanups.push(() => server.close());
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: server.url } } } });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/v2'] } });
    const lists = () => server.methods.filter((m) => m === 'tools/list').length;
    const open = async (options: { publicLists?: 'any'; poolAuth?: boolean }) => {
      const pool = new McpPool({
        service,
        ...(options.publicLists ? { publicLists: options.publicLists } : {}),
        ...(options.poolAuth ? { auth: { bearer: () => 'shared-token' } } : {}),
      });
      cleanups.push(() => pool.close());
      return async (scope: string, own: boolean) => {
        const run = await NativeRun.start({
          agent: 'team/a',
          service,
          policy: policies.autoAllow('*'),
          pool,
          scope,
          ...(own ? { auth: { bearer: () => `token-of-${scope}` } } : {}),
        });
        await run.close();
      };
    };
    // Each user's own credentials: each lists for itself.
    const perUser = await open({});
    await perUser('alice', true);
    const first = lists();
    await perUser('bob', true);
    expect(lists()).toBe(first + 1);
    // One credential the pool gives every scope: shared.
    const pooled = await open({ poolAuth: true });
    await pooled('alice', false);
    const second = lists();
    await pooled('bob', false);
    expect(lists()).toBe(second);
    // The host opts in: shared whatever the runs bring.
    const any = await open({ publicLists: 'any' });
    await any('alice', true);
    const third = lists();
    await any('bob', true);
    expect(lists()).toBe(third);
  });
});
