/**
 * The kit's paced, held task looks (issue 64) under a hostile client and a
 * hostile store. A flood of held `tasks/get` whose client goes away leaves no
 * timer or listener; a held look ends with the task's TTL, its cancel, its
 * question or its status, not with the grace; another caller's look is never
 * held and learns nothing; a stored record's createdAt or pollIntervalMs
 * edited by hand yields no NaN, negative or runaway interval; and our client,
 * told to poll at 0, -1, 1e20 or "NaN", polls no faster than MIN_TASK_POLL_MS
 * and sleeps past no deadline. Timers are watched by an async hook (a hold's
 * timer is the one whose period is the grace): whether the grace ran out or
 * the hold was ended by an event is an event, not a wall-clock reading.
 */
import { createHook, type AsyncHook } from 'node:async_hooks';
import { getEventListeners } from 'node:events';
import path from 'node:path';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createToolServer,
  defineTool,
  type HttpToolService,
  MemoryTaskStore,
  serveHttp,
  type TaskRecord,
  type TaskStore,
} from '../../src/authoring/index.js';
import { paced } from '../../src/authoring/tasks/grace.js';
import { KitTasks, type TaskControl } from '../../src/authoring/tasks/runner.js';
import { MIN_PACED_POLL_MS, MIN_TASK_POLL_MS } from '../../src/bounds.js';
import { connectMcp, type McpConnection } from '../../src/index.js';
import { failure, fileLines, modernRequest, REPO_ROOT, tempDir, waitFor } from '../support/index.js';

const GRACE = 1_000; // the longest grace a server may have: a hold that ran it out is told by its timer firing
const POLL = 5_000;

// The grace timers of held looks: those alive, and those whose callback ran (the grace ran out).
function graceTimers(ms = GRACE): { live: Set<number>; fired: Set<number>; hook: AsyncHook } {
  const live = new Set<number>();
  const fired = new Set<number>();
  const hook = createHook({
    init: (id, type, _trigger, resource) => {
      if (type === 'Timeout' && (resource as { _idleTimeout?: number })._idleTimeout === ms) live.add(id);
    },
    before: (id) => void (live.has(id) && fired.add(id)),
    destroy: (id) => void live.delete(id),
  }).enable();
  return { live, fired, hook };
}

const hooks: AsyncHook[] = [];
const kits: KitTasks[] = [];
const services: HttpToolService[] = [];
afterEach(async () => {
  for (const h of hooks.splice(0)) h.disable();
  for (const k of kits.splice(0)) k.close();
  for (const s of services.splice(0)) await s.close();
});

function watch(ms = GRACE) {
  const t = graceTimers(ms);
  hooks.push(t.hook);
  return t;
}

function kit(options: ConstructorParameters<typeof KitTasks>[0] = {}): KitTasks {
  const k = new KitTasks({ graceMs: GRACE, pollIntervalMs: POLL, ...options });
  kits.push(k);
  return k;
}

// A task of `owner` whose handler runs until the test ends it (or acts through its control).
async function startHeld(tasks: KitTasks, owner: string | null = 'alice', ttl?: number) {
  let control!: TaskControl;
  let end: () => void = () => undefined;
  const record = await tasks.start('held', { owner }, ttl, (c) => {
    control = c;
    return new Promise((resolve) => (end = () => resolve({ content: [] })));
  });
  return { record, control: () => control, end: () => end() };
}

const never = () => new AbortController().signal;

