/**
 * `agt mcp call --detach` and `agt mcp task get|result|cancel` (E6), against a
 * kit server over loopback HTTP whose `report` runs as a task and writes what
 * it does to a log (test/authoring/fixtures/task-tools.ts): the call prints
 * its task id and ends; the result is collected later by id, from another
 * command (exit 6 while it still runs); a cancel reaches the handler.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolServer, type HttpToolService, serveHttp } from '../../../src/authoring/index.js';
import { fileLines, PYTHON_SERVER, REPO_ROOT, runAgt, tempDir, waitFor } from '../../support/index.js';
import { taskTools } from '../../authoring/fixtures/task-tools.js';

const tmp = tempDir('agt-tasks-cli-');
const db = path.join(tmp.dir, 'agt.db');
const log = path.join(tmp.dir, 'tools.log');
const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
let service: HttpToolService;
beforeAll(async () => {
  service = await serveHttp(() =>
    createToolServer({ name: 'cli-tasks', version: '1.0.0', tools: taskTools(log), tasks: { pollIntervalMs: 50 } }),
  );
  expect((await agt('mcp', 'add', 'jobs', '--url', service.url)).code).toBe(0);
});
afterAll(async () => {
  await service.close();
  tmp.cleanup();
});

describe('E6: agt mcp call --detach and agt mcp task', () => {
  it('E6: --detach on a stdio server is refused before anything starts: its task would end with the command (wait, or serve it over HTTP)', async () => {
    const calls = path.join(tmp.dir, 'stdio-calls.log');
    expect((await agt('mcp', 'add', 'local', '--', 'python3', PYTHON_SERVER, '--log', calls)).code).toBe(0);
    const detached = await agt('mcp', 'call', 'local', 'echo', '--arg', 'message=hi', '--detach');
    expect(detached.code).toBe(2); // invalid_input
    expect(detached.stderr).toMatch(/--detach needs a server that outlives this command: "default\/local" runs over stdio/);
    expect(detached.stderr).toMatch(/leave out --detach|--url/);
    expect(fs.existsSync(calls)).toBe(false); // the server was never started, nothing was called
    const waited = await agt('mcp', 'call', 'local', 'echo', '--arg', 'message=hi');
    expect(waited.code).toBe(0);
    expect(fileLines(calls)).toHaveLength(1); // waited for, the same call runs
  });

  it('E6: --detach prints the task id and ends; task result is exit 6 while it runs, then the result; the side effect once', async () => {
    const hold = path.join(tmp.dir, 'hold-x');
    const detached = await agt('mcp', 'call', 'jobs', 'report', '--arg', 'id=x', '--arg', `hold=${hold}`, '--detach', '--json');
    expect(detached.code).toBe(0);
    const { task } = JSON.parse(detached.stdout) as { task: { id: string; status: string } };
    expect(task.status).toBe('working');
    const running = await agt('mcp', 'task', 'result', 'jobs', task.id);
    expect(running.code).toBe(6);
    expect(running.stdout).toMatch(/still working/);
    const got = await agt('mcp', 'task', 'get', 'jobs', task.id);
    expect(got).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^task ${task.id} working: writing x`)) });
    fs.writeFileSync(hold, '');
    await waitFor(() => fileLines(log).includes('done x'));
    const result = await agt('mcp', 'task', 'result', 'jobs', task.id);
    expect(result).toMatchObject({ code: 0, stdout: 'report x\n' });
    expect(fileLines(log).filter((l) => l.endsWith(' x'))).toEqual(['started x', 'done x']);
  });

  it('E6: task cancel reaches the handler (its signal fires, nothing is done); an unknown task is task_lost (exit 1)', async () => {
    const detached = await agt(
      'mcp',
      'call',
      'jobs',
      'report',
      '--arg',
      'id=y',
      '--arg',
      `hold=${path.join(tmp.dir, 'never')}`,
      '--detach',
    );
    const id = /^task (\S+) working/.exec(detached.stdout)?.[1];
    expect(id).toBeDefined();
    expect((await agt('mcp', 'task', 'cancel', 'jobs', id!)).code).toBe(0);
    await waitFor(() => fileLines(log).includes('cancelled y'));
    expect(fileLines(log)).not.toContain('done y');
    const unknown = await agt('mcp', 'task', 'get', 'jobs', 'no-such-task');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/task_lost/);
  });
});

// A scripted server that never answers tasks/get about a task whose id begins "silent_get" (test/mcp/fixtures/hostile-tasks.ts).
describe('E6: agt mcp task get against a server that never answers tasks/get', () => {
  const hostile = path.join(REPO_ROOT, 'test/mcp/fixtures/hostile-tasks.ts');
  for (const protocol of ['legacy', '2026-07-28'] as const) {
    it(`E6: task get --timeout is call_timeout saying tasks/get timed out, not the server's fault (${protocol})`, async () => {
      const name = `silent-${protocol === 'legacy' ? 'legacy' : 'modern'}`;
      const config = { command: process.execPath, args: ['--import', 'tsx', hostile], cwd: REPO_ROOT, protocol };
      expect((await agt('mcp', 'add-json', name, JSON.stringify(config))).code).toBe(0);
      // --timeout bounds the start too: long enough for a tsx process on a busy machine, the tasks/get alike.
      const got = await agt('mcp', 'task', 'get', name, 'silent_get-1', '--timeout', '10000');
      expect(got.code).toBe(4); // call_timeout
      expect(got.stderr).toMatch(/call_timeout/);
      expect(got.stderr).toMatch(/did not answer tasks\/get within 10000 ms/);
      expect(got.stderr).not.toMatch(/not a valid MCP result|protocol_error/);
    }, 60_000);
  }
});

describe('E6: agt mcp call --timeout bounds a task’s whole wait', () => {
  // A plain-node server (no tsx: it starts fast on a busy machine) whose `report` task works until cancelled.
  const words = path.join(REPO_ROOT, 'test/hardening/fixtures/hostile-words.mjs');
  for (const protocol of ['legacy', '2026-07-28'] as const) {
    it(`E6: a task that never ends is call_timeout after --timeout, not the task's 30 minutes (${protocol})`, async () => {
      const name = `endless-${protocol === 'legacy' ? 'legacy' : 'modern'}`;
      const config = { command: process.execPath, args: [words], cwd: REPO_ROOT, protocol };
      expect((await agt('mcp', 'add-json', name, JSON.stringify(config))).code).toBe(0);
      const called = await agt('mcp', 'call', name, 'report', '--timeout', '4000');
      expect(called.code).toBe(4); // call_timeout
      expect(called.stdout).toMatch(/^failed: call_timeout: the task of this call did not end within 4000 ms/);
    }, 60_000);
  }
});
