/**
 * A server whose task answers lie (E6), both eras, against a
 * scripted server process over stdio (test/mcp/fixtures/hostile-tasks.ts): a TTL past
 * any date, a completed task whose result is another task, a `tasks/result`
 * that names another task, a `tasks/get` that never comes, a task that never
 * ends. Each fails only its own call with a stable code (or is bounded); the
 * connection goes on.
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../../../src/index.js';
import type { McpTaskStarted } from '../../../src/adapters.js';
import { MAX_SERVER_TASK_TTL_MS, MAX_TASK_ID_LENGTH } from '../../../src/bounds.js';
import { failure, REPO_ROOT, tempDir, text, waitFor } from '../../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/mcp/fixtures/hostile-tasks.ts');
const tmp = tempDir('agt-hostile-tasks-');
afterAll(() => tmp.cleanup());

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void; // the heap as it is, not as it was before the last collection
const MB = 1024 * 1024;

const asked = (log: string, method: string) =>
  fs.existsSync(log)
    ? fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l === method).length
    : 0;

for (const protocol of ['legacy', '2026-07-28'] as const) {
  describe(`E6: a server whose task answers lie (${protocol})`, () => {
    const log = path.join(tmp.dir, `${protocol}.log`);
    const config = { command: process.execPath, args: ['--import', 'tsx', SERVER, '--log', log], cwd: REPO_ROOT, protocol };
    let waiting: McpConnection;
    let deferring: McpConnection;
    beforeAll(async () => {
      [waiting, deferring] = await Promise.all([
        connectMcp(config, { timeouts: { handshakeMs: 20_000 } }),
        connectMcp(config, { timeouts: { handshakeMs: 20_000 }, tasks: 'defer' }),
      ]);
      await Promise.all([waiting.listTools(), deferring.listTools()]);
    }, 60_000);
    afterAll(async () => {
      await waiting?.close();
      await deferring?.close();
    });
    const started = async (tool: string, args: Record<string, unknown> = {}) =>
      ((await deferring.callToolOrInput(tool, args)) as McpTaskStarted).task;

    it('E6: cancelling a task that already ended is no error, even from a server that refuses it with -32602 as 2025-11-25 asks; an unknown task is task_lost', async () => {
      const ended = await started('done');
      await expect(deferring.cancelTask(ended.id)).resolves.toBeUndefined();
      expect(await failure(deferring.cancelTask('no-such-task'))).toMatchObject({ code: 'task_lost' });
    });

    it('E6: a task TTL past the last Date, or finite and huge, is cut to MAX_SERVER_TASK_TTL_MS before any date is made', async () => {
      for (const ttl of ['8700000000000000', '1000000000000000'])
        expect((await started('ttl', { ttl })).ttlMs).toBe(MAX_SERVER_TASK_TTL_MS);
      expect((await started('ttl', { ttl: '60000' })).ttlMs).toBe(60_000);
      // 1e20 is no integer JavaScript keeps: ext-tasks refuses a 2025 task carrying it; a 2026-07-28 one is cut.
      const huge = deferring.callToolOrInput('ttl', { ttl: '1e20' });
      if (protocol === 'legacy') expect(await failure(huge)).toMatchObject({ code: 'protocol_error' });
      else expect(((await huge) as McpTaskStarted).task.ttlMs).toBe(MAX_SERVER_TASK_TTL_MS);
      expect(text(await waiting.callTool('done', {}))).toBe('done answered');
    });

    // 2026-07-28 only: on 2025 results carry no resultType (the SDK's decoder drops the field; the result is read as one).
    if (protocol === '2026-07-28')
      it('E6: a completed task whose result says resultType "task" ends its call protocol_error, never a TypeError', async () => {
        const f = await failure(waiting.callTool('task_result', {}));
        expect(f).toMatchObject({ code: 'protocol_error', details: { reason: 'invalid_result' } });
        expect(f.message).toMatch(/not a final result/);
        expect(text(await waiting.callTool('done', {}))).toBe('done answered');
      });

    it("E6: a tasks/get the client stops waiting for is call_timeout saying tasks/get timed out, not the server's fault", async () => {
      const id = 'silent_get-1'; // known to the server by its id: it never answers tasks/get about it
      const got = await failure(deferring.getTask(id, { timeoutMs: 500 }));
      expect(got).toMatchObject({ code: 'call_timeout', details: { method: 'tasks/get', timeoutMs: 500 } });
      expect(got.message).toMatch(/did not answer tasks\/get within 500 ms/);
      // Waited inline: the same, for the call.
      const inline = await failure(waiting.callTool('silent_get', {}, { timeoutMs: 2000 })); // the creating tools/call must fit
      expect(inline).toMatchObject({ code: 'call_timeout', details: { method: 'tasks/get' } });
      expect(inline.message).not.toMatch(/task of this call failed|not a valid MCP result/);
      expect(text(await waiting.callTool('done', {}))).toBe('done answered');
    });

    it("E6: getTaskResult's timeoutMs bounds the whole wait for a task that never ends, not each poll; the task is not cancelled", async () => {
      const { id } = await started('never');
      const before = asked(log, 'tasks/get');
      const f = await failure(deferring.getTaskResult(id, { timeoutMs: 1500 }));
      expect(f).toMatchObject({ code: 'call_timeout', details: { reason: 'task_timeout', taskId: id, timeoutMs: 1500 } });
      expect(asked(log, 'tasks/get') - before).toBeGreaterThan(1); // each poll was answered: only the whole wait ended it
      expect((await deferring.getTask(id)).status).toBe('working'); // a read gave up; the task runs on
    }, 30_000);

    it('E6: a created task whose taskId is empty or longer than MAX_TASK_ID_LENGTH fails its call invalid_task, waited for or handed back', async () => {
      for (const taskId of ['', 'x'.repeat(MAX_TASK_ID_LENGTH + 1)]) {
        const args = { create: JSON.stringify({ taskId }), gets: ['{"status":"completed"}'] };
        const invalid = { code: 'protocol_error', details: { reason: 'invalid_task' } };
        expect(await failure(waiting.callTool('script', args))).toMatchObject(invalid); // before: waited for, and sent back
        expect(await failure(deferring.callToolOrInput('script', args))).toMatchObject(invalid);
      }
      expect(text(await waiting.callTool('done', {}))).toBe('done answered');
    });

    it('E6: a tasks/get answer about another task is protocol_error wrong_task, inline, by id and collected', async () => {
      const other = '{"taskId":"other-9","status":"completed"}';
      const wrong = { code: 'protocol_error', details: { reason: 'wrong_task' } };
      expect(await failure(waiting.callTool('script', { gets: [other] }))).toMatchObject(wrong);
      // 2025 reads the task once as it hands it back; 2026-07-28 hands back the task its call created.
      const handed = deferring.callToolOrInput('script', { gets: protocol === 'legacy' ? ['{}', other] : [other] });
      const { id } = ((await handed) as McpTaskStarted).task;
      expect(await failure(deferring.getTask(id))).toMatchObject(wrong);
      expect(await failure(deferring.getTaskResult(id))).toMatchObject(wrong);
      expect(text(await waiting.callTool('done', {}))).toBe('done answered');
    });

    it("E6: a task's result too large to read is protocol_error oversized_message, never the server saying the task failed", async () => {
      const large = { gets: ['{"status":"completed"}'], bigText: 5 * MB };
      const oversized = { code: 'protocol_error', details: { reason: 'oversized_message' } };
      const inline = await failure(waiting.callTool('script', large));
      expect(inline).toMatchObject(oversized);
      expect(inline.message).not.toMatch(/says the task of this call failed/);
      const { id } = await started('script', large);
      expect(await failure(deferring.getTaskResult(id))).toMatchObject(oversized);
      expect(text(await waiting.callTool('done', {}))).toBe('done answered');
    });

    if (protocol === 'legacy')
      it('E6: a 2025 task handed back (tasks "defer") whose first tasks/get fails is cancelled on its server, not left running for nobody', async () => {
        const before = asked(log, 'tasks/cancel');
        const f = await failure(deferring.callToolOrInput('script', { gets: ['error'] }));
        expect(f).toMatchObject({ code: 'protocol_error', details: { reason: 'server_error' } });
        await waitFor(() => asked(log, 'tasks/cancel') > before); // before: the call failed and its task ran on
        expect(text(await waiting.callTool('done', {}))).toBe('done answered');
      });

    if (protocol === 'legacy')
      it("E6: a 2025 task whose every tasks/get answer is new and large does not grow the host's memory while the call waits for it", async () => {
        const controller = new AbortController();
        const before = asked(log, 'tasks/get');
        gc();
        const heap = process.memoryUsage().heapUsed;
        const call = failure(waiting.callTool('script', { gets: ['{}'], statusBytes: 2 * MB }, { signal: controller.signal }));
        await waitFor(() => asked(log, 'tasks/get') - before >= 40, 120_000); // 40 answers of 2 MB each, each one new
        gc();
        const grown = process.memoryUsage().heapUsed - heap;
        controller.abort();
        expect(await call).toMatchObject({ code: 'cancelled' });
        expect(grown).toBeLessThan(30 * MB); // before: every answer was kept until the call ended (80 MB here; GBs in 30 min)
        expect(text(await waiting.callTool('done', {}))).toBe('done answered');
      }, 180_000);

    if (protocol === 'legacy')
      it('E6: a 2025 tasks/result whose related-task metadata names another task is refused, inline and by id', async () => {
        const inline = await failure(waiting.callTool('other_result', {}));
        expect(inline).toMatchObject({ code: 'protocol_error', details: { reason: 'wrong_task' } });
        const { id } = await started('other_result');
        expect(await failure(deferring.getTaskResult(id))).toMatchObject({
          code: 'protocol_error',
          details: { reason: 'wrong_task', taskId: id },
        });
        expect(text(await waiting.callTool('done', {}))).toBe('done answered');
      });
  });
}
