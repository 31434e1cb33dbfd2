/**
 * The writes of one kit task against a task store that takes its time (issue
 * 60): a store whose writes land only when the test lets them, and — the
 * hostile order — the newest first. A progress message the tool did not
 * await never lands after the task's end (which would set a completed task
 * `working` again, its result never served); a cancel never lands before a
 * write queued ahead of it; a status said after the end is dropped; a write
 * the store fails breaks no later one; a tool that says how it goes faster
 * than the store writes queues one write, not one per message; and nothing is
 * kept per task once its writes settled. Then the same race in a real kit
 * server on stdio (late-status-server.ts), spoken to in raw 2025 JSON-RPC.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KitTasks, type TaskControl } from '../../../src/authoring/tasks/runner.js';
import { MemoryTaskStore, type TaskRecord, type TaskStore } from '../../../src/authoring/tasks/store.js';
import { fileLines, REPO_ROOT, tempDir } from '../../support/index.js';

interface Held {
  record: TaskRecord;
  land(): Promise<void>;
  fail(error: Error): void;
}

/** A task store whose writes wait until the test lands (or fails) them; reads answer at once. */
class LatentStore implements TaskStore {
  readonly inner = new MemoryTaskStore();
  readonly held: Held[] = [];
  /** What was written, in the order it landed. */
  readonly landed: TaskRecord[] = [];

  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.inner.get(taskId);
  }

  list(owner: string | null): Promise<TaskRecord[]> {
    return this.inner.list(owner);
  }

  put(record: TaskRecord): Promise<void> {
    const copy = structuredClone(record);
    return new Promise((resolve, reject) => {
      this.held.push({
        record: copy,
        land: async () => {
          await this.inner.put(copy);
          this.landed.push(copy);
          resolve();
        },
        fail: reject,
      });
    });
  }
}

// One turn of the event loop: every write the kit can ask for without the store's answer has been asked for.
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Lands the store's held writes, newest first, until none is held; returns how many were held at most at once. */
async function landAll(store: LatentStore): Promise<number> {
  let most = 0;
  for (;;) {
    await turn();
    most = Math.max(most, store.held.length);
    const next = store.held.pop();
    if (next === undefined) return most;
    await next.land();
  }
}

const caller = { owner: 'alice' };
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/** Starts `run` as a task of `tasks` on `store`, landing the task's first record; resolves with its id. */
async function started(tasks: KitTasks, store: LatentStore, run: (control: TaskControl) => Promise<Record<string, unknown>>) {
  const start = tasks.start('tool', caller, undefined, run);
  await turn();
  // Its first record (working, no message yet), whatever other tasks' writes the store holds.
  const first = store.held.findIndex((h) => h.record.status === 'working' && h.record.statusMessage === undefined);
  await store.held.splice(first, 1)[0]?.land();
  return (await start).taskId;
}

