/**
 * A kit stdio server's questions on its defaults, across host processes
 * (E4, E5): every host process starts its own server
 * process, and no `requestStateKey` is given. The default key is the
 * machine's key file of the server's name ($AGT_HOME/request-state, 0600),
 * so a state one server process sealed is taken by the next one; the states
 * taken are recorded beside it, so a replay reaching any process of the
 * machine is refused — and the refusal says what a requestStateKey is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectMcp, isAgtError, type McpInputRequired } from '../../../src/index.js';
import { runAgt, REPO_ROOT, runTs, tempDir, text } from '../../support/index.js';
import { REQUEST_STATE_KEY_ENV } from '../../../src/authoring/questions/state-key.js';

const SERVER = path.join(REPO_ROOT, 'test/authoring/fixtures/questions-server.ts');
const STEP = 'test/authoring/fixtures/kit-host-step.ts';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('agt-kit-defaults-');
});
afterEach(() => tmp.cleanup());

const serverConfig = (env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: ['--import', 'tsx', SERVER],
  cwd: REPO_ROOT,
  env: { AGT_HOME: tmp.dir, ...env },
  handshakeTimeoutMs: HANDSHAKE_MS,
});
// A kit server through tsx takes seconds to start on a loaded machine (a clean clone compiles it first).
const HANDSHAKE_MS = 45_000;

describe('E5: a kit stdio server on its defaults, a new server process per host process', () => {
  it('E5: host A asks and exits; host B answers the first question; host C the second; the call completes', async () => {
    const file = path.join(tmp.dir, 'runs.db');
    const asked = JSON.parse(await runTs(STEP, ['ask', file, tmp.dir])) as { runId: string; batchId: string; pending: unknown[] };
    expect(asked.pending).toEqual([{ callId: 'c1', round: 1 }]);
    const second = JSON.parse(await runTs(STEP, ['answer', file, tmp.dir, asked.runId, asked.batchId, '{"q1":{"confirm":true}}'])) as {
      results: unknown[];
      pending: unknown[];
    };
    expect(second).toEqual({ results: [], pending: [{ callId: 'c1', round: 2 }] }); // the new process took the state, asked again
    const third = JSON.parse(await runTs(STEP, ['answer', file, tmp.dir, asked.runId, asked.batchId, '{"q2":{"reason":"cleanup"}}'])) as {
      results: { status: string; content: { text: string }[] }[];
      pending: unknown[];
    };
    expect(third.pending).toEqual([]);
    expect(third.results.map((r) => [r.status, r.content[0]?.text])).toEqual([['ok', 'deleted /tmp/x (cleanup)']]);
    // One key file for the server's name, only its user's.
    const dir = path.join(tmp.dir, 'request-state');
    const keys = fs.readdirSync(dir).filter((f) => f.endsWith('.key'));
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^files-[0-9a-f]{12}\.key$/);
    expect(fs.statSync(path.join(dir, keys[0]!)).mode & 0o777).toBe(0o600);
  }, 180_000);

  it('E5: a replayed retry reaching another server process is refused; the refusal names requestStateKey', async () => {
    const connect = () => connectMcp(serverConfig(), { elicitation: 'defer' });
    const first = await connect();
    let asked: McpInputRequired;
    try {
      asked = (await first.callToolOrInput('delete_file', { path: '/tmp/y' })) as McpInputRequired;
      expect(asked.resultType).toBe('input_required');
    } finally {
      await first.close();
    }
    const input = {
      requests: asked.inputRequests,
      responses: { q1: { action: 'accept' as const, content: { confirm: false } } },
      requestState: asked.requestState!,
    };
    const second = await connect();
    try {
      expect(text((await second.callToolOrInput('delete_file', { path: '/tmp/y' }, { input })) as { content: unknown[] })).toBe(
        'kept /tmp/y',
      );
    } finally {
      await second.close();
    }
    const third = await connect();
    try {
      const error = await third.callToolOrInput('delete_file', { path: '/tmp/y' }, { input }).catch((e: unknown) => e);
      expect(isAgtError(error) && error.code).toBe('protocol_error');
      expect((error as Error).message).toMatch(/-32602.*requestStateKey/s);
    } finally {
      await third.close();
    }
  }, 180_000);

  it(`E5: a key given in ${REQUEST_STATE_KEY_ENV} is used and nothing is written; a short one is refused naming the variable`, async () => {
    const key = 'e'.repeat(32);
    const first = await connectMcp(serverConfig({ [REQUEST_STATE_KEY_ENV]: key }), { elicitation: 'defer' });
    try {
      expect(((await first.callToolOrInput('delete_file', { path: '/tmp/z' })) as McpInputRequired).resultType).toBe('input_required');
    } finally {
      await first.close();
    }
    expect(fs.existsSync(path.join(tmp.dir, 'request-state'))).toBe(false);
    const short = await connectMcp(serverConfig({ [REQUEST_STATE_KEY_ENV]: 'short' }), {}).catch((e: unknown) => e);
    expect(isAgtError(short)).toBe(true);
    expect(JSON.stringify((short as { details?: unknown }).details)).toMatch(
      new RegExp(`${REQUEST_STATE_KEY_ENV} must be at least 32 bytes`),
    );
  }, 180_000);

  it('E5: a key file other users may read is not used: the server says so once on stderr and keeps a key of its own', async () => {
    const dir = path.join(tmp.dir, 'request-state');
    const first = await connectMcp(serverConfig(), { elicitation: 'defer' });
    await first.callToolOrInput('delete_file', { path: '/tmp/w' });
    await first.close();
    const [key] = fs.readdirSync(dir).filter((f) => f.endsWith('.key'));
    fs.chmodSync(path.join(dir, key!), 0o644);
    const second = await connectMcp(serverConfig(), { elicitation: 'defer' });
    try {
      await second.callToolOrInput('delete_file', { path: '/tmp/w' });
      await vi.waitFor(() => expect(second.stderrTail()).toMatch(/may be read by other users.*requestStateKey/s), { timeout: 20_000 });
    } finally {
      await second.close();
    }
  }, 180_000);
});

describe('E5: agt mcp call against a kit stdio server on its defaults', () => {
  it('E4: the call waits (exit 6), and --answer in the next agt process finishes it, round by round', async () => {
    const db = path.join(tmp.dir, 'agt.db');
    const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
    const added = await agt(
      'mcp',
      'add',
      'files',
      '-e',
      `AGT_HOME=${tmp.dir}`,
      '--cwd',
      REPO_ROOT,
      '--',
      process.execPath,
      '--import',
      'tsx',
      SERVER,
    );
    expect(added.code).toBe(0);
    // One call of delete_file, with the answers given so far.
    const deleteFile = (...answers: string[]) =>
      agt(
        'mcp',
        'call',
        'files',
        'delete_file',
        '--arg',
        'path=/tmp/v',
        ...answers.flatMap((a) => ['--answer', a]),
        '--timeout',
        String(HANDSHAKE_MS),
      );
    expect((await deleteFile()).code).toBe(6);
    const second = await deleteFile('q1={"confirm":true}');
    expect(second.code).toBe(6);
    expect(second.stdout).toContain('q2 (elicitation/create): Why?');
    const done = await deleteFile('q2={"reason":"tidy"}');
    expect(done).toMatchObject({ code: 0, stdout: 'deleted /tmp/v (tidy)\n' });
  }, 180_000);
});
