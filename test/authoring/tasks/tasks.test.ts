/**
 * A kit server's tasks held to who started them and to how many may run,
 * over real HTTP on loopback with raw 2025
 * sessions: an anonymous session lists only the tasks it started, so no other
 * caller learns their ids; a caller and the whole server run
 * a bounded number of tasks, and the one past the bound is refused with an
 * error the client reads; invalid task options are refused where the server is
 * made; two servers of one name in one process keep their own tasks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createToolServer,
  type HttpToolService,
  MemoryTaskStore,
  serveHttp,
  type TaskServingOptions,
} from '../../../src/authoring/index.js';
import { fileLines, rawSession, taskIdOf, tempDir } from '../../support/index.js';
import { taskTools } from '../fixtures/task-tools.js';

let tmp: { dir: string; cleanup(): void };
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());
const services: HttpToolService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

/** A raw 2025 session over HTTP (its own Mcp-Session-Id), optionally with a bearer token. */
async function session(url: string, token?: string) {
  const rpc = await rawSession(url, token);
  return {
    rpc,
    /** Starts `report` as a task that runs until it is cancelled (its hold file never appears). */
    start: (id: string) => rpc('tools/call', { name: 'report', arguments: { id, hold: path.join(tmp.dir, 'never') }, task: {} }),
  };
}

async function serve(name: string, tasks: TaskServingOptions = {}, auth?: Record<string, string>) {
  const log = path.join(tmp.dir, `${name}-${services.length}.log`);
  const service = await serveHttp(
    () => createToolServer({ name, version: '1.0.0', tools: taskTools(log), tasks: { pollIntervalMs: 50, ...tasks } }),
    auth ? { auth: { verify: (token) => (auth[token] ? { token, clientId: auth[token], scopes: [] } : undefined) } } : {},
  );
  services.push(service);
  return { url: service.url, log };
}

