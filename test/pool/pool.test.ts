/**
 * McpPool: runs lease their mounts' connections from a
 * pool, shared only within a scope; real Python server processes, counted by
 * their marker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpPool, MemoryStore, NativeRun, policies, ResourceService, type RunRequestContext, toolAlias } from '../../src/index.js';
import { type PoolEvent } from '../../src/adapters.js';
import { startAuthCheckingServer } from '../support/http-server.js';
import { livingWithMarker, marker, PYTHON_SERVER, pythonConfig, readEvents, tempDir, waitFor } from '../support/index.js';
import type { StdioServerConfig } from '../../src/config/mcp-config.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function registry(options: { features?: string[]; shared?: boolean } = {}) {
  const mark = marker();
  const dir = tempDir('agt-pool-');
  cleanups.push(async () => dir.cleanup());
  const log = path.join(dir.dir, 'calls.log');
  const events = path.join(dir.dir, 'events.log');
  const service = new ResourceService({ store: new MemoryStore() });
  const extra = ['--log', log, '--events', events, ...(options.features ?? []).flatMap((f) => ['--feature', f])];
  const config = { ...pythonConfig({ mark, extra }), ...(options.shared === undefined ? {} : { shared: options.shared }) };
  await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: config } } });
  for (const agent of ['team/alice', 'team/bob'])
    await service.write({ kind: 'agent', reference: agent, create: true, data: { mcps: ['tools/py'] } });
  return { service, mark, log, dir: dir.dir, lists: () => readEvents(events).filter((e) => e.method === 'tools/list').length };
}

/** A clock the test moves by hand: timers fire when `advance` passes them. */
function manualClock() {
  let now = 1_000_000;
  const timers: { at: number; callback: () => void; done: boolean }[] = [];
  return {
    now: () => now,
    after(ms: number, callback: () => void) {
      const timer = { at: now + ms, callback, done: false };
      timers.push(timer);
      return () => void (timer.done = true);
    },
    advance(ms: number) {
      now += ms;
      for (const t of timers.filter((t) => !t.done && t.at <= now)) {
        t.done = true;
        t.callback();
      }
    },
  };
}

const calls = (log: string, tool: string) => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split(`"${tool}"`).length - 1 : 0);

function pool(service: ResourceService, options: Partial<ConstructorParameters<typeof McpPool>[0]> = {}) {
  const p = new McpPool({ service, ...options });
  cleanups.push(() => p.close());
  return p;
}

async function start(service: ResourceService, options: Partial<Parameters<typeof NativeRun.start>[0]> = {}) {
  const run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*'), ...options });
  cleanups.push(() => run.close());
  return run;
}

const echo = (run: NativeRun, callId: string) =>
  run.executeBatch({
    runId: run.id,
    agent: run.agent,
    batchId: `b-${callId}`,
    calls: [{ callId, name: toolAlias('tools/py', 'echo'), arguments: { message: callId } }],
  });

