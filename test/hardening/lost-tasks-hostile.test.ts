/**
 * Hostile cases of a task whose server ends with the run (E6, lost-tasks.ts)
 * and of the kit's per-task writes (writes.ts, runner.ts): a run resumed from
 * a store does not end the task of the host that started it when it closes;
 * two closes at once settle together; a store that throws or never answers
 * holds no close forever; a kit task whose end the store never writes stops
 * counting against the running bounds once its TTL ends. A real kit task
 * server over stdio (test/authoring/fixtures/task-server.ts), real stores.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRunStore, MemoryStore, NativeRun, type NativeRunOptions, policies, ResourceService, toolAlias } from '../../src/index.js';
import { KitTasks } from '../../src/authoring/tasks/runner.js';
import type { Route } from '../../src/runtime/assembly/snapshot.js';
import { unknownTasks } from '../../src/runtime/pending/lost-tasks.js';
import { readWaitingCall, type TaskWait } from '../../src/runtime/pending/waiting-call.js';
import { MemoryTaskStore, type TaskRecord, type TaskStore } from '../../src/authoring/tasks/store.js';
import { fileLines, REPO_ROOT, tempDir, text, waitingOf } from '../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/authoring/fixtures/task-server.ts');
const tmp = tempDir('agt-lost-hostile-');
const log = path.join(tmp.dir, 'tools.log');
const hold = (id: string) => path.join(tmp.dir, `hold-${id}`);
const report = toolAlias('tools/tasks', 'report');
afterAll(() => tmp.cleanup());

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function registry(): Promise<ResourceService> {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({
    kind: 'mcp',
    reference: 'tools/tasks',
    create: true,
    data: { mcpServers: { tasks: { command: process.execPath, args: ['--import', 'tsx', SERVER, '--log', log], cwd: REPO_ROOT } } },
  });
  await service.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['tools/tasks'] } });
  return service;
}

const options = (service: ResourceService, extra: Partial<NativeRunOptions> = {}) => ({
  service,
  policy: policies.autoAllow('*'),
  tasks: 'defer' as const,
  timeouts: { handshakeMs: 30_000 },
  ...extra,
});

async function start(service: ResourceService, extra: Partial<NativeRunOptions> = {}): Promise<NativeRun> {
  const run = await NativeRun.start({ agent: 'team/t', ...options(service, extra) });
  open.push(run);
  return run;
}

async function startReport(run: NativeRun, id: string): Promise<string> {
  const started = await run.executeBatch({
    runId: run.id,
    agent: run.agent,
    batchId: 'b1',
    calls: [{ callId: 'c1', name: report, arguments: { id, hold: hold(id) } }],
  });
  return waitingOf(started.pending?.[0], 'task').task.id;
}

const lostNotices = (run: NativeRun) => run.notices.filter((n) => n.includes('task_lost (server_ended)'));

/** A run store whose writes fail (`throw`) or never settle (`hang`) once `broken` is set; reads answer. */
class BrokenRunStore extends MemoryRunStore {
  broken: 'throw' | 'hang' | undefined;
  override put(...args: Parameters<MemoryRunStore['put']>): ReturnType<MemoryRunStore['put']> {
    if (this.broken === 'throw') throw new Error('disk on fire');
    if (this.broken === 'hang') return new Promise(() => undefined);
    return super.put(...args);
  }
}