describe('kit tasks of anonymous 2025 sessions', () => {
  it("E6: without authentication a 2025 session's tasks/list shows only the tasks it started: no other session learns their ids (UUID v4, the task's only key)", async () => {
    const { url, log } = await serve('sessions');
    const alice = await session(url);
    const bob = await session(url);
    const taskId = taskIdOf(await alice.start('a'));
    expect(taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await vi.waitFor(() => expect(fileLines(log)).toContain('started a'), { timeout: 20_000 });
    const bobs = taskIdOf(await bob.start('b'));
    // Each session lists its own: before, both listed both (and so could read and cancel the other's).
    expect((await bob.rpc('tasks/list')).result?.tasks?.map((t) => t.taskId)).toEqual([bobs]);
    expect((await alice.rpc('tasks/list')).result?.tasks?.map((t) => t.taskId)).toEqual([taskId]);
    // The id is the anonymous task's key (E6: a run resumed in another process, on another session, collects it).
    expect((await bob.rpc('tasks/get', { taskId: bobs })).result).toMatchObject({ taskId: bobs, status: 'working' });
    expect((await alice.rpc('tasks/cancel', { taskId })).result).toMatchObject({ taskId, status: 'cancelled' });
    await bob.rpc('tasks/cancel', { taskId: bobs });
    await vi.waitFor(() => expect(fileLines(log)).toEqual(expect.arrayContaining(['cancelled a', 'cancelled b'])), { timeout: 20_000 });
    // 2025-11-25: the cancel of a task that already ended MUST be refused with -32602 (it answered the record).
    const again = await alice.rpc('tasks/cancel', { taskId });
    expect(again.error?.code).toBe(-32602);
    expect(again.error?.message).toMatch(/already ended \(cancelled\)/);
  });
});

describe("an ended kit task's statusMessage", () => {
  it('E6: a completed or cancelled task no longer shows its last progress message as statusMessage', async () => {
    const { url } = await serve('ended');
    const { rpc } = await session(url);
    const hold = path.join(tmp.dir, 'ended-hold');
    const get = async (taskId: string) => (await rpc('tasks/get', { taskId })).result as { status: string; statusMessage?: string };
    const done = taskIdOf(await rpc('tools/call', { name: 'report', arguments: { id: 'done', hold }, task: {} }));
    await vi.waitFor(async () => expect(await get(done)).toMatchObject({ status: 'working', statusMessage: 'writing done' }), {
      timeout: 20_000,
    });
    fs.writeFileSync(hold, '');
    await vi.waitFor(async () => expect((await get(done)).status).toBe('completed'), { timeout: 20_000 });
    expect(await get(done)).not.toHaveProperty('statusMessage');
    const stopped = taskIdOf(
      await rpc('tools/call', { name: 'report', arguments: { id: 'stopped', hold: path.join(tmp.dir, 'never') }, task: {} }),
    );
    await vi.waitFor(async () => expect((await get(stopped)).statusMessage).toBe('writing stopped'), { timeout: 20_000 });
    await rpc('tasks/cancel', { taskId: stopped });
    expect(await get(stopped)).toMatchObject({ status: 'cancelled' });
    expect(await get(stopped)).not.toHaveProperty('statusMessage');
  });
});

describe('bounds on running kit tasks', () => {
  it('E6: a caller past maxRunningPerCaller, or anyone past maxRunning, is refused with a JSON-RPC error naming the limit; an ended task frees its place', async () => {
    const { url, log } = await serve('bounded', { maxRunningPerCaller: 2, maxRunning: 3 });
    const alice = await session(url);
    const bob = await session(url);
    const first = taskIdOf(await alice.start('a1'));
    taskIdOf(await alice.start('a2'));
    const mine = await alice.start('a3');
    expect(mine.error).toMatchObject({ code: -32000, message: expect.stringContaining('maxRunningPerCaller'), data: { limit: 2 } });
    expect(mine.error?.message).toContain('this caller');
    taskIdOf(await bob.start('b1'));
    const all = await bob.start('b2'); // bob has one running, but the server runs three: its own bound
    expect(all.error).toMatchObject({ code: -32000, message: expect.stringContaining('maxRunning'), data: { limit: 3 } });
    expect(all.error?.message).not.toContain('maxRunningPerCaller');
    await vi.waitFor(() => expect(fileLines(log).filter((l) => l.startsWith('started'))).toHaveLength(3), { timeout: 20_000 });
    expect(fileLines(log)).not.toContain('started a3');
    expect(fileLines(log)).not.toContain('started b2');
    // A cancelled task no longer runs: its caller may start another.
    await alice.rpc('tasks/cancel', { taskId: first });
    taskIdOf(await alice.start('a4'));
    await vi.waitFor(() => expect(fileLines(log)).toContain('started a4'), { timeout: 20_000 });
  });
});

describe('task options checked where the server is made', () => {
  const made = (tasks: unknown) => () =>
    createToolServer({ name: 'checked', version: '1.0.0', tools: taskTools('/dev/null'), tasks: tasks as TaskServingOptions });
  it('E6: an invalid ttlMs, pollIntervalMs, graceMs, store or bound of a kit server is invalid_input naming the option', () => {
    const cases: [unknown, string][] = [
      [{ ttlMs: Number.NaN }, 'tasks.ttlMs'],
      [{ ttlMs: '1h' }, 'tasks.ttlMs'],
      [{ ttlMs: -1 }, 'tasks.ttlMs'],
      [{ ttlMs: 0 }, 'tasks.ttlMs'],
      [{ ttlMs: Number.POSITIVE_INFINITY }, 'tasks.ttlMs'],
      [{ pollIntervalMs: -5 }, 'tasks.pollIntervalMs'],
      [{ pollIntervalMs: 0 }, 'tasks.pollIntervalMs'],
      [{ pollIntervalMs: 2.5 }, 'tasks.pollIntervalMs'],
      [{ ttlMs: 1_000, pollIntervalMs: 5_000 }, 'tasks.pollIntervalMs'],
      [{ graceMs: Number.NaN }, 'tasks.graceMs'],
      [{ graceMs: -1 }, 'tasks.graceMs'],
      [{ graceMs: 1e20 }, 'tasks.graceMs'],
      [{ graceMs: 1_001 }, 'tasks.graceMs'],
      [{ graceMs: 2.5 }, 'tasks.graceMs'],
      [{ graceMs: '50' }, 'tasks.graceMs'],
      [{ store: {} }, 'tasks.store'],
      [{ maxRunning: 0 }, 'tasks.maxRunning'],
      [{ maxRunningPerCaller: 1.5 }, 'tasks.maxRunningPerCaller'],
      [{ ttl: 60_000 }, 'tasks.ttl'],
      ['1h', 'tasks'],
    ];
    for (const [tasks, field] of cases) {
      let thrown: { code?: string; message?: string; details?: { field?: string } } | undefined;
      try {
        made(tasks)();
      } catch (error) {
        thrown = error as typeof thrown;
      }
      expect(thrown, JSON.stringify(tasks)).toMatchObject({ code: 'invalid_input', details: { field } });
      expect(thrown?.message?.startsWith(field), thrown?.message).toBe(true);
    }
    // Valid options (a ttl past the bound is cut to it, as documented) make a server.
    expect(made({ ttlMs: 300, pollIntervalMs: 50, maxRunning: 1, maxRunningPerCaller: 1, store: new MemoryTaskStore() })().tools).toContain(
      'report',
    );
    expect(made({ ttlMs: 30 * 24 * 60 * 60_000 })().tools).toContain('report');
    expect(made({ graceMs: 0 })().tools).toContain('report');
    expect(made({ graceMs: 1_000 })().tools).toContain('report');
  });
});

describe('two kit servers of one name in one process', () => {
  it("E6: two servers of one name keep their own tasks and their own options: neither reads the other's task; the second's ttlMs and store hold", async () => {
    const token = { tok: 'alice' }; // one caller on both: only the servers differ
    const storeB = new MemoryTaskStore();
    const a = await serve('twin', { ttlMs: 60_000 }, token);
    const b = await serve('twin', { ttlMs: 120_000, store: storeB }, token);
    const onA = await session(a.url, 'tok');
    const onB = await session(b.url, 'tok');
    const started = await onB.start('b');
    expect(started.result?.task?.ttl).toBe(120_000); // before: the first server's 60,000
    const taskB = taskIdOf(started);
    expect((await storeB.get(taskB))?.taskId).toBe(taskB); // before: kept in the first server's store
    const taskA = taskIdOf(await onA.start('a'));
    expect((await onB.rpc('tasks/get', { taskId: taskA })).error).toMatchObject({ code: -32602 });
    expect((await onA.rpc('tasks/get', { taskId: taskB })).error).toMatchObject({ code: -32602 });
    expect((await onA.rpc('tasks/list')).result?.tasks?.map((t) => t.taskId)).toEqual([taskA]);
    await onA.rpc('tasks/cancel', { taskId: taskA });
    await onB.rpc('tasks/cancel', { taskId: taskB });
  });
});
