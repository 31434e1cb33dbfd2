/**
 * Tasks as calls that wait (E6): a run with `tasks: 'defer'` leaves a call its
 * server runs as a task pending (`waitingFor: 'task'`); `run.collect` ends it
 * with the task's result — in this run, or in another resumed from a SQLite
 * RunStore — exactly once, and `run.cancel` cancels it on its server. Against
 * a kit server over loopback HTTP whose tools write what they do to a log
 * (test/authoring/fixtures/task-tools.ts), both eras.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolServer, type HttpToolService, serveHttp } from '../../../src/authoring/index.js';
import {
  type AuditEvent,
  isAgtError,
  MemoryStore,
  NativeRun,
  type NativeRunOptions,
  policies,
  ResourceService,
  runAgentLoop,
  toolAlias,
} from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing/index.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { fileLines, REPO_ROOT, tempDir, text, waitFor, waitingOf } from '../../support/index.js';
import { taskTools } from '../../authoring/fixtures/task-tools.js';

const tmp = tempDir('agt-tasks-');
const log = path.join(tmp.dir, 'tools.log');
const hold = (id: string) => path.join(tmp.dir, `hold-${id}`);

let service: HttpToolService;
beforeAll(async () => {
  service = await serveHttp(() =>
    createToolServer({ name: 'run-tasks', version: '1.0.0', tools: taskTools(log), tasks: { pollIntervalMs: 50 } }),
  );
});
afterAll(async () => {
  await service.close();
  tmp.cleanup();
});

const runs: NativeRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((r) => r.close()));
});

for (const protocol of ['2026-07-28', 'legacy'] as const) {
  describe(`E6: a task is a call that waits (${protocol})`, () => {
    const tool = (name: string) => toolAlias('tools/tasks', name);
    let registry: ResourceService;
    beforeAll(async () => {
      registry = new ResourceService({ store: new MemoryStore() });
      await registry.write({
        kind: 'mcp',
        reference: 'tools/tasks',
        create: true,
        data: { mcpServers: { tasks: { url: service.url, protocol } } },
      });
      await registry.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['tools/tasks'] } });
    });
    const options = (extra: Partial<NativeRunOptions> = {}) => ({
      service: registry,
      policy: policies.autoAllow('*'),
      tasks: 'defer' as const,
      ...extra,
    });
    const start = async (extra: Partial<NativeRunOptions> = {}) => {
      const run = await NativeRun.start({ agent: 'team/t', ...options(extra) });
      runs.push(run);
      return run;
    };
    const call = (run: NativeRun, batchId: string, id: string, held = true, callId = 'c1') =>
      run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId,
        calls: [{ callId, name: tool('report'), arguments: { id, ...(held ? { hold: hold(id) } : {}) } }],
      });

    it('E6: with tasks "defer" the call waits (waitingFor task, its id and status); the audit has task_started, ids only', async () => {
      const events: AuditEvent[] = [];
      const run = await start({ audit: { record: (e) => void events.push(e) } });
      const id = `${protocol}-a`;
      const started = await call(run, 'b1', id);
      expect(started.results).toEqual([]);
      expect(started.pending).toEqual([
        expect.objectContaining({
          callId: 'c1',
          waitingFor: 'task',
          task: expect.objectContaining({ id: expect.any(String), status: 'working' }),
        }),
      ]);
      const taskId = waitingOf(started.pending?.[0], 'task').task.id;
      expect(events.find((e) => e.type === 'task_started')).toMatchObject({ callId: 'c1', taskId, status: 'working' });
      expect(JSON.stringify(events)).not.toContain(hold(id));
      // Looking once while it runs: nothing to collect, the call still waits.
      expect((await run.collect('b1')).results).toEqual([]);
      fs.writeFileSync(hold(id), '');
      const collected = await run.collect('b1', { waitMs: 20_000 });
      expect(collected.results.map((r) => [r.callId, r.status, text(r)])).toEqual([['c1', 'ok', `report ${id}`]]);
      expect(collected.pending).toBeUndefined();
      expect(fileLines(log).filter((l) => l.endsWith(` ${id}`))).toEqual([`started ${id}`, `done ${id}`]);
      expect(events.find((e) => e.type === 'task_finished')).toMatchObject({ callId: 'c1', taskId, status: 'completed' });
      // Collected once: nothing of the batch waits any more, so collecting it again is not_found.
      await expect(run.collect('b1')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('E6: collected in another run resumed from SQLite; two collectors at once: one result, the other nothing', async () => {
      const store = new SqliteRunStore({ path: path.join(tmp.dir, `runs-${protocol}.db`) });
      const id = `${protocol}-b`;
      const first = await start();
      await call(first, 'b1', id);
      await first.suspend({ store });
      await first.close();
      expect((await store.get(first.id))?.state.version).toBe(4); // a task waits: older hosts refuse the record (newer_format)
      const resume = async () => {
        const run = await NativeRun.resume(first.id, { ...options(), store });
        runs.push(run);
        return run;
      };
      const [x, y] = [await resume(), await resume()];
      expect(x.pending('b1').map((p) => [p.callId, p.waitingFor])).toEqual([['c1', 'task']]);
      fs.writeFileSync(hold(id), '');
      const outcomes = await Promise.allSettled([x.collect('b1', { waitMs: 20_000 }), y.collect('b1', { waitMs: 20_000 })]);
      const results = outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value.results : []));
      expect(results.map((r) => [r.status, text(r)])).toEqual([['ok', `report ${id}`]]);
      for (const o of outcomes) if (o.status === 'rejected') expect(isAgtError(o.reason) && o.reason.code).toBe('revision_conflict');
      expect(fileLines(log).filter((l) => l === `done ${id}`)).toHaveLength(1);
      await store.close();
    });

    it('E6: a host killed (SIGKILL) after starting the task: another process resumes the run from SQLite and collects it; the side effect happened once', async () => {
      const file = path.join(tmp.dir, `killed-${protocol}.db`);
      const id = `${protocol}-k`;
      const host = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(REPO_ROOT, 'test/runtime/fixtures/task-and-die.ts'), file, service.url, protocol, id, hold(id)],
        { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = once(host, 'exit');
      const [line] = (await once(createInterface({ input: host.stdout! }), 'line')) as [string];
      const out = JSON.parse(line) as { runId: string; batchId: string; taskId: string; pid: number };
      host.kill('SIGKILL');
      expect((await exited)[1]).toBe('SIGKILL');
      const store = new SqliteRunStore({ path: file });
      const resumed = await NativeRun.resume(out.runId, { ...options(), store });
      runs.push(resumed);
      expect(resumed.pending().map((p) => [p.callId, p.waitingFor, waitingOf(p, 'task').task.id])).toEqual([['t1', 'task', out.taskId]]);
      fs.writeFileSync(hold(id), '');
      const collected = await resumed.collect(out.batchId, { waitMs: 20_000 });
      expect(collected.results.map((r) => [r.callId, r.status, text(r)])).toEqual([['t1', 'ok', `report ${id}`]]);
      expect(fileLines(log).filter((l) => l.endsWith(` ${id}`))).toEqual([`started ${id}`, `done ${id}`]);
      await store.close();
    }, 60_000);

    it('E6: run.cancel cancels the task on its server (the handler sees its signal, nothing is done); the call ends cancelled', async () => {
      const run = await start();
      const id = `${protocol}-c`;
      await call(run, 'b1', id);
      await waitFor(() => fileLines(log).includes(`started ${id}`));
      const cancelled = await run.cancel('b1', 'c1');
      expect(cancelled.results).toEqual([
        expect.objectContaining({ callId: 'c1', status: 'tool_failed', error: expect.objectContaining({ code: 'cancelled' }) }),
      ]);
      await waitFor(() => fileLines(log).includes(`cancelled ${id}`));
      expect(fileLines(log)).not.toContain(`done ${id}`);
      expect(run.pending('b1')).toEqual([]);
    });

    it('E6: runAgentLoop ends a step that waits on tasks as awaiting_tasks; called again with its history it collects them and goes on', async () => {
      const run = await start();
      const id = `${protocol}-loop`;
      const model = new ScriptedModel([
        { toolCalls: [{ callId: 'l1', name: tool('report'), arguments: { id, hold: hold(id) } }] },
        { text: 'done' },
      ]);
      const waiting = await runAgentLoop({ run, model, maxSteps: 4 });
      expect(waiting.status).toBe('awaiting_tasks');
      expect(waiting.pending?.map((p) => [p.callId, p.waitingFor])).toEqual([['l1', 'task']]);
      const still = await runAgentLoop({ run, model, maxSteps: 4, history: waiting.history });
      expect(still.status).toBe('awaiting_tasks'); // looked once: the task still runs
      fs.writeFileSync(hold(id), '');
      const done = await runAgentLoop({ run, model, maxSteps: 4, history: still.history, taskWaitMs: 20_000 });
      expect(done).toMatchObject({ status: 'completed', text: 'done' });
      expect(JSON.stringify(done.history.find((m) => m.role === 'tool'))).toContain(`report ${id}`);
    });

    it('E6: decide on a task call is invalid_input naming collect and cancel; the call still waits; cancelling a call that does not wait is not_found', async () => {
      const run = await start();
      await call(run, 'b1', `${protocol}-d`);
      const wrong = await run.decide('b1', { c1: { approve: true } }).catch((e: unknown) => e);
      expect(isAgtError(wrong) && wrong.code).toBe('invalid_input');
      expect((wrong as Error).message).toMatch(/run\.collect.*run\.cancel/);
      expect(run.pending('b1')).toHaveLength(1);
      // A call id the batch does not hold: not_found in the words of a task's wait, not of an approval.
      const unknown = await run.cancel('b1', 'c9').catch((e: unknown) => e);
      expect(isAgtError(unknown) && unknown.code).toBe('not_found');
      expect((unknown as Error).message).toMatch(/is not waiting/);
      expect((unknown as Error).message).not.toMatch(/pending|approv|decided/);
      await run.cancel('b1', 'c1');
      const again = await run.cancel('b1', 'c1').catch((e: unknown) => e);
      expect(isAgtError(again) && again.code).toBe('not_found');
      expect((again as Error).message).not.toMatch(/pending|approv/);
    });
  });
}

describe('E6: a question inside a task waits like any question (E4)', () => {
  it('E6: a 2026-07-28 task that asks: collect makes the call wait for input; answered in a run resumed from SQLite, it waits on its task again and is collected', async () => {
    const registry = new ResourceService({ store: new MemoryStore() });
    await registry.write({ kind: 'mcp', reference: 'tools/tasks', create: true, data: { mcpServers: { tasks: { url: service.url } } } });
    await registry.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['tools/tasks'] } });
    const options = { service: registry, policy: policies.autoAllow('*'), tasks: 'defer' as const, elicitation: 'defer' as const };
    const store = new SqliteRunStore({ path: path.join(tmp.dir, 'asked.db') });
    const first = await NativeRun.start({ agent: 'team/t', ...options });
    runs.push(first);
    const started = await first.executeBatch({
      runId: first.id,
      agent: first.agent,
      batchId: 'b1',
      calls: [{ callId: 'c1', name: toolAlias('tools/tasks', 'confirm'), arguments: { id: 'q' } }],
    });
    expect(started.pending?.map((p) => p.waitingFor)).toEqual(['task']);
    await first.suspend({ store });
    const looked = await first.collect('b1', { waitMs: 20_000 });
    expect(looked.results).toEqual([]);
    expect(looked.pending).toEqual([
      expect.objectContaining({
        callId: 'c1',
        waitingFor: 'input',
        requests: { t1: expect.objectContaining({ method: 'elicitation/create' }) },
      }),
    ]);
    const second = await NativeRun.resume(first.id, { ...options, store });
    runs.push(second);
    const answered = await second.decide('b1', { c1: { answers: { t1: { ok: true } } } });
    expect(answered.pending?.map((p) => [p.callId, p.waitingFor])).toEqual([['c1', 'task']]);
    const collected = await second.collect('b1', { waitMs: 20_000 });
    expect(collected.results.map((r) => [r.callId, r.status, text(r)])).toEqual([['c1', 'ok', 'acted on q']]);
    expect(fileLines(log)).toContain('acted q');
    await store.close();
  });
});

describe('E6: a task its server no longer knows', () => {
  it('E6: a task past its TTL on the server ends the waiting call task_lost when collected; nothing else runs', async () => {
    const short = await serveHttp(() =>
      createToolServer({ name: 'short-tasks', version: '1.0.0', tools: taskTools(log), tasks: { ttlMs: 300, pollIntervalMs: 50 } }),
    );
    try {
      const registry = new ResourceService({ store: new MemoryStore() });
      await registry.write({ kind: 'mcp', reference: 'tools/short', create: true, data: { mcpServers: { short: { url: short.url } } } });
      await registry.write({ kind: 'agent', reference: 'team/s', create: true, data: { mcps: ['tools/short'] } });
      const run = await NativeRun.start({ agent: 'team/s', service: registry, policy: policies.autoAllow('*'), tasks: 'defer' });
      runs.push(run);
      await run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: 'b1',
        calls: [{ callId: 'c1', name: toolAlias('tools/short', 'report'), arguments: { id: 'lost', hold: hold('lost') } }],
      });
      // The collector polls until the server no longer knows the task (its TTL ran out): the call ends, task_lost.
      const collected = await run.collect('b1', { waitMs: 20_000 });
      expect(collected.results).toEqual([
        expect.objectContaining({
          callId: 'c1',
          status: 'tool_failed',
          error: expect.objectContaining({ code: 'task_lost', details: expect.objectContaining({ reason: 'unknown_to_server' }) }),
        }),
      ]);
      expect(run.pending('b1')).toEqual([]);
      await waitFor(() => fileLines(log).includes('cancelled lost')); // its handler was stopped: nobody will read its result
      expect(fileLines(log)).not.toContain('done lost');
    } finally {
      await short.close();
    }
  });
});