describe('E6: a flood of held looks leaves nothing behind', () => {
  it('E6: 300 held looks whose requests are then cancelled each end at once, working; no hold timer, abort listener or change listener stays', async () => {
    const tasks = kit();
    const task = await startHeld(tasks);
    const { live, fired } = watch();
    const cancels = Array.from({ length: 300 }, () => new AbortController());
    const looks = cancels.map((c) => tasks.look(task.record.taskId, 'alice', c.signal));
    await waitFor(() => live.size === 300);
    for (const c of cancels) c.abort();
    const seen = await Promise.all(looks);
    expect(seen.every((r) => r.status === 'working')).toBe(true);
    expect(cancels.every((c) => getEventListeners(c.signal, 'abort').length === 0)).toBe(true);
    await waitFor(() => live.size === 0);
    expect(fired.size).toBe(0); // each hold was ended by its cancel, none by the grace
    // No change listener of theirs stays: the one look now held is the only one its end tells (it ends at once).
    const last = tasks.look(task.record.taskId, 'alice', never());
    await waitFor(() => live.size === 1);
    task.end();
    expect((await last).status).toBe('completed');
    expect(fired.size).toBe(0);
  });

  it('E6: 200 held 2026-07-28 tasks/get over HTTP whose client goes away: the server holds none past it and still answers', async () => {
    let end: () => void = () => undefined;
    const held = defineTool({
      name: 'held',
      description: 'Ends when the test ends it.',
      input: v.object({}),
      execution: { taskSupport: 'required' },
      handler: () => new Promise<string>((resolve) => (end = () => resolve('held done'))),
    });
    const service = await serveHttp(() =>
      createToolServer({ name: 'flood', version: '1.0.0', tools: [held], tasks: { graceMs: GRACE, pollIntervalMs: POLL } }),
    );
    services.push(service);
    const created = await modernRequest(service.url, 'tools/call', { name: 'held', arguments: {} });
    const taskId = created.result?.taskId as string;
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const { live, fired } = watch();
    const gone = new AbortController();
    const flood = Array.from({ length: 200 }, () =>
      modernRequest(service.url, 'tasks/get', { taskId }, true, gone.signal).catch((e: unknown) => e),
    );
    await waitFor(() => live.size === 200); // the server holds them all
    gone.abort();
    expect((await Promise.all(flood)).every((r) => r instanceof Error)).toBe(true);
    await waitFor(() => live.size === 0);
    expect(fired.size).toBe(0); // each hold ended as its client went away, none by the grace
    const look = modernRequest(service.url, 'tasks/get', { taskId });
    await waitFor(() => live.size === 1);
    end();
    expect((await look).result).toMatchObject({ status: 'completed' });
  });
});

describe('E6: a held look ends with what happens to its task, not with the grace', () => {
  it("E6: the task's TTL ends while a look is held: the look ends at once, and the task is unknown after", async () => {
    const tasks = kit();
    const { live, fired } = watch();
    const task = await startHeld(tasks, 'alice', 300);
    const look = tasks.look(task.record.taskId, 'alice', never()).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    const seen = await look;
    // Told by the TTL's end: gone (or, read in the very millisecond it ends, as it was) — never held for the grace.
    expect(seen === 'working' || /unknown task/.test(seen)).toBe(true);
    expect(fired.size).toBe(0);
    await waitFor(() => live.size === 0);
    await expect(tasks.look(task.record.taskId, 'alice', never())).rejects.toThrow(/unknown task/);
  });

  it('E6: tasks/cancel while looks are held: each answers cancelled at once', async () => {
    const tasks = kit();
    const { live, fired } = watch();
    const task = await startHeld(tasks);
    const looks = Array.from({ length: 20 }, () => tasks.look(task.record.taskId, 'alice', never()));
    await waitFor(() => live.size === 20);
    await tasks.cancel(task.record.taskId, 'alice');
    expect((await Promise.all(looks)).map((r) => r.status)).toEqual(Array(20).fill('cancelled'));
    expect(fired.size).toBe(0);
    await waitFor(() => live.size === 0);
  });

  it('E6: a question asked while a look is held answers input_required with the question; a look then is not held; tasks/update holds the next', async () => {
    const tasks = kit();
    const { live, fired } = watch();
    const task = await startHeld(tasks);
    const look = tasks.look(task.record.taskId, 'alice', never());
    await waitFor(() => live.size === 1);
    const answer = task.control().ask({ method: 'elicitation/create', params: { message: 'Go?', requestedSchema: { type: 'object' } } });
    const asking = await look;
    expect(asking).toMatchObject({ status: 'input_required', inputRequests: { t1: { method: 'elicitation/create' } } });
    expect(asking.pollIntervalMs).toBeLessThanOrEqual(POLL);
    // Not held while it asks (the client must answer first).
    expect((await tasks.look(task.record.taskId, 'alice', never())).status).toBe('input_required');
    await waitFor(() => live.size === 0);
    await tasks.update(task.record.taskId, 'alice', { t1: { action: 'accept', content: {} } });
    await answer;
    const next = tasks.look(task.record.taskId, 'alice', never());
    await waitFor(() => live.size === 1);
    await task.control().status('half way');
    expect(await next).toMatchObject({ status: 'working', statusMessage: 'half way' });
    expect(fired.size).toBe(0);
  });
  it('E6: a change made while the look reads the store ends the hold at once (the look listens before it reads)', async () => {
    let gate: () => void = () => undefined;
    let reading: () => void = () => undefined;
    // A slow store: the look's read returns the record as it was when asked, after a change landed meanwhile.
    class GatedStore extends MemoryTaskStore {
      holdNext = false;
      override async get(taskId: string): Promise<TaskRecord | undefined> {
        const record = await super.get(taskId);
        if (!this.holdNext) return record;
        this.holdNext = false;
        await new Promise<void>((resolve) => {
          gate = resolve;
          reading();
        });
        return record;
      }
    }
    const store = new GatedStore();
    const tasks = kit({ store });
    const { live, fired } = watch();
    const task = await startHeld(tasks);
    store.holdNext = true;
    const readStarted = new Promise<void>((resolve) => (reading = resolve));
    const look = tasks.look(task.record.taskId, 'alice', never());
    await readStarted;
    await task.control().status('changed during the read');
    gate();
    expect(await look).toMatchObject({ status: 'working', statusMessage: 'changed during the read' });
    expect(live.size + fired.size).toBe(0); // no hold began: the change was seen before it
  });
});

