/**
 * A kit task whose server process died while it ran: a real
 * kit server on stdio keeping its tasks in a SQLite file
 * (test/authoring/fixtures/task-server.ts --task-store) is killed with SIGKILL
 * while a task runs, and started again on the same file. The orphaned task
 * reads the same through every method of both eras: ended `failed`, saying the
 * server restarted — never `working` while `tasks/result` answers an empty
 * result.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fileLines, REPO_ROOT, tempDir } from '../../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/authoring/fixtures/task-server.ts');
const TASKS = 'io.modelcontextprotocol/tasks';
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

/** A kit task server process on `store`, spoken to with raw JSON-RPC lines in one era. */
function server(store: string, log: string, era: 'legacy' | 'modern') {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', SERVER, '--log', log, '--task-store', store], {
    cwd: REPO_ROOT,
    stdio: 'pipe',
  });
  const waiting = new Map<number, { resolve(answer: Answer): void; reject(error: Error): void }>();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A server that exits fails the requests it left unanswered (with what it said), instead of leaving them to the timeout.
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      for (const { reject } of waiting.values()) reject(new Error(`the server exited: ${stderr.slice(-2000)}`));
      resolve();
    }),
  );
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, at)) as Answer;
      buffered = buffered.slice(at + 1);
      if (typeof message.id === 'number') waiting.get(message.id)?.resolve(message);
    }
  });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  };
  let next = 0;
  const rpc = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, method, params: era === 'modern' ? { ...params, _meta: meta } : params })}\n`,
      );
    });
  return {
    rpc,
    exited,
    async open(): Promise<void> {
      if (era === 'modern') return;
      const opened = await rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: { tasks: {} },
        clientInfo: { name: 'raw', version: '1.0.0' },
      });
      expect(opened.result).toBeDefined();
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    },
    kill(signal: NodeJS.Signals) {
      child.kill(signal);
      return exited;
    },
  };
}

describe('E6: a kit task whose server process was killed', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`E6: ${era}: a task running when its process was killed (SIGKILL) ends failed "the server restarted" when the server is started again on the same SQLite file; tasks/get and its result agree`, async () => {
      const store = path.join(tmp.dir, `${era}.db`);
      const log = path.join(tmp.dir, `${era}.log`);
      const first = server(store, log, era);
      let taskId: string;
      try {
        await first.open();
        const call = { name: 'report', arguments: { id: 'orphan', hold: path.join(tmp.dir, 'never') } };
        const created = await first.rpc('tools/call', era === 'legacy' ? { ...call, task: {} } : call);
        taskId = ((created.result?.task as { taskId?: string } | undefined)?.taskId ?? created.result?.taskId) as string;
        expect(taskId).toEqual(expect.any(String));
        await vi.waitFor(() => expect(fileLines(log)).toContain('started orphan'), { timeout: 30_000 });
      } finally {
        await first.kill('SIGKILL'); // no handler, no exit hook: the task is left `working` in the file
      }
      const second = server(store, log, era);
      try {
        await second.open();
        const read = await second.rpc('tasks/get', { taskId });
        expect(read.result).toMatchObject({ taskId, status: 'failed', statusMessage: expect.stringContaining('the server restarted') });
        if (era === 'legacy') {
          // tasks/result answers as the task ended: its error, never an empty result.
          const result = await second.rpc('tasks/result', { taskId });
          expect(result.result).toBeUndefined();
          expect(result.error?.message).toContain('the server restarted');
        } else {
          expect(read.result?.error).toMatchObject({ code: -32603, message: expect.stringContaining('the server restarted') });
        }
        // An ended task stays ended: cancelling it changes nothing.
        await second.rpc('tasks/cancel', { taskId });
        expect((await second.rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'failed' });
        expect(fileLines(log)).toEqual(['started orphan']); // nothing ran it again
      } finally {
        await second.kill('SIGTERM');
      }
    }, 90_000);
  }

  it('E6: a task another live process runs on the same SQLite file is not an orphan: it reads working there, and tasks/result waits for its end', async () => {
    const store = path.join(tmp.dir, 'shared.db');
    const log = path.join(tmp.dir, 'shared.log');
    const hold = path.join(tmp.dir, 'shared-hold');
    const runner = server(store, log, 'legacy');
    const reader = server(store, log, 'legacy');
    try {
      await runner.open();
      await reader.open();
      const created = await runner.rpc('tools/call', { name: 'report', arguments: { id: 'shared', hold }, task: {} });
      const taskId = (created.result?.task as { taskId: string }).taskId;
      await vi.waitFor(() => expect(fileLines(log)).toContain('started shared'), { timeout: 30_000 });
      expect((await reader.rpc('tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'working' });
      const result = reader.rpc('tasks/result', { taskId }); // before: an empty result at once
      fs.writeFileSync(hold, '');
      expect((await result).result).toMatchObject({ content: [{ type: 'text', text: 'report shared' }] });
      expect((await reader.rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'completed' });
    } finally {
      await runner.kill('SIGTERM');
      await reader.kill('SIGTERM');
    }
  }, 90_000);
});
