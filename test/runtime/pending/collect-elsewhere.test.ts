/**
 * Collecting a task call in a second host (E6), against a kit server over
 * loopback HTTP that restarts in between: with a task store the server keeps
 * (SqliteTaskStore on a file) the second host collects the result; without
 * one, the call ends `task_lost` with the message and details errors.md gives
 * (`taskId`, `reason: 'unknown_to_server'`). And `run.collect` of a batch id
 * nothing waits in is `not_found` at once, however long `waitMs` is.
 */
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createToolServer, type HttpToolService, serveHttp } from '../../../src/authoring/index.js';
import { MemoryStore, NativeRun, policies, ResourceService, runAgentLoop, toolAlias } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing/index.js';
import { SqliteRunStore, SqliteTaskStore } from '../../../src/storage/sqlite.js';
import { fileLines, tempDir, text, waitFor } from '../../support/index.js';
import { taskTools } from '../../authoring/fixtures/task-tools.js';

const tmp = tempDir('agt-collect-elsewhere-');
const log = path.join(tmp.dir, 'tools.log');
afterAll(() => tmp.cleanup());
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

// The server, its tasks in `taskFile` when given (kept across its restarts) or in memory (lost with it).
function serve(taskFile: string | undefined, port = 0): Promise<HttpToolService> {
  return serveHttp(
    () =>
      createToolServer({
        name: 'tasks',
        version: '1.0.0',
        tools: taskTools(log),
        // graceMs 0: the call is answered with its task however soon its handler ends (the task is what is collected).
        tasks: { pollIntervalMs: 50, graceMs: 0, ...(taskFile ? { store: new SqliteTaskStore({ path: taskFile }) } : {}) },
      }),
    { port },
  );
}

async function setUp(name: string, taskFile: string | undefined) {
  const server = await serve(taskFile);
  const registry = new ResourceService({ store: new MemoryStore() });
  await registry.write({ kind: 'mcp', reference: 'tools/tasks', create: true, data: { mcpServers: { tasks: { url: server.url } } } });
  await registry.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['tools/tasks'] } });
  const runStore = new SqliteRunStore({ path: path.join(tmp.dir, `${name}-runs.db`) });
  open.push(runStore);
  const options = { service: registry, policy: policies.autoAllow('*'), tasks: 'defer' as const };
  const first = await NativeRun.start({ agent: 'team/t', ...options });
  await first.executeBatch({
    runId: first.id,
    agent: first.agent,
    batchId: 'b1',
    calls: [{ callId: 'c1', name: toolAlias('tools/tasks', 'report'), arguments: { id: name } }],
  });
  const waiting = first.pending()[0];
  const taskId = waiting?.waitingFor === 'task' ? waiting.task.id : undefined;
  await waitFor(() => fileLines(log).includes(`done ${name}`)); // the task ended on the server: its result is there
  await first.suspend({ store: runStore });
  await first.close();
  // The server restarts on the same port (the same config, so the same fingerprint).
  const port = server.port;
  await server.close();
  const again = await serve(taskFile, port);
  open.push(again);
  const second = await NativeRun.resume(first.id, { ...options, store: runStore });
  open.push(second);
  return { second, taskId };
}

describe('E6: a task call collected in a second host, its server restarted in between', () => {
  it('E6: the server kept its tasks (SqliteTaskStore): the second host collects the result', async () => {
    const { second } = await setUp('kept', path.join(tmp.dir, 'tasks.db'));
    const collected = await second.collect('b1', { waitMs: 20_000 });
    expect(collected.results.map((r) => [r.callId, r.status, text(r)])).toEqual([['c1', 'ok', 'report kept']]);
  }, 90_000);

  it("E6: the server kept none: task_lost naming the task, reason unknown_to_server, in errors.md's words", async () => {
    const { second, taskId } = await setUp('gone', undefined);
    expect(taskId).toEqual(expect.any(String));
    const collected = await second.collect('b1', { waitMs: 20_000 });
    expect(collected.results).toEqual([
      expect.objectContaining({
        callId: 'c1',
        status: 'tool_failed',
        error: expect.objectContaining({ code: 'task_lost', details: { taskId, reason: 'unknown_to_server' } }),
      }),
    ]);
    const result = collected.results[0];
    const message = result !== undefined && 'error' in result ? result.error.message : '';
    expect(message).toContain('no longer knows');
    expect(message).not.toContain('failed before the server answered');
    expect(second.pending()).toEqual([]);
  }, 90_000);

  it('E6: collect of a batch id nothing waits in is not_found at once, whatever waitMs', async () => {
    const { second } = await setUp('typo', path.join(tmp.dir, 'tasks-typo.db'));
    // A ten-minute waitMs: this test would time out if collect waited for it.
    await expect(second.collect('b2', { waitMs: 600_000 })).rejects.toMatchObject({ code: 'not_found' });
    expect(second.pending().map((p) => [p.batchId, p.callId])).toEqual([['b1', 'c1']]);
  }, 90_000);

  it('E6: runAgentLoop given the history of a step another host collected goes on with the result that host kept', async () => {
    const server = await serve(undefined);
    open.push(server);
    const registry = new ResourceService({ store: new MemoryStore() });
    await registry.write({ kind: 'mcp', reference: 'tools/tasks', create: true, data: { mcpServers: { tasks: { url: server.url } } } });
    await registry.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['tools/tasks'] } });
    const runStore = new SqliteRunStore({ path: path.join(tmp.dir, 'loop-runs.db') });
    open.push(runStore);
    const options = { service: registry, policy: policies.autoAllow('*'), tasks: 'defer' as const };
    const first = await NativeRun.start({ agent: 'team/t', ...options });
    const waiting = await runAgentLoop({
      run: first,
      model: new ScriptedModel([{ toolCalls: [{ callId: 'l1', name: toolAlias('tools/tasks', 'report'), arguments: { id: 'loop' } }] }]),
      maxSteps: 4,
    });
    expect(waiting.status).toBe('awaiting_tasks');
    await first.suspend({ store: runStore });
    await first.close();
    // Another host collects it (and records the end in the store).
    const other = await NativeRun.resume(first.id, { ...options, store: runStore });
    open.push(other);
    const batchId = waiting.pending?.[0]?.batchId as string;
    expect((await other.collect(batchId, { waitMs: 20_000 })).results.map((r) => r.status)).toEqual(['ok']);
    // A third resumes and goes on with the loop's history: nothing waits here, the kept result completes the step.
    const third = await NativeRun.resume(first.id, { ...options, store: runStore });
    open.push(third);
    const done = await runAgentLoop({ run: third, model: new ScriptedModel([{ text: 'done' }]), maxSteps: 4, history: waiting.history });
    expect(done).toMatchObject({ status: 'completed', text: 'done' });
    expect(JSON.stringify(done.history.find((m) => m.role === 'tool'))).toContain('report loop');
  }, 90_000);
});
