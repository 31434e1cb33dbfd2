/**
 * Tool calls a server runs as tasks (E6), both eras, through
 * @modelcontextprotocol/ext-tasks against a real kit server process
 * (test/authoring/fixtures/task-server.ts): waited for inline by default, the
 * side effect once; a cancel or the deadline reaches the server (the handler's
 * signal fires, no side effect); a question inside a 2026-07-28 task is
 * answered by the connection's handler through tasks/update.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectMcp, type McpConnection } from '../../../src/index.js';
import { checkServer } from '../../../src/authoring/index.js';
import type { McpTaskStarted } from '../../../src/adapters.js';
import { fileLines, REPO_ROOT, tempDir, text } from '../../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/authoring/fixtures/task-server.ts');
let tmp: { dir: string; cleanup(): void };
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('expected a failure'),
    (e: unknown) => e as { code: string; details?: object },
  );

const config = (log: string, protocol: 'legacy' | '2026-07-28') => ({
  command: process.execPath,
  args: ['--import', 'tsx', SERVER, '--log', log],
  cwd: REPO_ROOT,
  protocol,
});

for (const protocol of ['2026-07-28', 'legacy'] as const) {
  describe(`E6: tasks on ${protocol}`, () => {
    let log: string;
    let connection: McpConnection;
    beforeAll(async () => {
      log = path.join(tmp.dir, `${protocol}.log`);
      connection = await connectMcp(config(log, protocol), {
        timeouts: { handshakeMs: 20_000 },
        elicitation: async () => ({ action: 'accept', content: { ok: true } }),
      });
      const tools = await connection.listTools();
      // 2025: the tool says it may run as a task; 2026-07-28: the server declares the extension and decides per call.
      if (protocol === 'legacy') expect(tools.find((t) => t.name === 'report')?.execution).toEqual({ taskSupport: 'optional' });
      else expect(connection.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    }, 60_000);
    afterAll(async () => connection?.close());

    it('E6: a tool the server runs as a task is waited for inline (tasks "wait", the default); its side effect happens once', async () => {
      expect(text(await connection.callTool('report', { id: 'a' }))).toBe('report a');
      expect(fileLines(log).filter((l) => l.endsWith(' a'))).toEqual(['started a', 'done a']);
      expect(connection.inFlight).toBe(0);
    });

    it('E6: cancelling the call cancels the task on its server: the handler sees its signal, nothing is done', async () => {
      const controller = new AbortController();
      const call = connection.callTool('report', { id: 'b', hold: path.join(tmp.dir, `${protocol}-never`) }, { signal: controller.signal });
      await vi.waitFor(() => expect(fileLines(log)).toContain('started b'), { timeout: 20_000 });
      controller.abort();
      expect(await failure(call)).toMatchObject({ code: 'cancelled' });
      await vi.waitFor(() => expect(fileLines(log)).toContain('cancelled b'), { timeout: 20_000 });
      expect(fileLines(log)).not.toContain('done b');
      expect(text(await connection.callTool('quick', { text: 'still here' }))).toBe('still here');
    });

    // 2025: the creating request is not cancelled, its answer names the task and tasks/cancel follows. 2026-07-28: the
    // creating request is cancelled (notifications/cancelled); an answer already sent reaches onLate (tasks/cancel), and a
    // kit server that created the task but had not answered cancels the task itself (no client could name it).
    it('E6: a call cancelled before its task creation was answered still cancels the task on its server', async () => {
      const controller = new AbortController();
      const call = connection.callTool('report', { id: 'e', hold: path.join(tmp.dir, `${protocol}-never`) }, { signal: controller.signal });
      controller.abort(); // the creating request is on its way: only its answer names the task
      expect(await failure(call)).toMatchObject({ code: 'cancelled' });
      await vi.waitFor(() => expect(fileLines(log)).toContain('cancelled e'), { timeout: 20_000 });
      expect(fileLines(log)).not.toContain('done e');
    });

    it("E6: a task past the call's total deadline is call_timeout task_timeout, and cancelled on its server", async () => {
      const call = connection.callTool('report', { id: 'c', hold: path.join(tmp.dir, `${protocol}-never`) }, { maxTotalTimeoutMs: 1500 });
      expect(await failure(call)).toMatchObject({ code: 'call_timeout', details: { reason: 'task_timeout' } });
      await vi.waitFor(() => expect(fileLines(log)).toContain('cancelled c'), { timeout: 20_000 });
      expect(fileLines(log)).not.toContain('done c');
    });

    it("E6: a held task finishes when its hold is released; the result is the handler's", async () => {
      const hold = path.join(tmp.dir, `${protocol}-hold-d`);
      const call = connection.callTool('report', { id: 'd', hold });
      await vi.waitFor(() => expect(fileLines(log)).toContain('started d'), { timeout: 20_000 });
      fs.writeFileSync(hold, '');
      expect(text(await call)).toBe('report d');
      expect(fileLines(log).filter((l) => l.endsWith(' d'))).toEqual(['started d', 'done d']);
    });
  });
}

describe('E6: tasks that outlive their server process', () => {
  it('E6: with a SqliteTaskStore, a task that ended is read from the server started again (stdio: a new process)', async () => {
    const log = path.join(tmp.dir, 'stored.log');
    const store = path.join(tmp.dir, 'tasks.db');
    const stored = (protocol: 'legacy' | '2026-07-28') => ({
      ...config(log, protocol),
      // A 2026-07-28 call whose handler ends at once is answered with its task all the same (no grace), so it is stored.
      args: [...config(log, protocol).args, '--task-store', store, '--grace-ms', '0'],
    });
    const first = await connectMcp(stored('2026-07-28'), { timeouts: { handshakeMs: 20_000 }, tasks: 'defer' });
    let taskId: string;
    try {
      await first.listTools();
      const started = await first.callToolOrInput('report', { id: 'kept' });
      expect(started).toMatchObject({ resultType: 'task', task: { status: expect.any(String) } });
      taskId = (started as McpTaskStarted).task.id;
      await vi.waitFor(async () => expect((await first.getTask(taskId)).status).toBe('completed'), { timeout: 20_000 });
    } finally {
      await first.close(); // its server process ends
    }
    await using second = await connectMcp(stored('2026-07-28'), { timeouts: { handshakeMs: 20_000 }, tasks: 'defer' });
    expect(text(await second.getTaskResult(taskId))).toBe('report kept');
    expect(fileLines(log).filter((l) => l.endsWith(' kept'))).toEqual(['started kept', 'done kept']);
    expect(await failure(second.getTask('no-such-task'))).toMatchObject({
      code: 'task_lost',
      details: { taskId: 'no-such-task', reason: 'unknown_to_server' },
    });
  });
});

describe('E6: a kit server whose task store fails', () => {
  const refusing = (log: string, what: 'results' | 'ends') => ({
    ...config(log, 'legacy'),
    args: [...config(log, 'legacy').args, '--store-refuses', what],
  });
  const started = async (connection: McpConnection, id: string) =>
    ((await connection.callToolOrInput('report', { id })) as McpTaskStarted).task.id;

  it('E6: a result the task store refuses ends the task failed (its client need not wait for the TTL); the server goes on', async () => {
    const log = path.join(tmp.dir, 'refused-result.log');
    await using connection = await connectMcp(refusing(log, 'results'), { timeouts: { handshakeMs: 20_000 }, tasks: 'defer' });
    await connection.listTools();
    const taskId = await started(connection, 'big');
    await vi.waitFor(async () => expect((await connection.getTask(taskId)).status).toBe('failed'), { timeout: 20_000 });
    const refused = (await failure(connection.getTaskResult(taskId))) as { code: string; message: string };
    expect(refused).toMatchObject({ code: 'protocol_error', details: { reason: 'task_failed' } });
    expect(refused.message).toContain('its result could not be stored');
    expect(await connection.ping()).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it("E6: a task store that cannot write a task's end at all leaves the task as last stored; the server process goes on serving", async () => {
    const log = path.join(tmp.dir, 'refused-end.log');
    await using connection = await connectMcp(refusing(log, 'ends'), { timeouts: { handshakeMs: 20_000 }, tasks: 'defer' });
    await connection.listTools();
    const taskId = await started(connection, 'unwritten');
    await vi.waitFor(() => expect(fileLines(log)).toContain('done unwritten'), { timeout: 20_000 });
    // Its end was never stored: the task reads as it was; before the fix the rejected write ended the process.
    expect((await connection.getTask(taskId)).status).toBe('working');
    expect(await connection.ping()).toBeGreaterThanOrEqual(0);
    expect((await connection.listTools()).map((t) => t.name)).toContain('report');
  }, 60_000);
});

describe('E6: checking a server whose tools run as tasks', () => {
  it("E6: checkServer calls task tools in both eras: valid arguments answer, invalid ones are refused (a 2025 task carries the refusal); an unoffered question is the tool's error", async () => {
    const log = path.join(tmp.dir, 'check.log');
    const report = await checkServer(
      { command: process.execPath, args: ['--import', 'tsx', SERVER, '--log', log], cwd: REPO_ROOT },
      { all: true, tools: (name) => name === 'quick' || name === 'confirm' },
    );
    expect(report.tools.map((t) => [t.tool, t.era, t.failed])).toEqual([
      ['confirm', 'legacy', 0],
      ['quick', 'legacy', 0],
      ['confirm', 'modern', 0],
      ['quick', 'modern', 0],
    ]);
    expect(report.ok).toBe(true);
  });
});

describe('E6: how a task goes', () => {
  it("E6: on 2026-07-28 a task's status messages reach the call's progress listener (masked), while it is waited for", async () => {
    const log = path.join(tmp.dir, 'status.log');
    await using connection = await connectMcp(config(log, '2026-07-28'), { timeouts: { handshakeMs: 20_000 } });
    await connection.listTools();
    const hold = path.join(tmp.dir, 'status-hold');
    const seen: string[] = [];
    const call = connection.callTool('report', { id: 's', hold }, { onProgress: (p) => void (p.message && seen.push(p.message)) });
    await vi.waitFor(() => expect(seen).toContain('writing s'), { timeout: 20_000 });
    fs.writeFileSync(hold, '');
    expect(text(await call)).toBe('report s');
  });
});

describe('E6: a question inside a task', () => {
  it('E6: on 2026-07-28 a task that asks (input_required) is answered by the elicitation handler through tasks/update', async () => {
    const log = path.join(tmp.dir, 'question.log');
    const asked: string[] = [];
    await using connection = await connectMcp(config(log, '2026-07-28'), {
      timeouts: { handshakeMs: 20_000 },
      elicitation: async (request) => {
        asked.push(request.message);
        return { action: 'accept', content: { ok: true } };
      },
    });
    await connection.listTools();
    expect(text(await connection.callTool('confirm', { id: 'q' }))).toBe('acted on q');
    expect(asked).toEqual(['Act on q?']);
    expect(fileLines(log)).toEqual(['acted q']);
  });

  it('E6: with tasks false, a tool that runs only as a task is refused by the server, and nothing runs', async () => {
    const log = path.join(tmp.dir, 'refused.log');
    await using connection = await connectMcp(config(log, '2026-07-28'), { timeouts: { handshakeMs: 20_000 }, tasks: false });
    await connection.listTools();
    expect(await failure(connection.callTool('confirm', { id: 'r' }))).toMatchObject({ code: expect.any(String) });
    expect(fileLines(log)).toEqual([]);
  });
});