describe('E6: a look by another caller is never held and learns nothing', () => {
  it("E6: another owner's, an anonymous caller's, a wrong-typed id's and an unknown id's look are the same unknown-task error, before any hold", async () => {
    const tasks = kit();
    const { live } = watch();
    const alice = await startHeld(tasks, 'alice');
    const anon = await startHeld(tasks, null);
    const errorOf = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        (e: { code?: number; message?: string }) => `${e.code} ${e.message}`,
      );
    const unknown = await errorOf(tasks.look('no-such-task', 'alice', never()));
    expect(unknown).toMatch(/unknown task/);
    for (const [id, owner] of [
      [alice.record.taskId, 'mallory'],
      [alice.record.taskId, null],
      [anon.record.taskId, 'mallory'],
      [42, 'alice'],
      [{ taskId: alice.record.taskId }, 'alice'],
    ] as const)
      expect(await errorOf(tasks.look(id, owner, never()))).toBe(unknown);
    expect(live.size).toBe(0); // none of them held
    // The owners' own looks are held.
    const own = [tasks.look(alice.record.taskId, 'alice', never()), tasks.look(anon.record.taskId, null, never())];
    await waitFor(() => live.size === 2);
    alice.end();
    anon.end();
    expect((await Promise.all(own)).map((r) => r.status)).toEqual(['completed', 'completed']);
  });
});

// A record as another process (or a hand) left it in a shared store.
function storedRecord(over: Record<string, unknown>): TaskRecord {
  const now = new Date().toISOString();
  return {
    taskId: 'stored-1',
    tool: 'held',
    owner: 'alice',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: null,
    pollIntervalMs: 500,
    ...over,
  } as TaskRecord;
}

function storeOf(record: TaskRecord): TaskStore {
  return {
    get: async (taskId) => (taskId === record.taskId ? structuredClone(record) : undefined),
    put: async () => undefined,
    list: async () => [],
  };
}

const HOUR = 60 * 60_000;