describe('E6: hostile closes and resumes of a run whose task ends with its server', () => {
  it('E6: closing a run resumed from the store leaves the call on the other host’s task waiting; that host still collects it', async () => {
    const service = await registry();
    const store = new MemoryRunStore();
    const first = await start(service);
    await startReport(first, 'alive');
    await first.suspend({ store });
    const other = await NativeRun.resume(first.id, { ...options(service), store });
    expect(other.pending().map((p) => p.callId)).toEqual(['c1']);
    await other.close(); // its own stdio server never had the task: the task lives on in the first host's server
    expect(lostNotices(other)).toEqual([]);
    expect((await store.get(first.id))?.state.pending?.map((p) => [p.callId, p.waitingFor])).toEqual([['c1', 'task']]);
    fs.writeFileSync(hold('alive'), '');
    const collected = await first.collect('b1', { waitMs: 20_000 });
    expect(collected.results.map((r) => [r.callId, r.status, text(r)])).toEqual([['c1', 'ok', 'report alive']]);
  }, 90_000);

  it('E6: two closes at once settle together, after the call ended and was written (a second close is no earlier way out)', async () => {
    const service = await registry();
    const store = new MemoryRunStore();
    const run = await start(service);
    await startReport(run, 'twice');
    await run.suspend({ store });
    const closes = [run.close(), run.close()];
    await closes[1];
    expect(lostNotices(run)).toHaveLength(1);
    expect((await store.get(run.id))?.state.pending).toBeUndefined();
    await closes[0];
    await run.close();
    expect(lostNotices(run)).toHaveLength(1); // ended once
    await expect(run.executeBatch({ runId: run.id, agent: run.agent, batchId: 'b2', calls: [] })).rejects.toMatchObject({
      code: 'connection_closed',
    });
  }, 90_000);

  for (const broken of ['throw', 'hang'] as const) {
    it(`E6: a store whose write ${broken === 'throw' ? 'throws' : 'never settles'} as the run closes: close still ends, the call ends here, the host is told`, async () => {
      const service = await registry();
      const store = new BrokenRunStore();
      const run = await start(service, { timeouts: { handshakeMs: 30_000, callMs: 2_000 } });
      await startReport(run, `broken-${broken}`);
      await run.suspend({ store });
      store.broken = broken;
      await run.close();
      expect(lostNotices(run)).toHaveLength(1);
      expect(run.notices.some((n) => n.includes("could not be written to the run's store (store_unavailable)"))).toBe(true);
      expect(run.notices.join('\n')).not.toContain(hold(`broken-${broken}`));
      expect(run.pending()).toEqual([]);
      // The record still has the call waiting: a run resumed from it has not been told otherwise.
      expect((await store.get(run.id))?.state.pending?.map((p) => p.callId)).toEqual(['c1']);
      expect(fileLines(log)).not.toContain(`done broken-${broken}`);
    }, 90_000);
  }
});

/** A task store whose writes of an ended task never settle (a database that stopped answering). */
class StuckEndStore implements TaskStore {
  readonly inner = new MemoryTaskStore();
  stuck = 0;
  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.inner.get(taskId);
  }
  list(owner: string | null): Promise<TaskRecord[]> {
    return this.inner.list(owner);
  }
  put(record: TaskRecord): Promise<void> {
    if (record.status === 'working') return this.inner.put(record);
    this.stuck += 1;
    return new Promise(() => undefined);
  }
}

describe('kit tasks on a store that stops answering', () => {
  it('a task whose end the store never writes stops counting against maxRunning when its TTL ends: the server takes tasks again', async () => {
    const store = new StuckEndStore();
    const tasks = new KitTasks({ store, ttlMs: 200, maxRunning: 1 });
    const first = await tasks.start('tool', { owner: 'alice' }, undefined, async () => ({ content: [] }));
    await vi.waitFor(() => expect(store.stuck).toBe(1)); // its end's write is under way, and never lands
    await expect(tasks.start('tool', { owner: 'alice' }, undefined, async () => ({ content: [] }))).rejects.toThrow(
      /too many running tasks/,
    );
    // Past its TTL the first task is gone (its write forgotten, its slot free).
    const second = await vi.waitFor(() => tasks.start('tool', { owner: 'alice' }, undefined, async () => ({ content: [] })), {
      timeout: 10_000,
      interval: 50,
    });
    expect(second.taskId).not.toBe(first.taskId);
    await vi.waitFor(() => expect(tasks.writing).toBe(1)); // the second's end is stuck; the first's chain was forgotten
    tasks.close();
  });

  it('a task the server cancels while its store hangs: the tool’s signal aborts at once, the cancel waits on the store', async () => {
    const store = new StuckEndStore();
    const tasks = new KitTasks({ store });
    let signal: AbortSignal | undefined;
    const aborted = new Promise<void>((resolve) => {
      void tasks.start('tool', { owner: 'alice' }, undefined, (control) => {
        signal = control.signal;
        control.signal.addEventListener('abort', () => resolve());
        return new Promise(() => undefined); // a tool that only its signal stops
      });
    });
    await vi.waitFor(() => expect(signal).toBeDefined());
    const [record] = await store.inner.list('alice');
    void tasks.cancel(record!.taskId, 'alice').catch(() => undefined); // its write never lands
    await aborted;
    expect(signal?.aborted).toBe(true);
    tasks.close();
  });
});

