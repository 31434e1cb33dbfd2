/**
 * Stored runs written by agt-mcp 0.1.0 keep resuming and deciding (F6, F7, E4, E6, E8): the records of
 * test/runtime/fixtures/stored-records/ are what that release wrote (generate.ts, run once against it), and a
 * waiting call's stored shape may change only by a migration, never by breaking them. Each record goes into a real
 * store — memory and a SQLite file — and resumes against the servers it was written with: the Python fixture server
 * (stdio), the SDK v2 fixture server and a kit task server (loopback HTTP), under the agent it ran as, so its
 * fingerprint matches. No record holds a machine path (their servers' commands and URLs are the registry's, which
 * the fingerprint does not hash); the one thing rebuilt here is the completed task on its server
 * (task-on-server.json), dated now so its TTL has not run out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolServer, type HttpToolService, MemoryTaskStore, serveHttp, type TaskRecord } from '../../src/authoring/index.js';
import {
  MemoryRunStore,
  MemoryStore,
  NativeRun,
  policies,
  ResourceService,
  type RunStore,
  type SuspendedRun,
  type ToolResult,
} from '../../src/index.js';
import { SqliteRunStore } from '../../src/storage/sqlite.js';
import { REPO_ROOT, tempDir } from '../support/index.js';
import { pythonConfig } from '../support/servers.js';
import { startV2Http, type V2HttpServer } from '../mcp/fixtures/v2-server.js';
import { taskTools } from '../authoring/fixtures/task-tools.js';

const RECORDS = path.join(REPO_ROOT, 'test', 'runtime', 'fixtures', 'stored-records');
const record = (name: string): SuspendedRun => JSON.parse(fs.readFileSync(path.join(RECORDS, `${name}.json`), 'utf8')) as SuspendedRun;
const text = (r: ToolResult | undefined) => (r !== undefined && r.status === 'ok' ? (r.content[0] as { text: string }).text : undefined);
const outcome = (r: ToolResult) => [r.callId, r.status, r.status === 'ok' ? text(r) : r.error.code];

const tmp = tempDir('agt-stored-records-');
let v2: V2HttpServer;
let taskServer: HttpToolService;
beforeAll(async () => {
  v2 = await startV2Http({ legacy: 'stateless' });
  // The task the task record waits on, as its server kept it once it completed: its TTL counts from now.
  const now = new Date().toISOString();
  const tasks = new MemoryTaskStore();
  const completed = JSON.parse(fs.readFileSync(path.join(RECORDS, 'task-on-server.json'), 'utf8')) as TaskRecord;
  await tasks.put({ ...completed, createdAt: now, lastUpdatedAt: now });
  const log = path.join(tmp.dir, 'tools.log');
  taskServer = await serveHttp(() =>
    createToolServer({ name: 'run-tasks', version: '1.0.0', tools: taskTools(log), tasks: { store: tasks, pollIntervalMs: 50 } }),
  );
});
afterAll(async () => {
  await Promise.all([v2?.close(), taskServer?.close()]);
  tmp.cleanup();
});

// The registry the records were written against (generate.ts): agent team/records and its three mounts.
async function registry(dir: string) {
  const log = path.join(dir, 'py.log');
  const service = new ResourceService({ store: new MemoryStore() });
  const py = pythonConfig({ extra: ['--log', log] });
  await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py } } });
  await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: v2.url } } } });
  const tasks = { url: taskServer.url, protocol: '2026-07-28' as const };
  await service.write({ kind: 'mcp', reference: 'tools/tasks', create: true, data: { mcpServers: { tasks } } });
  await service.write({ kind: 'agent', reference: 'team/records', create: true, data: { mcps: ['tools/py', 'tools/v2', 'tools/tasks'] } });
  const calls = (): string[] =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { tool: string }).tool)
      : [];
  return { service, calls };
}

const stores: Record<string, (dir: string) => RunStore> = {
  memory: () => new MemoryRunStore(),
  sqlite: (dir) => new SqliteRunStore({ path: path.join(dir, 'runs.db') }),
};

for (const [kind, makeStore] of Object.entries(stores)) {
  describe(`records written by 0.1, resumed from a ${kind} store`, () => {
    const open: { runs: NativeRun[]; store?: RunStore; cleanup?: () => void } = { runs: [] };
    afterEach(async () => {
      await Promise.all(open.runs.splice(0).map((r) => r.close()));
      await open.store?.close?.();
      open.cleanup?.();
    });

    // The record in a fresh store, resumed by run id on a host whose own policy would deny everything (decided calls
    // are not reviewed again).
    async function resume(name: string) {
      const state = record(name);
      const dir = tempDir('agt-stored-record-');
      open.cleanup = dir.cleanup;
      const store = (open.store = makeStore(dir.dir));
      await store.put({ runId: state.runId, agent: state.agent, state }, { expectedRevision: null });
      const { service, calls } = await registry(dir.dir);
      const run = await NativeRun.resume(state.runId, { store, service, policy: policies.denyAll(), elicitation: 'defer', tasks: 'defer' });
      open.runs.push(run);
      return { state, store, run, calls };
    }

    it('F7: a stored approval written by 0.1 (no waitingFor) resumes and is decided; deciding again returns the kept results', async () => {
      const { state, store, run, calls } = await resume('approval');
      expect(state.pending?.map((p) => Object.hasOwn(p, 'waitingFor'))).toEqual([false, false]); // as 0.1 wrote it
      expect(run.pending('b-approval').map((p) => [p.callId, p.waitingFor, p.arguments])).toEqual([
        ['w1', 'approval', { amount: 3 }],
        ['a1', 'approval', { a: 2, b: 3 }],
      ]);
      const decided = await run.decide('b-approval', { w1: { approve: true }, a1: { approve: false, reason: 'not now' } });
      expect(decided.results.map(outcome)).toEqual([
        ['w1', 'ok', '{"balance": 97}'],
        ['a1', 'permission_denied', 'permission_denied'],
      ]);
      expect(decided.pending).toBeUndefined();
      expect(calls()).toEqual(['withdraw']);
      expect((await store.get(state.runId))?.state.pending).toBeUndefined();
      const again = await run.decide('b-approval', { w1: { approve: true }, a1: { approve: true } });
      expect(again).toEqual({ results: decided.results, decidedElsewhere: true });
      expect(calls()).toEqual(['withdraw']); // once
    });

    it('E4: a stored question written by 0.1 resumes and is answered; the call completes', async () => {
      const { state, store, run } = await resume('input');
      expect(run.pending('b-input')).toEqual([
        expect.objectContaining({
          callId: 'q1',
          waitingFor: 'input',
          round: 1,
          arguments: { what: 'ship' },
          requests: { confirm: expect.objectContaining({ method: 'elicitation/create' }) },
        }),
      ]);
      const answered = await run.decide('b-input', { q1: { answers: { confirm: { confirm: true } } } });
      expect(answered.results.map(outcome)).toEqual([['q1', 'ok', 'ship: confirmed (modern)']]);
      expect(answered.pending).toBeUndefined();
      expect((await store.get(state.runId))?.state.pending).toBeUndefined();
    });

    it('E6: a stored task call written by 0.1 resumes and is collected with its task result', async () => {
      const { state, store, run } = await resume('task');
      const waiting = state.pending?.[0];
      const taskId = waiting?.waitingFor === 'task' ? waiting.task?.id : undefined;
      expect(run.pending('b-task')).toEqual([
        expect.objectContaining({ callId: 't1', waitingFor: 'task', task: expect.objectContaining({ id: taskId, status: 'working' }) }),
      ]);
      const collected = await run.collect('b-task', { waitMs: 20_000 });
      expect(collected.results.map(outcome)).toEqual([['t1', 'ok', 'report t1']]);
      expect(collected.pending).toBeUndefined();
      expect((await store.get(state.runId))?.state.pending).toBeUndefined();
    });

    it('E8: stored calls in flight written by 0.1 (approval, input, task), their lease run out, are recovered', async () => {
      const { state, store, run, calls } = await resume('in-flight');
      expect(run.inFlightCalls().map((c) => [c.callId, c.waitingFor])).toEqual([
        ['a1', 'approval'],
        ['w1', 'approval'],
        ['q1', 'input'],
        ['t1', 'task'],
      ]);
      const { recovered } = await run.recover();
      // add declares idempotentHint and runs again; the others may or may not have run: interrupted, never run twice.
      expect(recovered.map((r) => [r.batchId, ...outcome(r.result), r.rerun])).toEqual([
        ['b-flight', 'w1', 'interrupted', 'interrupted', false],
        ['b-flight', 'q1', 'interrupted', 'interrupted', false],
        ['b-flight', 't1', 'interrupted', 'interrupted', false],
        ['b-flight', 'a1', 'ok', '3', true],
      ]);
      expect(calls()).toEqual(['add']);
      const after = (await store.get(state.runId))!.state;
      expect([after.inFlight, after.pending]).toEqual([undefined, undefined]);
      expect(await run.recover()).toEqual({ results: [], recovered: [] }); // once
    });

    it('E8: kept results of decided calls written by 0.1 answer a host that decides them again (decidedElsewhere); nothing runs', async () => {
      const { state, run, calls } = await resume('decided');
      expect(run.pending()).toEqual([]);
      const kept = (state.decided ?? []).map((d) => d.result);
      const again = await run.decide('b-decided', {
        w1: { approve: true },
        w2: { approve: true },
        q1: { answers: { confirm: { confirm: false } } },
        t1: { approve: true },
      });
      expect(again).toEqual({ results: kept, decidedElsewhere: true });
      expect(kept.map(outcome)).toEqual([
        ['w1', 'ok', '{"balance": 98}'],
        ['w2', 'permission_denied', 'permission_denied'],
        ['q1', 'ok', 'ship: confirmed (modern)'],
        ['t1', 'ok', 'report t3'],
      ]);
      expect(calls()).toEqual([]);
    });
  });
}
