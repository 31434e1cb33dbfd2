/**
 * A hostile client of a kit task server, and a task store written by hand
 * (E4, E6), over real HTTP on loopback with raw
 * JSON-RPC in both eras, on real SQLite files: abandoned `tasks/result`
 * requests cost no store reads each; a task whose TTL ends while its handler
 * ignores its signal answers its waiters; a record edited by hand (bad JSON,
 * a status or TTL no kit writes, another task's id) is never shown as it is
 * nor names a task id, and never stops another session's `tasks/list`; a
 * `tasks/update` answer that is no answer is refused, not dropped in silence.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createToolServer,
  defineTool,
  type HttpToolService,
  MemoryTaskStore,
  type ServableTool,
  serveHttp,
  type TaskRecord,
  type TaskServingOptions,
} from '../../../src/authoring/index.js';
import { MAX_MEMORY_TASK_CHARS, MIN_TASK_POLL_MS } from '../../../src/bounds.js';
import { SqliteTaskStore } from '../../../src/storage/sqlite.js';
import { modernRequest as modern, rawSession, taskIdOf, tempDir } from '../../support/index.js';
import { rawSqlite } from '../../support/sqlite.js';
import { taskTools } from '../fixtures/task-tools.js';

let tmp: { dir: string; cleanup(): void };
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());
const services: HttpToolService[] = [];
const stores: SqliteTaskStore[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  for (const s of stores.splice(0)) await s.close();
});

async function serve(
  name: string,
  tasks: TaskServingOptions,
  tools: readonly ServableTool[] = taskTools(path.join(tmp.dir, `${name}.log`)),
) {
  const service = await serveHttp(() => createToolServer({ name, version: '1.0.0', tools, tasks: { pollIntervalMs: 50, ...tasks } }));
  services.push(service);
  return service.url;
}

const sqlite = (file: string) => {
  const store = new SqliteTaskStore({ path: file });
  stores.push(store);
  return store;
};

describe('tasks/result requests a client abandoned', () => {
  it('E6: however many tasks/result requests wait on a task another server runs, its store is read once per poll interval, not once per request', async () => {
    const file = path.join(tmp.dir, 'waits.db');
    const hold = path.join(tmp.dir, 'waits-hold');
    // The runner and the reader share one SQLite file, as two processes of a service do; the reader's reads are counted.
    const reads: number[] = [];
    class Counted extends SqliteTaskStore {
      override async get(taskId: string): Promise<TaskRecord | undefined> {
        reads.push(performance.now());
        return super.get(taskId);
      }
    }
    const counted = new Counted({ path: file });
    stores.push(counted);
    const runner = await rawSession(await serve('waits-runner', { store: sqlite(file) }));
    const reader = await rawSession(await serve('waits-reader', { store: counted }));
    const taskId = taskIdOf(await runner('tools/call', { name: 'report', arguments: { id: 'w', hold }, task: {} }));
    // 40 requests wait, then their client goes away (its fetches aborted); one more stays.
    const gone = new AbortController();
    const abandoned = Array.from({ length: 40 }, () => reader('tasks/result', { taskId }, gone.signal).catch(() => undefined));
    const kept = reader('tasks/result', { taskId });
    await vi.waitFor(() => expect(reads.length).toBeGreaterThan(41), { timeout: 20_000 });
    gone.abort();
    await Promise.all(abandoned);
    // The next 20 reads: one per poll interval (at least MIN_TASK_POLL_MS apart); before, 41 at each interval.
    const from = reads.length;
    await vi.waitFor(() => expect(reads.length).toBeGreaterThanOrEqual(from + 20), { timeout: 30_000 });
    const span = (reads[from + 19] as number) - (reads[from] as number);
    expect(span).toBeGreaterThanOrEqual(19 * MIN_TASK_POLL_MS * 0.9);
    // The request that stayed still gets the result.
    fs.writeFileSync(hold, '');
    expect((await kept).result).toMatchObject({ content: [{ type: 'text', text: 'report w' }] });
  }, 60_000);

  it('E6: a tasks/result waiting on a task whose TTL ends while its handler ignores its signal is answered at the TTL (unknown task), not when the handler returns', async () => {
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'Never returns, and ignores its signal.',
      input: v.object({}),
      execution: { taskSupport: 'optional' },
      handler: () => new Promise<string>(() => undefined),
    });
    const rpc = await rawSession(await serve('stubborn', { ttlMs: 1_000 }, [stubborn]));
    const taskId = taskIdOf(await rpc('tools/call', { name: 'stubborn', arguments: {}, task: {} }));
    const waited = await rpc('tasks/result', { taskId }); // before: never answered
    expect(waited.error).toMatchObject({ code: -32602, message: expect.stringContaining('unknown task') });
  }, 30_000);
});

describe('a task store edited by hand', () => {
  it("E6: a SQLite task row that is not JSON never stops another session's tasks/list, and no error names a task id", async () => {
    const file = path.join(tmp.dir, 'corrupt.db');
    const url = await serve('corrupt', { store: sqlite(file) });
    const alice = await rawSession(url);
    const bob = await rawSession(url);
    const hers = taskIdOf(await alice('tools/call', { name: 'quick', arguments: { text: 'a' }, task: {} }));
    const his = taskIdOf(await bob('tools/call', { name: 'quick', arguments: { text: 'b' }, task: {} }));
    const db = rawSqlite(file);
    try {
      db.prepare('UPDATE agt_tasks SET record = ? WHERE task_id = ?').run('{not json', hers);
    } finally {
      db.close();
    }
    // Before: bob's list failed with "task <alice's id> is not valid JSON…".
    const listed = await bob('tasks/list');
    expect(listed.result?.tasks?.map((t) => t.taskId)).toEqual([his]);
    expect(JSON.stringify(listed)).not.toContain(hers);
    const read = await alice('tasks/get', { taskId: hers });
    expect(read.error).toMatchObject({ code: -32603, message: expect.stringContaining('corrupt or hand-edited') });
    expect(read.error?.message).not.toContain(hers);
    expect((await alice('tasks/list')).result?.tasks).toEqual([]);
  });

  it("E6: a task record edited by hand (a status, TTL, poll interval or date no kit writes, another task's id, not an object) is never shown as it is: tasks/get and tasks/cancel answer an internal error naming neither a value nor an id, tasks/list leaves it out", async () => {
    const file = path.join(tmp.dir, 'edited.db');
    const url = await serve('edited', { store: sqlite(file) });
    const rpc = await rawSession(url);
    const other = taskIdOf(await rpc('tools/call', { name: 'quick', arguments: { text: 'other' }, task: {} }));
    const edits: [string, (r: Record<string, unknown>) => unknown][] = [
      ['status', (r) => ({ ...r, status: 'SECRET-STATUS' })],
      ['ttl', (r) => ({ ...r, ttlMs: 1e300 })],
      ['ttl text', (r) => ({ ...r, ttlMs: 'SECRET-TTL' })],
      ['poll', (r) => ({ ...r, pollIntervalMs: -1 })],
      ['date', (r) => ({ ...r, createdAt: 'SECRET-DATE' })],
      ['id', (r) => ({ ...r, taskId: other })],
      ['error', (r) => ({ ...r, status: 'failed', error: 'SECRET-ERROR' })],
      ['null', () => null],
      ['array', () => ['SECRET']],
    ];
    const db = rawSqlite(file);
    try {
      for (const [what, edit] of edits) {
        const taskId = taskIdOf(await rpc('tools/call', { name: 'quick', arguments: { text: what }, task: {} }));
        const row = db.prepare('SELECT record FROM agt_tasks WHERE task_id = ?').get(taskId) as { record: string };
        db.prepare('UPDATE agt_tasks SET record = ? WHERE task_id = ?').run(JSON.stringify(edit(JSON.parse(row.record))), taskId);
        for (const method of ['tasks/get', 'tasks/cancel', 'tasks/result']) {
          const answer = await rpc(method, { taskId });
          expect(answer.result, `${what}: ${method}`).toBeUndefined();
          expect(answer.error, `${what}: ${method}`).toMatchObject({ code: -32603, message: expect.stringContaining('hand-edited') });
          expect(answer.error?.message, `${what}: ${method}`).not.toMatch(/SECRET|[0-9a-f]{8}-[0-9a-f]{4}-/);
        }
        const got = await modern(url, 'tasks/get', { taskId });
        expect(got.error, `${what}: 2026-07-28 tasks/get`).toMatchObject({ code: -32603 });
        expect(JSON.stringify(got), what).not.toContain('SECRET');
      }
    } finally {
      db.close();
    }
    expect((await rpc('tasks/list')).result?.tasks?.map((t) => t.taskId)).toEqual([other]);
  });
});

describe('tasks/update answers that are no answers (E4)', () => {
  it('E4: a 2026-07-28 tasks/update whose answer to a question the task waits on is not an object is refused (-32602 naming the question), not dropped in silence; a good answer then goes through', async () => {
    const url = await serve('update', {});
    const created = await modern(url, 'tools/call', { name: 'confirm', arguments: { id: 'u' } });
    const taskId = created.result?.taskId as string;
    expect(taskId).toEqual(expect.any(String));
    await vi.waitFor(async () => expect((await modern(url, 'tasks/get', { taskId })).result).toMatchObject({ status: 'input_required' }), {
      timeout: 20_000,
    });
    for (const wrong of ['SECRET-ANSWER', 42, ['SECRET'], null]) {
      const refused = await modern(url, 'tasks/update', { taskId, inputResponses: { t1: wrong } });
      expect(refused.error, JSON.stringify(wrong)).toMatchObject({ code: -32602, data: { reason: 'invalid_answer', question: 't1' } });
      expect(refused.error?.message).not.toContain('SECRET');
    }
    expect((await modern(url, 'tasks/get', { taskId })).result).toMatchObject({ status: 'input_required' });
    await modern(url, 'tasks/update', { taskId, inputResponses: { t1: { action: 'accept', content: { ok: true } } } });
    await vi.waitFor(async () => expect((await modern(url, 'tasks/get', { taskId })).result).toMatchObject({ status: 'completed' }), {
      timeout: 20_000,
    });
  });
});

describe("a task store's own errors", () => {
  it("E6: a task store that throws (its driver's message quoting a connection string) is never quoted to a client, in either era; a refused creation frees its place", async () => {
    const secret = 'postgres://admin:SECRET-PW@db.internal/tasks';
    let refusing = true;
    class Failing extends MemoryTaskStore {
      override async put(record: TaskRecord): Promise<void> {
        if (refusing) throw new Error(`cannot reach ${secret}`);
        return super.put(record);
      }
      override async get(taskId: string): Promise<TaskRecord | undefined> {
        if (refusing) throw new Error(`cannot reach ${secret}`);
        return super.get(taskId);
      }
      override async list(owner: string | null): Promise<TaskRecord[]> {
        if (refusing) throw new Error(`cannot reach ${secret}`);
        return super.list(owner);
      }
    }
    const url = await serve('failing', { store: new Failing(), maxRunningPerCaller: 1 });
    const rpc = await rawSession(url);
    const answers = [
      await rpc('tools/call', { name: 'report', arguments: { id: 'f' }, task: {} }),
      await rpc('tools/call', { name: 'report', arguments: { id: 'g' }, task: {} }),
      await rpc('tasks/get', { taskId: 'a-task' }),
      await rpc('tasks/result', { taskId: 'a-task' }),
      await rpc('tasks/cancel', { taskId: 'a-task' }),
      await rpc('tasks/list'),
      // 2026-07-28: a handler that runs past the grace is stored as its call is answered with the task: refused.
      await modern(url, 'tools/call', { name: 'report', arguments: { id: 'h', hold: path.join(tmp.dir, 'never') } }),
      await modern(url, 'tasks/get', { taskId: 'a-task' }),
    ];
    for (const answer of answers) {
      expect(answer.error, JSON.stringify(answer)).toMatchObject({ code: -32603, message: expect.stringContaining('task store') });
      expect(JSON.stringify(answer)).not.toContain('SECRET');
    }
    // One that ends within the grace is answered plainly: its task is never stored, so the store's state is not its concern.
    const plain = await modern(url, 'tools/call', { name: 'quick', arguments: { text: 'q' } });
    expect(plain.result).toMatchObject({ content: [{ type: 'text', text: 'q' }] });
    // The refused creations hold no place: with the store back, this caller (bound to one running task) starts one.
    refusing = false;
    const started = await rpc('tools/call', { name: 'quick', arguments: { text: 'q' }, task: {} });
    expect(started.result?.task?.taskId).toEqual(expect.any(String));
  });
});

describe('the memory task store, filled by a hostile caller', () => {
  // A tool whose result the caller sizes (an echo would do): results, not records, are what fill a store.
  const sized = defineTool({
    name: 'sized',
    description: 'Answers with as many characters as asked.',
    input: v.object({ chars: v.number() }),
    execution: { taskSupport: 'optional' },
    handler: ({ chars }) => 'x'.repeat(chars),
  });

  it('E6: the memory task store holds at most maxChars (default MAX_MEMORY_TASK_CHARS) of records: past it the oldest ended tasks go first, and a result larger than all of it ends its task failed, not kept', async () => {
    expect(MAX_MEMORY_TASK_CHARS).toBe(64 * 1024 * 1024);
    const maxChars = 200_000;
    const url = await serve('memory-chars', { store: new MemoryTaskStore({ maxChars }) }, [sized]);
    const rpc = await rawSession(url);
    const ended = async (taskId: string) => {
      let status: unknown;
      await vi.waitFor(
        async () => {
          status = (await rpc('tasks/get', { taskId })).result?.status;
          expect(status).not.toBe('working');
        },
        { timeout: 20_000 },
      );
      return status;
    };
    // Twelve results of a tenth of the bound each: more than the store holds.
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(taskIdOf(await rpc('tools/call', { name: 'sized', arguments: { chars: maxChars / 10 }, task: {} })));
      expect(await ended(ids[i] as string)).toBe('completed');
    }
    const kept = (await rpc('tasks/list')).result?.tasks?.map((t) => t.taskId) ?? [];
    expect(kept.length).toBeLessThan(10); // before: all twelve kept (the store counted records, not their size)
    expect(kept[0]).toBe(ids[11]); // the newest kept, the oldest gone first
    expect(kept).not.toContain(ids[0]);
    expect((await rpc('tasks/get', { taskId: ids[0] })).error).toMatchObject({ code: -32602 });
    // One result larger than the whole store: its task ends failed (the client need not wait for its TTL).
    const huge = taskIdOf(await rpc('tools/call', { name: 'sized', arguments: { chars: maxChars + 1 }, task: {} }));
    expect(await ended(huge)).toBe('failed');
    expect((await rpc('tasks/result', { taskId: huge })).error?.message).toContain('could not be stored');
    expect(() => new MemoryTaskStore({ maxChars: 0 })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  }, 60_000);
});
