/**
 * Where a task outlives its host (E6): a call waiting on a task of a stdio
 * server the run started as its own connection ends with the run — closing
 * it ends the server and the task, so the call ends task_lost (`reason:
 * server_ended`) at once, recorded in the run's store and said in the run's
 * notices and audit; a run resumed from a JSON state looks once and ends such
 * a call when the new server process does not know its task, but leaves it
 * waiting when the server kept it (SqliteTaskStore on a file); a pool's lease
 * outlives the run, so its calls stay waiting. A real kit task server over
 * stdio (test/authoring/fixtures/task-server.ts), real stores.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AuditEvent,
  McpPool,
  MemoryRunStore,
  MemoryStore,
  NativeRun,
  type NativeRunOptions,
  policies,
  ResourceService,
  type RunStore,
  toolAlias,
} from '../../../src/index.js';
import type { RunAnnouncement } from '../../../src/adapters.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { fileLines, REPO_ROOT, tempDir, text, waitFor, waitingOf } from '../../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/authoring/fixtures/task-server.ts');
const tmp = tempDir('agt-lost-tasks-');
const log = path.join(tmp.dir, 'tools.log');
const hold = (id: string) => path.join(tmp.dir, `hold-${id}`);
const report = toolAlias('tools/tasks', 'report');
afterAll(() => tmp.cleanup());

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

// A registry whose agent mounts the kit task server over stdio (with `taskStore`: its tasks kept in SQLite on that file).
async function registry(taskStore?: string): Promise<ResourceService> {
  const service = new ResourceService({ store: new MemoryStore() });
  const args = ['--import', 'tsx', SERVER, '--log', log, ...(taskStore ? ['--task-store', taskStore] : [])];
  await service.write({
    kind: 'mcp',
    reference: 'tools/tasks',
    create: true,
    data: { mcpServers: { tasks: { command: process.execPath, args, cwd: REPO_ROOT } } },
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

async function resume(target: Parameters<typeof NativeRun.resume>[0], service: ResourceService, extra: object = {}): Promise<NativeRun> {
  const run = await NativeRun.resume(target, { ...options(service), ...extra });
  open.push(run);
  return run;
}

// Starts `report` (held until its hold file exists) as a task the run defers; returns the task's id.
async function startReport(run: NativeRun, id: string): Promise<string> {
  const started = await run.executeBatch({
    runId: run.id,
    agent: run.agent,
    batchId: 'b1',
    calls: [{ callId: 'c1', name: report, arguments: { id, hold: hold(id) } }],
  });
  return waitingOf(started.pending?.[0], 'task').task.id;
}

const lostError = (taskId: string) => ({
  code: 'task_lost',
  message: expect.stringMatching(/the task of this call is gone/),
  details: { taskId, reason: 'server_ended' },
});

describe('E6: a task on a stdio server of the run’s own ends with the run', () => {
  for (const kind of ['SQLite', 'memory'] as const) {
    it(`E6: closing the run ends the call task_lost (server_ended) in its ${kind} RunStore: a resumed run sees it ended at once`, async () => {
      const service = await registry();
      const memory = new MemoryRunStore();
      const store: RunStore = kind === 'SQLite' ? new SqliteRunStore({ path: path.join(tmp.dir, 'runs.db') }) : memory;
      open.push({ close: async () => store.close?.() });
      const events: AuditEvent[] = [];
      const first = await start(service, { audit: { record: (e) => void events.push(e) } });
      const id = `store-${kind}`;
      const taskId = await startReport(first, id);
      await first.suspend({ store });
      expect((await store.get(first.id))?.state.pending?.map((p) => p.waitingFor)).toEqual(['task']);
      const announced: RunAnnouncement[] = [];
      const watch = await memory.watch((a) => void announced.push(a)); // SQLite does not announce
      open.push({ close: () => watch.stop() });
      await first.close();
      // Watchers hear the call ended (not decided: nobody decided it).
      if (kind === 'memory')
        await vi.waitFor(() => expect(announced.flatMap((a) => a.changes)).toEqual([{ change: 'ended', batchId: 'b1', callId: 'c1' }]));

      // The host is told: a notice naming the call, its tool and mount (never an argument), and the audit.
      const notice = first.notices.find((n) => n.includes('task_lost (server_ended)'));
      expect(notice).toContain(`call "c1" of batch "b1" (tool "${report}") waited on a task of mount "tools/tasks"`);
      expect(notice).not.toContain(hold(id));
      expect(events.filter((e) => e.type === 'task_finished' || e.type === 'tool_call')).toEqual([
        expect.objectContaining({ type: 'task_finished', callId: 'c1', taskId, status: 'task_lost' }),
        expect.objectContaining({ type: 'tool_call', callId: 'c1', status: 'tool_failed', code: 'task_lost' }),
      ]);
      expect(JSON.stringify(events)).not.toContain(hold(id));

      // The record: nothing waits, the call's result is kept (like a decided call's), its end announced as ended.
      const stored = (await store.get(first.id))!.state;
      expect(stored.pending).toBeUndefined();
      expect(stored.decided?.map((d) => [d.batchId, d.callId, d.result])).toEqual([
        ['b1', 'c1', { callId: 'c1', status: 'tool_failed', error: lostError(taskId) }],
      ]);

      // Resumed from the store: the call no longer waits; its result is the recorded one, as for any call ended elsewhere.
      const again = await resume(first.id, service, { store });
      expect(again.pending()).toEqual([]);
      await expect(again.collect('b1')).rejects.toMatchObject({ code: 'not_found' });
      const known = await again.decide('b1', { c1: { approve: true } });
      expect(known).toMatchObject({ decidedElsewhere: true, results: [{ callId: 'c1', status: 'tool_failed', error: lostError(taskId) }] });
      expect(fileLines(log)).toContain(`started ${id}`);
      expect(fileLines(log)).not.toContain(`done ${id}`);
    }, 90_000);
  }

  it('E6: closing the run after another host wrote its record merges the end into what that host wrote', async () => {
    const service = await registry();
    const store = new MemoryRunStore();
    const first = await start(service);
    const taskId = await startReport(first, 'merged');
    await first.suspend({ store });
    const other = await resume(first.id, service, { store });
    await other.suspend({ store }); // another host wrote the record since: the closing run's write conflicts
    await first.close();
    const stored = (await store.get(first.id))!.state;
    expect(stored.pending).toBeUndefined();
    expect(stored.decided?.map((d) => d.result)).toEqual([{ callId: 'c1', status: 'tool_failed', error: lostError(taskId) }]);
    expect(first.notices.filter((n) => n.includes('task_lost (server_ended)'))).toHaveLength(1);
    const again = await resume(first.id, service, { store });
    expect(again.pending()).toEqual([]);
  }, 90_000);

  it('E6: a run resumed from a JSON state ends the call at once when the new server process does not know the task', async () => {
    const service = await registry();
    const first = await start(service);
    const taskId = await startReport(first, 'json');
    const state = await first.suspend(); // the host keeps the JSON; closing the run cannot change it
    await first.close();
    expect(state.pending?.map((p) => p.waitingFor)).toEqual(['task']);
    expect(first.notices.some((n) => n.includes('task_lost (server_ended)'))).toBe(true);

    const events: AuditEvent[] = [];
    const again = await resume(state, service, { audit: { record: (e: AuditEvent) => void events.push(e) } });
    expect(again.pending()).toEqual([]);
    expect(again.notices.find((n) => n.includes('task_lost (server_ended)'))).toContain(
      `call "c1" of batch "b1" (tool "${report}") waited on a task of mount "tools/tasks"`,
    );
    expect(events.find((e) => e.type === 'task_finished')).toMatchObject({ callId: 'c1', taskId, status: 'task_lost' });
    const resumed = await again.suspend();
    expect(resumed.pending).toBeUndefined();
    expect(resumed.decided?.map((d) => d.result)).toEqual([{ callId: 'c1', status: 'tool_failed', error: lostError(taskId) }]);
  }, 90_000);

  it('E6: a server that kept its task (SqliteTaskStore on a file) still answers after resume from JSON: the call waits, then is collected', async () => {
    const service = await registry(path.join(tmp.dir, 'tasks.db'));
    const first = await start(service);
    await startReport(first, 'kept');
    fs.writeFileSync(hold('kept'), '');
    await waitFor(() => fileLines(log).includes('done kept')); // the task ended, its result is in the task store's file
    const state = await first.suspend();
    await first.close();

    const again = await resume(state, service);
    expect(again.pending().map((p) => [p.callId, p.waitingFor])).toEqual([['c1', 'task']]);
    expect(again.notices.some((n) => n.includes('task_lost'))).toBe(false);
    const collected = await again.collect('b1', { waitMs: 20_000 });
    expect(collected.results.map((r) => [r.callId, r.status, text(r)])).toEqual([['c1', 'ok', 'report kept']]);
  }, 90_000);

  it('E6: a pool’s lease outlives the run: its calls stay waiting after close, and a run resumed on the pool collects them', async () => {
    const service = await registry();
    const pool = new McpPool({ service });
    open.push(pool);
    const store = new MemoryRunStore();
    const first = await start(service, { pool, scope: 'lost-tasks' });
    await startReport(first, 'pooled');
    await first.suspend({ store });
    await first.close();
    expect(first.notices.some((n) => n.includes('task_lost'))).toBe(false);
    expect((await store.get(first.id))?.state.pending?.map((p) => [p.callId, p.waitingFor])).toEqual([['c1', 'task']]);

    const again = await resume(first.id, service, { store, pool, scope: 'lost-tasks' });
    expect(again.pending().map((p) => [p.callId, p.waitingFor])).toEqual([['c1', 'task']]);
    fs.writeFileSync(hold('pooled'), '');
    const collected = await again.collect('b1', { waitMs: 20_000 });
    expect(collected.results.map((r) => [r.callId, r.status, text(r)])).toEqual([['c1', 'ok', 'report pooled']]);
  }, 90_000);
});