describe('E6: hostile JSON states resumed, and what closes leave behind', () => {
  it('E6: a JSON state whose task id was edited (control characters, a huge id) is refused at resume, the id not echoed; a well-formed unknown id ends task_lost', async () => {
    const service = await registry();
    const first = await start(service);
    await startReport(first, 'edited');
    const state = await first.suspend();
    await first.close();
    const taskOf = (s: typeof state) => s.pending![0]! as unknown as { task: { id: string } };
    const bad = structuredClone(state);
    taskOf(bad).task.id = `\u001b[31m${'x'.repeat(5_000)}\n"}`;
    const refused = await NativeRun.resume(bad, options(service)).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'invalid_input' });
    expect(JSON.stringify(refused)).not.toContain('xxxxxxxx');
    const unknown = structuredClone(state);
    taskOf(unknown).task.id = '00000000-0000-4000-8000-000000000000';
    const again = await NativeRun.resume(unknown, options(service));
    open.push(again);
    expect(again.pending()).toEqual([]);
    expect(lostNotices(again)).toHaveLength(1);
    const resumed = await again.suspend();
    expect(resumed.decided?.map((d) => d.result)).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({ details: { taskId: '00000000-0000-4000-8000-000000000000', reason: 'server_ended' } }),
      }),
    ]);
  }, 90_000);

  it('E6: a JSON state with hundreds of calls on unknown tasks resumes with each ended task_lost once, each in a notice', async () => {
    const service = await registry();
    const first = await start(service);
    await startReport(first, 'many');
    const state = await first.suspend();
    await first.close();
    const many = structuredClone(state);
    const [one] = many.pending!;
    many.pending = Array.from({ length: 300 }, (_, i) => ({
      ...structuredClone(one!),
      callId: `c${i}`,
      index: i,
      task: { ...(one as unknown as { task: object }).task, id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` },
    })) as typeof many.pending;
    const again = await NativeRun.resume(many, options(service));
    open.push(again);
    expect(again.pending()).toEqual([]);
    expect(lostNotices(again)).toHaveLength(300);
    const resumed = await again.suspend();
    expect(resumed.pending).toBeUndefined();
    // The record keeps the newest results only (its bound), every one task_lost.
    expect(new Set(resumed.decided?.map((d) => (d.result.status === 'ok' ? 'ok' : d.result.error.code)))).toEqual(new Set(['task_lost']));
  }, 90_000);

  it('E6: a server whose tasks/get never answers holds a JSON resume one request timeout in all, not one per call: the calls keep waiting', async () => {
    const service = await registry();
    const run = await start(service);
    await startReport(run, 'hung');
    const state = await run.suspend();
    const call = readWaitingCall(state.pending![0]!) as TaskWait;
    const calls = Array.from({ length: 50 }, (_, i) => ({ ...call, callId: `c${i}`, index: i }));
    const asked: boolean[] = []; // per request: was the resume's look still on when it was sent
    const hung = {
      kind: 'mcp',
      connection: {
        getTask: (_id: string, { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number }) => {
          asked.push(!signal.aborted);
          return new Promise((_resolve, reject) => {
            // As a connection does: the request ends at its timeout, or when its signal aborts (at once if it had).
            if (signal.aborted) return reject(new Error('cancelled'));
            const timer = setTimeout(() => reject(new Error('call_timeout')), timeoutMs);
            signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('cancelled'))), { once: true });
          });
        },
      },
    } as unknown as Route;
    const lost = await unknownTasks(calls, new Map([[call.tool, hung]]), { concurrency: 2, requestMs: 300 });
    expect(lost).toEqual([]); // nothing ended on a server that said nothing
    expect(asked.filter(Boolean)).toHaveLength(2); // one wave of requests, then the deadline: no call waited its own timeout
  }, 90_000);

  it('closing many runs leaves no process listener behind', async () => {
    const service = await registry();
    const count = () => process.eventNames().reduce((n, e) => n + process.listenerCount(e), 0);
    const warm = await start(service);
    await startReport(warm, 'warm');
    await warm.close();
    const before = count();
    for (let i = 0; i < 3; i++) {
      const run = await start(service);
      await startReport(run, `leak-${i}`);
      await Promise.all([run.close(), run.close()]);
      expect(lostNotices(run)).toHaveLength(1);
    }
    expect(count()).toBe(before);
  }, 90_000);
});
