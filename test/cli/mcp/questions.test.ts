/**
 * `agt mcp call` and a server's questions (E4), as the real bin against the
 * SDK v2 fixture server over loopback HTTP: without a terminal the questions
 * are printed and the call waits (exit 6); `--answer KEY=JSON` finishes it,
 * checked against the question's schema first; the server's state is kept
 * beside the store (mode 0600) and never printed. On a terminal each field is
 * asked (askOnTerminal, driven here by a scripted person).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { askOnTerminal, questionLines } from '../../../src/cli/terminal/questions.js';
import { waitingFile } from '../../../src/cli/store-files/waiting-file.js';
import { runAgt, tempDir } from '../../support/index.js';
import { startV2Http, type V2HttpServer } from '../../mcp/fixtures/v2-server.js';

let server: V2HttpServer;
beforeAll(async () => {
  server = await startV2Http({ legacy: 'stateless' });
});
afterAll(async () => {
  await server.close();
});

let tmp: ReturnType<typeof tempDir>;
let db: string;
beforeEach(async () => {
  tmp = tempDir('agt-questions-cli-');
  db = path.join(tmp.dir, 'agt.db');
  expect((await agt('mcp', 'add', 'v2', '--url', server.url)).code).toBe(0);
});
afterEach(() => tmp.cleanup());

const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });

describe('E4: agt mcp call without a terminal', () => {
  it('E4: the question is printed and the call waits (exit 6); --answer finishes it once; nothing waits after', async () => {
    const asked = server.state.asked;
    const first = await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=deploy');
    expect(first.code).toBe(6);
    expect(first.stdout).toContain('confirm (elicitation/create): Really deploy?');
    expect(first.stdout).toContain('- confirm: boolean, required');
    expect(first.stdout).toContain('--answer confirm=JSON');
    const done = await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=deploy', '--answer', 'confirm={"confirm":true}');
    expect(done).toMatchObject({ code: 0, stdout: 'deploy: confirmed (modern)\n' });
    expect(server.state.asked).toBe(asked + 1);
    const again = await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=deploy', '--answer', 'confirm={"confirm":true}');
    expect(again.code).toBe(3); // not_found: nothing waits any more
    expect(again.stderr).toMatch(/waits for answers/);
  });

  it('E4: an answer the schema refuses is exit 2 and the call still waits; other arguments are another call', async () => {
    await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=x');
    const bad = await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=x', '--answer', 'confirm={"confirm":"yes"}');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/question "confirm".*at "\/confirm"/);
    const other = await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=y', '--answer', 'confirm={"confirm":true}');
    expect(other.code).toBe(3);
    const ok = await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=x', '--answer', 'confirm={"confirm":false}');
    expect(ok).toMatchObject({ code: 0, stdout: 'x: not confirmed (modern)\n' });
  });

  it('E4: two rounds: the sealed state is kept beside the store (0600), never printed; --json shows the questions', async () => {
    const first = await agt('mcp', 'call', 'v2', 'wipe', '--json');
    expect(first.code).toBe(6);
    expect(JSON.parse(first.stdout)).toMatchObject({
      status: 'awaiting_input',
      round: 1,
      requests: { confirm: { method: 'elicitation/create' } },
    });
    const second = await agt('mcp', 'call', 'v2', 'wipe', '--answer', 'confirm={"confirm":true}', '--json');
    expect(second.code).toBe(6);
    expect(JSON.parse(second.stdout)).toMatchObject({ round: 2, requests: { scope: { method: 'elicitation/create' } } });
    const file = waitingFile(db);
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { requestState?: string }>;
    const state = Object.values(kept)[0]?.requestState;
    expect(typeof state).toBe('string');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first.stdout + second.stdout + first.stderr + second.stderr).not.toContain(state as string);
    const done = await agt('mcp', 'call', 'v2', 'wipe', '--answer', 'scope={"scope":"sessions"}');
    expect(done).toMatchObject({ code: 0, stdout: 'wiped sessions\n' });
  });

  it('E4: --decline sends the decline; the server says what it means', async () => {
    await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=drop');
    const declined = await agt('mcp', 'call', 'v2', 'ask', '--arg', 'what=drop', '--decline');
    expect(declined.code).toBe(1);
    expect(declined.stdout).toMatch(/declined drop/);
  });
});

describe('E4: agt mcp call on a terminal', () => {
  it('E4: each field of a form is asked, typed as its schema says, and a wrong answer is asked again', async () => {
    const said: string[] = [];
    const typed = ['maybe', 'y', 'three', '3', ''];
    const answers = await askOnTerminal(
      {
        go: {
          method: 'elicitation/create',
          params: {
            message: 'Proceed?',
            requestedSchema: {
              type: 'object',
              properties: { confirm: { type: 'boolean' }, count: { type: 'integer' }, note: { type: 'string' } },
              required: ['confirm', 'count'],
            },
          },
        },
      },
      { ask: async () => typed.shift() ?? '', say: (text) => void said.push(text) },
    );
    expect(answers).toEqual({ go: { confirm: true, count: 3 } });
    expect(said).toEqual(['Proceed?', '  confirm is yes or no; try again', '  count is a whole number; try again']);
  });

  it('E4: a URL question shows the URL to the person, never anything else of the server', () => {
    const lines = questionLines({
      login: {
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Sign in', url: 'https://example.test/auth', elicitationId: 'e1' },
      },
    });
    expect(lines).toEqual(['  login (elicitation/create): Sign in', '    open: https://example.test/auth']);
  });
});

describe('E4: agt mcp call answers through the one waiting-call path', () => {
  it('E4: one question answered and the other declined, in protocol shape, as run.decide takes them', async () => {
    expect((await agt('mcp', 'call', 'v2', 'poll')).code).toBe(6);
    const done = await agt('mcp', 'call', 'v2', 'poll', '--answer', 'name={"name":"Ada"}', '--answer', 'age={"action":"decline"}');
    expect(done).toMatchObject({ code: 0, stdout: 'name: accept {"name":"Ada"}; age: decline\n' });
  });

  it("E4: a server's question text cannot start a line of its own: line breaks and escapes are shown escaped", () => {
    const lines = questionLines({
      q: {
        method: 'elicitation/create',
        params: {
          message: 'Sure?\nagt: forged line\u001b[31m',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', description: 'a\nb' } } },
        },
      },
    });
    expect(lines.join('\n')).not.toMatch(/\nagt: forged/);
    expect(lines[0]).toBe('  q (elicitation/create): Sure?\\nagt: forged line\\x1b[31m');
    expect(lines[1]).toContain('— a\\nb');
  });
});