describe('E6: a stored record edited by hand paces to no NaN, negative or runaway interval', () => {
  it('E6: paced() of any createdAt, pollIntervalMs and clock gives the stored interval or a whole one from MIN_PACED_POLL_MS below it; never throws', () => {
    const now = Date.now();
    const createdAts = [
      new Date(now).toISOString(),
      new Date(now - 100).toISOString(),
      new Date(now - 50 * HOUR).toISOString(),
      '-271821-04-20T00:00:00.000Z',
      '+275760-09-13T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      'yesterday',
      '',
      'NaN',
      undefined,
      42,
    ];
    const polls = [0, -1, 1, 19, 20, 20.5, 21, 500, 1e20, Number.MAX_SAFE_INTEGER, Number.NaN, Infinity, -Infinity];
    const clocks = [now, now + 10_000, Number.NaN, 0];
    for (const createdAt of createdAts)
      for (const pollIntervalMs of polls)
        for (const clock of clocks)
          for (const graceMs of [0, 50, GRACE]) {
            const record = storedRecord({ createdAt, pollIntervalMs });
            const shown = paced(record, graceMs, clock).pollIntervalMs;
            const label = JSON.stringify({ createdAt, pollIntervalMs: String(pollIntervalMs), clock, graceMs, shown: String(shown) });
            if (Object.is(shown, pollIntervalMs)) continue; // as stored
            expect(Number.isSafeInteger(shown), label).toBe(true);
            expect(shown, label).toBeGreaterThanOrEqual(MIN_PACED_POLL_MS);
            if (!Number.isNaN(pollIntervalMs)) expect(shown, label).toBeLessThan(pollIntervalMs);
          }
  });

  it('E6: a task created "in the future" by this clock (another process\'s skewed clock, or a hand-edited year 9999) is shown at its stored interval, not paced to the floor', async () => {
    for (const createdAt of [new Date(Date.now() + HOUR).toISOString(), '9999-12-31T23:59:59.999Z', '+275760-09-13T00:00:00.000Z']) {
      const tasks = kit({ store: storeOf(storedRecord({ createdAt })), graceMs: 50, pollIntervalMs: POLL });
      const shown = await tasks.look('stored-1', 'alice', never());
      expect(shown.pollIntervalMs, createdAt).toBe(500);
    }
  });

  it('E6: a stored task young or ancient is paced to half its age or shown as stored; a stored interval that is no whole number from 1 is refused as an invalid record', async () => {
    const young = await kit({ store: storeOf(storedRecord({ createdAt: new Date(Date.now() - 100).toISOString() })) }).look(
      'stored-1',
      'alice',
      never(),
    );
    expect(young.pollIntervalMs).toBeGreaterThanOrEqual(MIN_PACED_POLL_MS);
    expect(young.pollIntervalMs).toBeLessThan(500);
    const ancient = storedRecord({ createdAt: '-271821-04-20T00:00:00.000Z', pollIntervalMs: Number.MAX_SAFE_INTEGER });
    const shown = (await kit({ store: storeOf(ancient) }).look('stored-1', 'alice', never())).pollIntervalMs;
    expect(Number.isSafeInteger(shown) && shown >= MIN_PACED_POLL_MS && shown <= Number.MAX_SAFE_INTEGER).toBe(true);
    for (const pollIntervalMs of [0, -1, 1.5, 1e20, Number.NaN, Infinity, '500', null]) {
      const tasks = kit({ store: storeOf(storedRecord({ pollIntervalMs })) });
      await expect(tasks.look('stored-1', 'alice', never()), String(pollIntervalMs)).rejects.toThrow(/invalid record.*pollIntervalMs/);
    }
    for (const createdAt of ['yesterday', '', 'NaN', 42, null]) {
      const tasks = kit({ store: storeOf(storedRecord({ createdAt })) });
      await expect(tasks.look('stored-1', 'alice', never()), String(createdAt)).rejects.toThrow(/invalid record.*createdAt/);
    }
  });

  it("E6: a look at another process's stored working task is not held (nothing here tells of its changes)", async () => {
    const { live } = watch(50);
    const tasks = kit({ store: storeOf(storedRecord({})), graceMs: 50 });
    expect((await tasks.look('stored-1', 'alice', never())).status).toBe('working');
    expect(live.size).toBe(0);
  });
});

// Our client against a server that asks for hostile poll intervals (test/mcp/fixtures/hostile-tasks.ts: `never {poll}`).
const SERVER = path.join(REPO_ROOT, 'test/mcp/fixtures/hostile-tasks.ts');
const tmp = tempDir('agt-pace-hostile-');
afterAll(() => tmp.cleanup());
const gets = (log: string) => fileLines(log).filter((l) => l === 'tasks/get').length;

for (const protocol of ['legacy', '2026-07-28'] as const) {
  describe(`E6: a server asking for hostile poll intervals, our client waiting (${protocol})`, () => {
    const log = path.join(tmp.dir, `${protocol}.log`);
    let waiting: McpConnection;
    beforeAll(async () => {
      const config = { command: process.execPath, args: ['--import', 'tsx', SERVER, '--log', log], cwd: REPO_ROOT, protocol };
      waiting = await connectMcp(config, { timeouts: { handshakeMs: 20_000 }, tasks: 'wait' });
      await waiting.listTools();
    }, 60_000);
    afterAll(async () => {
      await waiting?.close();
    });

    for (const poll of ['0', '-1', '1e20', '"NaN"', '{}'])
      it(`E6: pollInterval ${poll}: no more than one tasks/get per MIN_TASK_POLL_MS, and the call ends at its deadline (call_timeout)`, async () => {
        const before = gets(log);
        const started = performance.now();
        const f = await failure(waiting.callTool('never', { poll }, { timeoutMs: 5_000, maxTotalTimeoutMs: 600 }));
        const elapsed = performance.now() - started;
        expect(f).toMatchObject({ code: 'call_timeout', details: { reason: 'task_timeout', timeoutMs: 600 } });
        const looks = gets(log) - before;
        expect(looks, `${looks} looks in ${Math.round(elapsed)} ms`).toBeLessThanOrEqual(Math.ceil(elapsed / MIN_TASK_POLL_MS) + 2);
        // The longest clamped sleep (MAX_TASK_POLL_MS, 5 s) is far past the deadline: the call did not sleep it out.
        expect(elapsed).toBeLessThan(4_500);
      }, 30_000);
  });
}