/** A promise, and what settles it, for a tool to wait on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('a kit task on a store whose writes take their time', () => {
  it('a status the tool did not await lands before the task completes, never after it: the task stays completed with its result', async () => {
    const store = new LatentStore();
    const tasks = new KitTasks({ store });
    const id = await started(tasks, store, async (control) => {
      void control.status('writing the report');
      return text('the report');
    });
    const most = await landAll(store);
    expect(store.landed.map((r) => [r.status, r.statusMessage])).toEqual([
      ['working', undefined],
      ['working', 'writing the report'],
      ['completed', undefined],
    ]);
    expect(most).toBe(1); // one write at a time: the end waited for the status before it
    const read = await tasks.get(id, 'alice');
    expect(read).toMatchObject({ status: 'completed', result: text('the report') });
    expect(read.statusMessage).toBeUndefined();
    const ended = await tasks.ended(id, 'alice', new AbortController().signal);
    expect(ended.result).toEqual(text('the report'));
    expect(tasks.writing).toBe(0);
  });

  it('a cancel lands after the status queued before it, and a status said after it is dropped: the task stays cancelled', async () => {
    const store = new LatentStore();
    const tasks = new KitTasks({ store });
    const cancelled = gate();
    let late: Promise<void> | undefined;
    const id = await started(tasks, store, async (control) => {
      void control.status('first step');
      await cancelled.opened; // a handler that ignores its signal and goes on
      late = control.status('after the cancel');
      return text('too late');
    });
    const cancel = tasks.cancel(id, 'alice');
    await turn();
    expect(store.held).toHaveLength(1); // the cancel waits behind the status
    expect(await landAll(store)).toBe(1);
    expect((await cancel).status).toBe('cancelled');
    cancelled.open();
    await late;
    expect(await landAll(store)).toBe(0); // neither the late status nor the handler's result is written
    expect(store.landed.map((r) => [r.status, r.statusMessage])).toEqual([
      ['working', undefined],
      ['working', 'first step'],
      ['cancelled', undefined],
    ]);
    expect(await tasks.get(id, 'alice')).toMatchObject({ status: 'cancelled' });
    expect(tasks.writing).toBe(0);
  });

  it("a write the store fails is its caller's error and breaks no later write: the task still completes", async () => {
    const store = new LatentStore();
    const tasks = new KitTasks({ store });
    let said: Promise<void> | undefined;
    const id = await started(tasks, store, async (control) => {
      said = control.status('one'); // not awaited by the tool: its failure is no unhandled rejection
      return text('done');
    });
    await turn();
    expect(store.held.map((h) => h.record.statusMessage)).toEqual(['one']);
    store.held.pop()?.fail(new Error('the disk is gone'));
    await expect(said).rejects.toThrow('the disk is gone');
    expect(await landAll(store)).toBe(1);
    expect(store.landed.map((r) => r.status)).toEqual(['working', 'completed']);
    expect(await tasks.get(id, 'alice')).toMatchObject({ status: 'completed', result: text('done') });
    expect(tasks.writing).toBe(0);
  });

  it('a tool that says how it goes faster than the store writes queues one write behind the one under way, with its last message', async () => {
    const store = new LatentStore();
    const tasks = new KitTasks({ store });
    const said: Promise<void>[] = [];
    const first = gate();
    const id = await started(tasks, store, async (control) => {
      said.push(control.status('step 0'));
      await first.opened; // the first write is under way (held by the store)
      for (let i = 1; i <= 1000; i++) said.push(control.status(`step ${i}`));
      return text('done');
    });
    await turn();
    expect(store.held).toHaveLength(1);
    first.open();
    expect(await landAll(store)).toBe(1);
    await Promise.all(said); // every caller's promise settles, merged or not
    expect(store.landed.map((r) => [r.status, r.statusMessage])).toEqual([
      ['working', undefined],
      ['working', 'step 0'],
      ['working', 'step 1000'],
      ['completed', undefined],
    ]);
    expect(await tasks.get(id, 'alice')).toMatchObject({ status: 'completed' });
    expect(tasks.writing).toBe(0);
  });

  it("a write its store never settles keeps no chain past the task's TTL", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const store = new LatentStore();
      const tasks = new KitTasks({ store, ttlMs: 60_000 });
      await started(tasks, store, async (control) => {
        void control.status('never written');
        return text('done');
      });
      await turn();
      expect(store.held.map((h) => h.record.statusMessage)).toEqual(['never written']); // never landed, never failed
      expect(tasks.writing).toBe(1); // the status under way, the task's end behind it
      vi.advanceTimersByTime(60_000);
      expect(tasks.writing).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('many tasks that ended keep no write chain: a long-lived host holds nothing per ended task', async () => {
    const store = new LatentStore();
    const tasks = new KitTasks({ store });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++)
      ids.push(
        await started(tasks, store, async (control) => {
          void control.status(`task ${i}`);
          if (i % 2 === 1) throw new Error('it failed');
          return text(`result ${i}`);
        }),
      );
    expect(tasks.writing).toBe(20);
    await landAll(store);
    expect(tasks.writing).toBe(0);
    const statuses = await Promise.all(ids.map(async (id) => (await tasks.get(id, 'alice')).status));
    expect(statuses).toEqual(ids.map((_, i) => (i % 2 === 1 ? 'failed' : 'completed')));
  });
});

const SERVER = path.join(REPO_ROOT, 'test/authoring/tasks/late-status-server.ts');
let tmp: { dir: string; cleanup(): void };
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

interface Answer {
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

describe('a kit server on stdio whose task store holds a status write', () => {
  it("a status the tool did not await, held by the store past the task's end, lands before the end: tasks/get reads completed with its result", async () => {
    const log = path.join(tmp.dir, 'late.log');
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER, '--log', log], { cwd: REPO_ROOT, stdio: 'pipe' });
    const waiting = new Map<number, (answer: Answer) => void>();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, at)) as Answer;
        buffered = buffered.slice(at + 1);
        if (typeof message.id === 'number') waiting.get(message.id)?.(message);
      }
    });
    let next = 0;
    const rpc = (method: string, params: Record<string, unknown> = {}) =>
      Promise.race([
        new Promise<Answer>((resolve) => {
          const id = ++next;
          waiting.set(id, resolve);
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
        }),
        exited.then(() => Promise.reject(new Error(`the server exited: ${stderr.slice(-2000)}`))),
      ]);
    try {
      const opened = await rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: { tasks: {} },
        clientInfo: { name: 'raw', version: '1.0.0' },
      });
      expect(opened.result).toBeDefined();
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const created = await rpc('tools/call', { name: 'late', arguments: {}, task: {} });
      const taskId = (created.result?.task as { taskId: string }).taskId;
      // The status write is held; the task's end is asked for behind it (before: written first, then overwritten).
      await vi.waitFor(() => expect(fileLines(log)).toEqual(['held']), { timeout: 30_000, interval: 20 });
      // Another task's write lets the held one land.
      expect((await rpc('tools/call', { name: 'quick', arguments: {}, task: {} })).result?.task).toBeDefined();
      const result = await rpc('tasks/result', { taskId });
      expect(result.result).toMatchObject({ content: [{ type: 'text', text: 'the report' }] });
      const read = await rpc('tasks/get', { taskId });
      expect(read.result).toMatchObject({ taskId, status: 'completed' });
      expect(read.result?.statusMessage).toBeUndefined();
    } finally {
      child.stdin.end();
      child.kill();
      await exited;
    }
  }, 60_000);
});
