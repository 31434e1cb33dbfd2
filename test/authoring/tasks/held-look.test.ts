/**
 * The grace keeps a task's wait short (issue 64). A kit server with a grace
 * (`tasks.graceMs` > 0) paces a young task's poll interval by its age (half
 * of it, at most `pollIntervalMs`) and holds a `tasks/get` of a working task
 * it runs until the task changes or the grace ends, so a look that comes
 * just before the end gets the end. Shown without wall-clock bounds: the
 * handler ends only once the server has read the task for the look (a store
 * that tells the test of each read), so a look answered `completed` was held.
 */
import { createHook } from 'node:async_hooks';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createToolServer,
  defineTool,
  type HttpToolService,
  MemoryTaskStore,
  serveHttp,
  type TaskRecord,
  type TaskServingOptions,
} from '../../../src/authoring/index.js';
import { KitTasks } from '../../../src/authoring/tasks/runner.js';
import { MIN_PACED_POLL_MS } from '../../../src/bounds.js';
import { heldTool } from '../fixtures/task-tools.js';
import { modernRequest as modern, rawSession, taskIdOf, waitFor } from '../../support/index.js';

const services: HttpToolService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

const POLL = 5_000; // the configured interval: far above what pacing asks of a young task
const { tool: held, release } = heldTool();

// A task store that, once armed, releases the held handler on its next read of the task (after that read returned).
class ReleasingStore extends MemoryTaskStore {
  armed = false;
  override async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = await super.get(taskId);
    if (this.armed) {
      this.armed = false;
      setImmediate(() => release());
    }
    return record;
  }
}

async function serve(tasks: TaskServingOptions) {
  const service = await serveHttp(() => createToolServer({ name: 'held', version: '1.0.0', tools: [held], tasks }));
  services.push(service);
  return service.url;
}

describe('E6: a task past the grace is read soon after it ends (2026-07-28)', () => {
  it('E6: its answer asks for a look after half its age, not the configured interval; a look at it working is held until it ends', async () => {
    const store = new ReleasingStore();
    const url = await serve({ store, graceMs: 1_000, pollIntervalMs: POLL });
    const created = await modern(url, 'tools/call', { name: 'held', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    // Answered after the grace (1 s) of a handler that cannot end: half its age is 500 ms or more, below 5 s.
    const paced = created.result?.pollIntervalMs as number;
    expect(paced).toBeGreaterThanOrEqual(500);
    expect(paced).toBeLessThan(POLL);
    store.armed = true; // the handler ends only after the look has read the task working
    const look = await modern(url, 'tasks/get', { taskId: created.result?.taskId as string });
    expect(look.result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'held done' }] } });
    expect(look.result?.pollIntervalMs).toBe(POLL); // an ended task is shown as stored
  }, 30_000);

  it('E6: graceMs 0 paces nothing and holds no look: the configured interval, and a working task read as working', async () => {
    const store = new ReleasingStore();
    const url = await serve({ store, graceMs: 0, pollIntervalMs: POLL });
    const created = await modern(url, 'tools/call', { name: 'held', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: POLL });
    store.armed = true;
    const look = await modern(url, 'tasks/get', { taskId: created.result?.taskId as string });
    expect(look.result).toMatchObject({ status: 'working', pollIntervalMs: POLL });
  });
});

describe('E6: a call answered plainly never stores its task (2026-07-28)', () => {
  it('E6: a handler that ends within the grace writes nothing to the task store; one that runs past it is stored as its call is answered', async () => {
    const puts: string[] = [];
    class Counting extends ReleasingStore {
      override async put(record: TaskRecord): Promise<void> {
        puts.push(record.status);
        return super.put(record);
      }
    }
    const store = new Counting();
    const quick = defineTool({
      name: 'quick',
      description: 'Answers at once.',
      input: v.object({}),
      execution: { taskSupport: 'optional' },
      handler: () => 'quick done',
    });
    const service = await serveHttp(() =>
      createToolServer({ name: 'plain', version: '1.0.0', tools: [quick], tasks: { store, graceMs: 1_000 } }),
    );
    services.push(service);
    const answer = await modern(service.url, 'tools/call', { name: 'quick', arguments: {} });
    expect(answer.result).toMatchObject({ content: [{ type: 'text', text: 'quick done' }] });
    expect(puts).toEqual([]); // not started, not ended, not forgotten: nothing
    const url = await serve({ store, graceMs: 20, pollIntervalMs: POLL });
    const created = await modern(url, 'tools/call', { name: 'held', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(puts).toEqual(['working']); // stored once, as its call was answered with it
    expect(await store.get(created.result?.taskId as string)).toMatchObject({ status: 'working' });
    release();
  });
});

describe('E6: the same in the 2025 era (the client asked for the task)', () => {
  it('E6: the CreateTaskResult asks for a quick first look; tasks/get of the working task is held until it ends', async () => {
    const store = new ReleasingStore();
    const rpc = await rawSession(await serve({ store, graceMs: 1_000, pollIntervalMs: POLL }));
    const created = await rpc('tools/call', { name: 'held', arguments: {}, task: {} });
    const taskId = taskIdOf(created);
    const first = (created.result?.task as { pollInterval?: number }).pollInterval as number;
    expect(first).toBeGreaterThanOrEqual(MIN_PACED_POLL_MS);
    expect(first).toBeLessThan(POLL);
    store.armed = true;
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'completed' });
    expect((await rpc('tasks/result', { taskId })).result).toMatchObject({ content: [{ type: 'text', text: 'held done' }] });
  }, 30_000);
});

describe('E6: held looks leave nothing behind', () => {
  it('E6: 100 looks held on one task, their requests cancelled: each ends at once with the task as it is; no timer of theirs stays', async () => {
    const tasks = new KitTasks({ graceMs: 1_000, pollIntervalMs: POLL });
    let end: () => void = () => undefined;
    const task = await tasks.start(
      'held',
      { owner: 'alice' },
      undefined,
      () => new Promise((resolve) => (end = () => resolve({ content: [] }))),
    );
    const live = new Set<number>();
    const hook = createHook({
      // A Timeout resource is node's Timeout object; its period is node's internal `_idleTimeout`.
      init: (id, type, _trigger, resource) => {
        if (type === 'Timeout' && (resource as { _idleTimeout?: number })._idleTimeout === 1_000) live.add(id);
      },
      destroy: (id) => void live.delete(id),
    }).enable();
    try {
      const cancels = Array.from({ length: 100 }, () => new AbortController());
      const looks = cancels.map((c) => tasks.look(task.taskId, 'alice', c.signal));
      await waitFor(() => live.size === 100);
      for (const c of cancels) c.abort();
      const seen = await Promise.all(looks);
      expect(seen.every((r) => r.status === 'working')).toBe(true);
      await waitFor(() => live.size === 0); // every hold's timer cleared (destroy hooks come on their own tick)
      // Another caller's look is refused before any hold; the owner's next look still sees the end when it comes.
      await expect(tasks.look(task.taskId, 'mallory', new AbortController().signal)).rejects.toThrow(/unknown task/);
      const last = tasks.look(task.taskId, 'alice', new AbortController().signal);
      await waitFor(() => live.size === 1);
      end();
      expect((await last).status).toBe('completed');
    } finally {
      hook.disable();
      tasks.close();
    }
  });
});