describe('McpPool', () => {
  it('B1: runs of one scope share one server process; another scope, or no scope, never reaches it', async () => {
    const { service, mark } = await registry();
    const p = pool(service);
    const a = await start(service, { pool: p, scope: 'tenant-1' });
    const b = await start(service, { agent: 'team/bob', pool: p, scope: 'tenant-1' });
    expect(livingWithMarker(mark)).toHaveLength(1);
    expect((await echo(a, 'a1')).results[0]?.status).toBe('ok');
    expect((await echo(b, 'b1')).results[0]?.status).toBe('ok');
    const other = await start(service, { pool: p, scope: 'tenant-2' });
    const unscoped = await start(service, { pool: p }); // default scope: the run itself
    expect((await echo(other, 'o1')).results[0]?.status).toBe('ok');
    expect(livingWithMarker(mark)).toHaveLength(3);
    expect(p.stats()).toMatchObject({ connections: 3, leases: 4 });
    expect(
      p
        .stats()
        .keys.map((k) => k.scope)
        .sort(),
    ).toEqual([unscoped.id, 'tenant-1', 'tenant-2'].sort());
    await p.close({ drainMs: 0 }); // no waiting for the four leases: their connections close now
    await waitFor(() => livingWithMarker(mark).length === 0);
  });

  it('B1: 50 runs started at once in one scope start the server once; closing them keeps it warm, pool.close() ends it', async () => {
    const { service, mark } = await registry();
    const p = pool(service, { idleMs: 60_000 });
    const runs = await Promise.all(Array.from({ length: 50 }, () => start(service, { pool: p, scope: 'shared' })));
    expect(livingWithMarker(mark)).toHaveLength(1);
    expect(p.stats().keys).toEqual([expect.objectContaining({ starts: 1, leases: 50, state: 'open' })]);
    await Promise.all(runs.map((r) => r.close()));
    expect(p.stats().keys).toEqual([expect.objectContaining({ leases: 0, state: 'idle' })]);
    expect(livingWithMarker(mark)).toHaveLength(1); // warm for the next run
    const again = await start(service, { pool: p, scope: 'shared' });
    expect(p.stats().keys[0]).toMatchObject({ starts: 1, leases: 1 });
    await again.close();
    await p.close();
    await waitFor(() => livingWithMarker(mark).length === 0);
  });

  it('B1: an idle connection closes after idleMs (an injected clock); beyond maxConnections the least recently used idle one closes', async () => {
    const { service, mark } = await registry();
    const clock = manualClock();
    const p = pool(service, { idleMs: 60_000, clock });
    const run = await start(service, { pool: p, scope: 's' });
    await run.close();
    clock.advance(59_999);
    expect(p.stats().keys.map((k) => k.state)).toEqual(['idle']); // not a millisecond early
    clock.advance(1);
    await waitFor(() => p.stats().connections === 0 && livingWithMarker(mark).length === 0);
    const evicted: PoolEvent[] = [];
    const lru = pool(service, { maxConnections: 2, clock, audit: { record: (e) => void (e.action === 'evicted' && evicted.push(e)) } });
    const [r1, r2, r3] = [
      await start(service, { pool: lru, scope: 'x1' }),
      await start(service, { pool: lru, scope: 'x2' }),
      await start(service, { pool: lru, scope: 'x3' }),
    ];
    expect(lru.stats().connections).toBe(3); // all leased: none is closed
    await r1!.close();
    clock.advance(10);
    await r2!.close(); // now x1 and x2 are idle; the one idle longest (x1) goes
    expect(
      lru
        .stats()
        .keys.map((k) => k.scope)
        .sort(),
    ).toEqual(['x2', 'x3']);
    expect(evicted.map((e) => e.scope)).toEqual(['x1']);
    await r3!.close();
  });

  it('B1: a config with "shared": false gives every run its own connection, even within one scope', async () => {
    const { service, mark } = await registry({ shared: false });
    const p = pool(service);
    await start(service, { pool: p, scope: 'tenant-1' });
    await start(service, { agent: 'team/bob', pool: p, scope: 'tenant-1' });
    expect(livingWithMarker(mark)).toHaveLength(2);
  });

  it("G3: a server's elicitation on a shared connection reaches only the run whose call is in flight", async () => {
    const { service } = await registry({ features: ['elicit'] });
    const p = pool(service);
    const asked: string[] = [];
    const handler = (who: string) => async (_request: unknown, context: RunRequestContext) => {
      asked.push(`${who}:${context.callIds.join(',')}`);
      return { action: 'accept' as const, content: { answer: who } };
    };
    const a = await start(service, { pool: p, scope: 't', elicitation: handler('alice') });
    const b = await start(service, { agent: 'team/bob', pool: p, scope: 't', elicitation: handler('bob') });
    expect(p.stats().connections).toBe(1);
    const ask = (run: NativeRun, callId: string) =>
      run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: `b-${callId}`,
        calls: [{ callId, name: toolAlias('tools/py', 'ask'), arguments: { question: 'ok?' } }],
      });
    expect((await ask(b, 'bob-1')).results[0]).toMatchObject({ status: 'ok', structuredContent: { content: { answer: 'bob' } } });
    expect((await ask(a, 'alice-1')).results[0]).toMatchObject({ status: 'ok', structuredContent: { content: { answer: 'alice' } } });
    expect(asked).toEqual(['bob:bob-1', 'alice:alice-1']);
  });

  it('G3: while calls of two runs are in flight on a shared connection, an elicitation reaches neither user: it is declined to the server', async () => {
    const { service, log } = await registry({ features: ['elicit', 'slow'] });
    const declined: PoolEvent[] = [];
    const p = pool(service, { audit: { record: (e) => void (e.action === 'request_declined' && declined.push(e)) } });
    const asked: string[] = [];
    const handler = (who: string) => async () => {
      asked.push(who);
      return { action: 'accept' as const, content: { answer: who } };
    };
    const a = await start(service, { pool: p, scope: 't', elicitation: handler('alice') });
    const b = await start(service, { agent: 'team/bob', pool: p, scope: 't', elicitation: handler('bob') });
    const stop = new AbortController();
    const waiting = b.executeBatch(
      { runId: b.id, agent: b.agent, batchId: 'b-never', calls: [{ callId: 'n', name: toolAlias('tools/py', 'never'), arguments: {} }] },
      { signal: stop.signal },
    );
    await waitFor(() => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('"never"')); // bob's call reached the server
    const { results } = await a.executeBatch({
      runId: a.id,
      agent: a.agent,
      batchId: 'b-ask',
      calls: [{ callId: 'q', name: toolAlias('tools/py', 'ask'), arguments: { question: 'whose?' } }],
    });
    expect(results[0]).toMatchObject({ status: 'tool_error', error: { code: 'client_refused' } });
    expect(asked).toEqual([]);
    expect(declined.map((e) => e.request)).toEqual(['elicitation']); // audited, without the question
    stop.abort();
    expect((await waiting).results[0]).toMatchObject({ error: { code: 'cancelled' } });
  });

  it('F1: the tool list a pool shares is listed once per connection, and again after the server announces a tools change', async () => {
    const { service, mark } = await registry({ features: ['list-changed'] });
    const p = pool(service);
    const a = await start(service, { pool: p, scope: 't' });
    const grown = toolAlias('tools/py', 'fresh_tool');
    expect(a.tools().map((t) => t.name)).not.toContain(grown);
    const out = await a.executeBatch({
      runId: a.id,
      agent: a.agent,
      batchId: 'g',
      calls: [{ callId: 'g', name: toolAlias('tools/py', 'grow'), arguments: { name: 'fresh_tool' } }],
    });
    expect(out.refresh?.status).toBe('applied'); // the run that saw the change relisted at its batch boundary
    const b = await start(service, { agent: 'team/bob', pool: p, scope: 't' });
    expect(b.tools().map((t) => t.name)).toContain(grown); // a later lease does not get the stale list
    expect(livingWithMarker(mark)).toHaveLength(1);
  });

  it('B1: a pooled server killed with SIGKILL is started again at the next batch start (F1: a boundary); the run on it never crashes', async () => {
    const { service, mark } = await registry();
    const p = pool(service);
    const a = await start(service, { pool: p, scope: 't' });
    const [pid] = livingWithMarker(mark);
    process.kill(pid as number, 'SIGKILL');
    await waitFor(() => p.stats().keys[0]?.state === 'closed');
    const after = await echo(a, 'after-kill');
    expect(after.results[0]).toMatchObject({ status: 'ok' });
    expect(after.refresh).toMatchObject({ status: 'applied', trigger: 'reconnect' });
    const b = await start(service, { agent: 'team/bob', pool: p, scope: 't' });
    expect((await echo(b, 'b1')).results[0]?.status).toBe('ok');
    expect(p.stats().keys[0]).toMatchObject({ starts: 2, restarts: 1, state: 'open' });
    expect(livingWithMarker(mark)).toHaveLength(1);
  });

  it('B1: a server that fails to start 3 times in a row fails fast with server_unavailable until the cool-down ends', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const missing = { command: '/nonexistent/agt-pool-server', cwd: '/' };
    await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: missing } } });
    await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    const events: PoolEvent[] = [];
    const clock = manualClock();
    const p = pool(service, { breaker: { failures: 3, coolDownMs: 60_000 }, clock, audit: { record: (e) => void events.push(e) } });
    for (let i = 0; i < 3; i++) await expect(start(service, { pool: p, scope: 't' })).rejects.toMatchObject({ code: 'spawn_failed' });
    await expect(start(service, { pool: p, scope: 't' })).rejects.toMatchObject({
      code: 'server_unavailable',
      details: { failures: 3, lastErrorCode: 'spawn_failed' },
    });
    expect(p.stats().keys).toEqual([expect.objectContaining({ state: 'unavailable', starts: 3, leases: 0 })]);
    // Each start after a failed one waited (backoff); the audit saw every failure and the breaker open, with codes only.
    expect(events.map((e) => [e.action, e.code])).toEqual([
      ['start_failed', 'spawn_failed'],
      ['start_failed', 'spawn_failed'],
      ['start_failed', 'spawn_failed'],
      ['breaker_open', 'spawn_failed'],
    ]);
    clock.advance(60_000); // the cool-down is over: the next lease tries to start it again
    await expect(start(service, { pool: p, scope: 't' })).rejects.toMatchObject({ code: 'spawn_failed' });
  });

  it('F6: a config update makes a new key; the run on the old revision keeps its connection, which closes with its last lease', async () => {
    const { service, mark } = await registry();
    const p = pool(service, { idleMs: 60_000 });
    const old = await start(service, { pool: p, scope: 't' });
    const record = await service.read({ kind: 'mcp', reference: 'tools/py' });
    const data = record.data as { mcpServers: { py: StdioServerConfig & { args: string[] } } };
    data.mcpServers.py.args.push('--name', 'py-v2');
    await service.write({ kind: 'mcp', reference: 'tools/py', data, expectedRevision: record.revision });
    const fresh = await start(service, { agent: 'team/bob', pool: p, scope: 't' });
    expect(livingWithMarker(mark)).toHaveLength(2); // each revision its own server
    expect((await echo(old, 'old')).results[0]?.status).toBe('ok'); // the old run keeps its connection
    await old.close();
    await waitFor(() => livingWithMarker(mark).length === 1); // closed with its last lease, not after idleMs
    expect(p.stats().keys.map((k) => [k.state, k.leases])).toEqual([['open', 1]]);
    await fresh.close();
  });

  it('B1: without a pool nothing changes: each run starts and ends its own server', async () => {
    const { service, mark } = await registry();
    const a = await start(service);
    const b = await start(service, { agent: 'team/bob' });
    expect(livingWithMarker(mark)).toHaveLength(2);
    await a.close();
    await b.close();
    await waitFor(() => livingWithMarker(mark).length === 0);
  });
  it('B5: kill -9 of a pooled server mid-batch with 10 runs on it: their calls fail with connection_closed, each run rebinds at its next batch start to one restarted server', async () => {
    const { service, mark, log } = await registry({ features: ['slow'] });
    const events: PoolEvent[] = [];
    const p = pool(service, { audit: { record: (e) => void events.push(e) } });
    const runs = await Promise.all(Array.from({ length: 10 }, () => start(service, { pool: p, scope: 't' })));
    const batches = runs.map((r, i) =>
      r.executeBatch({
        runId: r.id,
        agent: r.agent,
        batchId: 'b-never',
        calls: [{ callId: `n${i}`, name: toolAlias('tools/py', 'never'), arguments: {} }],
      }),
    );
    await waitFor(() => calls(log, 'never') === 10); // every run has its call in flight on the one server
    const [pid] = livingWithMarker(mark);
    process.kill(pid as number, 'SIGKILL');
    const outcomes = await Promise.all(batches);
    for (const out of outcomes) expect(out.results[0]).toMatchObject({ status: 'tool_failed', error: { code: 'connection_closed' } });
    // Each run rebinds at the start of its next batch (F1: a boundary), and that batch runs on the restarted server.
    const again = await Promise.all(runs.map((r, i) => echo(r, `again-${i}`)));
    for (const out of again) {
      expect(out.results[0]?.status).toBe('ok');
      expect(out.refresh).toMatchObject({ status: 'applied', trigger: 'reconnect' });
    }
    expect(livingWithMarker(mark)).toHaveLength(1); // one restart for the ten runs
    expect(p.stats().keys).toEqual([expect.objectContaining({ starts: 2, restarts: 1, leases: 10, state: 'open' })]);
    expect(events.map((e) => [e.action, e.reason])).toEqual([
      ['started', undefined],
      ['closed', 'died'],
      ['restarted', undefined],
    ]);
    expect(JSON.stringify(events)).not.toContain(PYTHON_SERVER); // no launch values, only names and a key hash
  });

  it("B5: when the restart fails, the old tools stay listed and their calls fail with the restart's code; a repeat is not news", async () => {
    const { service, mark, dir } = await registry();
    const flag = path.join(dir, 'started-once');
    const once = `if [ -e '${flag}' ]; then echo 'refusing a second start' >&2; exit 3; fi; touch '${flag}'; exec python3 '${PYTHON_SERVER}' --marker ${mark}`;
    const record = await service.read({ kind: 'mcp', reference: 'tools/py' });
    await service.write({
      kind: 'mcp',
      reference: 'tools/py',
      data: { mcpServers: { py: { command: 'sh', args: ['-c', once], cwd: dir } } },
      expectedRevision: record.revision,
    });
    const p = pool(service, { breaker: { failures: 3, coolDownMs: 60_000, backoffMs: 1 } });
    const a = await start(service, { pool: p, scope: 't' });
    const tools = a.tools().map((t) => t.name);
    process.kill(livingWithMarker(mark)[0] as number, 'SIGKILL');
    await waitFor(() => p.stats().keys[0]?.state === 'closed');
    const first = await echo(a, 'e1'); // the restart at its start failed: its calls fail with the restart's code
    expect(first.results[0]).toMatchObject({ error: { code: 'exited_early' } });
    expect(first.refresh).toMatchObject({
      status: 'failed',
      trigger: 'reconnect',
      message: expect.stringMatching(/could not be started again/),
    });
    expect(a.tools().map((t) => t.name)).toEqual(tools); // the old tools stay listed
    const second = await echo(a, 'e2');
    expect(second.results[0]).toMatchObject({ status: 'tool_failed', error: { code: 'exited_early' } });
    expect(second.refresh).toBeUndefined(); // the same failure again is not told twice
    expect((await echo(a, 'e3')).refresh).toBeUndefined(); // its third failed start opens the breaker, with the same code
    const fourth = await echo(a, 'e4'); // now the lease fails fast: that is news
    expect(fourth.refresh).toMatchObject({ status: 'failed', message: expect.stringMatching(/failed to start 3 times/) });
    expect((await echo(a, 'e5')).results[0]).toMatchObject({ error: { code: 'server_unavailable' } });
    expect(p.stats().keys[0]).toMatchObject({ state: 'unavailable', starts: 4, lastErrorCode: 'exited_early' });
  });

  it('F2: a tools list_changed on a shared connection is relisted once for all its runs, each swapping at its own boundary', async () => {
    const { service, lists } = await registry({ features: ['list-changed'] });
    const p = pool(service);
    const runs = await Promise.all(Array.from({ length: 5 }, () => start(service, { pool: p, scope: 't' })));
    expect(lists()).toBe(1); // listed once when the connection started
    const [a, ...others] = runs as [NativeRun, ...NativeRun[]];
    const grown = toolAlias('tools/py', 'shared_tool');
    const out = await a.executeBatch({
      runId: a.id,
      agent: a.agent,
      batchId: 'g',
      calls: [{ callId: 'g', name: toolAlias('tools/py', 'grow'), arguments: { name: 'shared_tool' } }],
    });
    expect(out.refresh?.status).toBe('applied');
    for (const r of others) {
      expect(r.tools().map((t) => t.name)).not.toContain(grown); // F2: not until its own boundary
      expect((await echo(r, `after-${r.id}`)).refresh?.status).toBe('applied');
      expect(r.tools().map((t) => t.name)).toContain(grown);
    }
    expect(lists()).toBe(2); // once more for the five runs
  });
  it("B5: cancelling one run's call on a shared connection never touches another run's call", async () => {
    const { service, log } = await registry({ features: ['slow'] });
    const p = pool(service);
    const a = await start(service, { pool: p, scope: 't' });
    const b = await start(service, { agent: 'team/bob', pool: p, scope: 't' });
    const stop = new AbortController();
    const sleep = (run: NativeRun, callId: string, ms: number, signal?: AbortSignal) =>
      run.executeBatch(
        {
          runId: run.id,
          agent: run.agent,
          batchId: `b-${callId}`,
          calls: [{ callId, name: toolAlias('tools/py', 'sleep'), arguments: { ms } }],
        },
        signal ? { signal } : {},
      );
    const first = sleep(a, 'a-sleep', 60_000, stop.signal);
    const second = sleep(b, 'b-sleep', 300);
    await waitFor(() => calls(log, 'sleep') === 2);
    stop.abort();
    expect((await first).results[0]).toMatchObject({ error: { code: 'cancelled' } });
    expect((await second).results[0]?.status).toBe('ok');
    expect(p.stats().keys[0]).toMatchObject({ starts: 1, state: 'open' });
  });

  it('B1: pool.close() drains: new leases fail at once, a call in flight finishes, the server ends with the last lease', async () => {
    const { service, mark, log } = await registry({ features: ['slow'] });
    const p = new McpPool({ service });
    cleanups.push(() => p.close({ drainMs: 0 })); // only if the test fails before its own close
    const a = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*'), pool: p, scope: 't' });
    const inFlight = a.executeBatch({
      runId: a.id,
      agent: a.agent,
      batchId: 'b-drain',
      calls: [{ callId: 's', name: toolAlias('tools/py', 'sleep'), arguments: { ms: 200 } }],
    });
    await waitFor(() => calls(log, 'sleep') === 1);
    const closing = p.close();
    await expect(start(service, { agent: 'team/bob', pool: p, scope: 't' })).rejects.toMatchObject({ code: 'connection_closed' });
    expect((await inFlight).results[0]?.status).toBe('ok'); // not cut off by the close
    expect(livingWithMarker(mark)).toHaveLength(1);
    await a.close(); // the last lease: the drain ends
    await closing;
    await waitFor(() => livingWithMarker(mark).length === 0);
  });

  it('B1: over HTTP, two scopes never share a session; runs of one scope share one', async () => {
    const server = await startAuthCheckingServer(() => true);
    cleanups.push(() => server.close());
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/web', create: true, data: { mcpServers: { web: { url: server.url } } } });
    for (const agent of ['team/alice', 'team/bob'])
      await service.write({ kind: 'agent', reference: agent, create: true, data: { mcps: ['tools/web'] } });
    const p = pool(service);
    const who = (run: NativeRun) =>
      run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: `w-${run.id}`,
        calls: [{ callId: 'w', name: toolAlias('tools/web', 'who'), arguments: {} }],
      });
    const runs = [
      await start(service, { pool: p, scope: 'tenant-1' }),
      await start(service, { agent: 'team/bob', pool: p, scope: 'tenant-1' }),
      await start(service, { pool: p, scope: 'tenant-2' }),
    ];
    for (const r of runs) expect((await who(r)).results[0]?.status).toBe('ok');
    expect(server.sessions.size).toBe(2);
    for (const r of runs) await r.close();
    await p.close();
    expect(server.terminated.sort()).toEqual([...server.sessions.keys()].sort()); // each session ended with its connection
  });
});
