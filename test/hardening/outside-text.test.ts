/**
 * Outside text: text from a
 * server, a client, a file or a store that reaches a terminal, a prompt, a log
 * or a one-line field goes through `outsideText`. The function's rules, then a
 * walk of every place that prints or renders such text, fed by a real hostile
 * stdio server (test/hardening/fixtures/hostile-words.mjs) and hostile skill
 * files: no control or bidi character comes out raw, and no outside word starts
 * a line of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp, MemoryStore, NativeRun, policies, ResourceService } from '../../src/index.js';
import { oneLine, outsideText } from '../../src/outside-text.js';
import { stdioLine } from '../../src/json.js';
import { renderSkills } from '../../src/adapters.js';
import { runAgt, tempDir } from '../support/index.js';
import { rawSqlite } from '../support/sqlite.js';
import { withValidHeaders } from '../../src/mcp/requests/param-headers.js';
import { askOnTerminal, questionLines } from '../../src/cli/terminal/questions.js';
import { REPO_ROOT } from '../support/paths.js';

const FIXTURE = path.join(REPO_ROOT, 'test/hardening/fixtures/hostile-words.mjs');
const HOSTILE = 'x\u001b[31mred\u0007\u009b2J\u0085nel\u007f\u202eevil\u2066\u2028sep\nagt: done: forged';
// Every character a terminal or a bidi renderer obeys, but the line break (checked apart: no forged line).
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const forged = (text: string) => text.split('\n').some((line) => /^\s*agt: done: forged/.test(line));

const tmp = tempDir('agt-outside-text-');
afterAll(() => tmp.cleanup());

describe('outsideText: the one function for outside text', () => {
  it('escapes U+0000–U+001F, DEL, U+0080–U+009F (CSI U+009B, NEL U+0085), bidi controls and line breaks on one line', () => {
    const out = outsideText(HOSTILE);
    expect(out).not.toMatch(UNSAFE);
    expect(out).not.toContain('\n');
    expect(out).toBe('x\\x1b[31mred\\x07\\x9b2J\\x85nel\\x7f\\u202eevil\\u2066\\u2028sep\\nagt: done: forged');
  });

  it('keeps line breaks and tabs in a block (multiline), escapes CR and the rest', () => {
    expect(outsideText('a\tb\nc\rd\u009be', { multiline: true })).toBe('a\tb\nc\\rd\\x9be');
  });

  it('bounds the length in code points, never halving a surrogate pair', () => {
    expect(outsideText('😀😀😀', { max: 2 })).toBe('😀😀…');
    expect(outsideText('abc', { max: 3 })).toBe('abc');
    expect(outsideText('x'.repeat(1_000_000), { max: 10 })).toBe(`${'x'.repeat(10)}…`);
    expect(outsideText('abc', { max: Number.NaN })).toBe('abc');
  });

  it('reads a non-string as its plain form, never calling its toString', () => {
    const sneaky = { toString: () => HOSTILE };
    expect(outsideText(sneaky)).toBe('[object]');
    expect(outsideText(42)).toBe('42');
    expect(outsideText(undefined)).toBe('');
  });

  it('E1: a stdio line we send never holds a raw U+2028/U+2029 (Node 24’s readline splits on them), and is the same JSON', () => {
    const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'a\u2028b\u2029c' } });
    const line = stdioLine(message);
    expect(line).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(line)).toEqual(JSON.parse(message));
  });

  it('oneLine keeps its own text and escapes what is put in', () => {
    expect(oneLine`task ${'a\nb'} done\n`).toBe('task a\\nb done\n');
  });
});

describe('every place that prints or renders outside text', () => {
  const db = path.join(tmp.dir, 'agt.db');
  const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
  const clean = (what: string, text: string) => {
    expect(text, what).not.toMatch(UNSAFE);
    expect(forged(text), `${what} forged a line`).toBe(false);
  };

  it('K3: renderSkills gives the model one line per skill, no controls or bidi overrides', () => {
    const prompt = renderSkills([{ name: 'forms', description: HOSTILE, source: 'server' } as never]);
    clean('renderSkills', prompt);
    expect(prompt.split('\n')).toHaveLength(2);
  });

  it('E6: a task status message reaches a call’s progress listener escaped', async () => {
    const connection = await connectMcp(
      { command: process.execPath, args: [FIXTURE], cwd: REPO_ROOT, protocol: '2026-07-28' },
      { timeouts: { callMs: 60_000 } },
    );
    try {
      const messages: string[] = [];
      const controller = new AbortController();
      const call = connection.callTool(
        'report',
        {},
        {
          signal: controller.signal,
          onProgress: (p) => {
            if (p.message !== undefined) messages.push(p.message);
            controller.abort();
          },
        },
      );
      await expect(call).rejects.toMatchObject({ code: expect.any(String) });
      expect(messages.length).toBeGreaterThan(0);
      for (const m of messages) clean('progress message', m);
    } finally {
      await connection.close();
    }
  });

  it('E6: agt mcp call --detach, mcp task get, mcp probe, mcp list, a tool error: no forged line, no raw control', async () => {
    expect((await agt('mcp', 'add', 'words', '--', process.execPath, FIXTURE)).code).toBe(0);
    const legacy = { command: process.execPath, args: [FIXTURE], cwd: REPO_ROOT, protocol: 'legacy' };
    expect((await agt('mcp', 'add-json', 'old-words', JSON.stringify(legacy))).code).toBe(0);
    // --detach on a stdio server is refused before it starts (its task would end with the command): the refusal is
    // checked clean below; the task's id reaches the terminal through task get, which prints the same line.
    const detached = await agt('mcp', 'call', 'words', 'report', '--detach');
    expect(detached.code).toBe(2);
    const id = `abc\nagt: done: forged ${HOSTILE}`;
    const outputs = [
      ['mcp call --detach', detached],
      ['mcp task get', await agt('mcp', 'task', 'get', 'words', id)],
      ['mcp task result', await agt('mcp', 'task', 'result', 'words', id)],
      ['mcp probe', await agt('mcp', 'probe', 'words')],
      ['mcp list --probe', await agt('mcp', 'list', '--probe')],
      ['mcp call --detach (2025)', await agt('mcp', 'call', 'old-words', 'report', '--detach')],
      ['mcp task get (2025)', await agt('mcp', 'task', 'get', 'old-words', id)],
      ['mcp probe (2025)', await agt('mcp', 'probe', 'old-words')],
      ['mcp call (a tool error)', await agt('mcp', 'call', 'words', 'plain')],
    ] as const;
    for (const [what, out] of outputs) {
      clean(`${what} stderr`, out.stderr);
      // A tool's text content is a block the user asked to see: its lines stay lines, its controls are escaped.
      if (what === 'mcp call (a tool error)') expect(out.stdout).not.toMatch(UNSAFE);
      else clean(`${what} stdout`, out.stdout);
    }
    expect(outputs[1][1].stdout).toMatch(/^task abc\\nagt: done: forged .* working: x\\x1b\[31mred/);
  });

  it('K1: agt skill import and show print a skill’s words on their own lines only', async () => {
    const dir = path.join(tmp.dir, 'skill');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'SKILL.md'),
      `---\nname: words\ndescription: "a \\e[2J \\u202E \\x9B b\\nagt: done: forged"\n---\nBody\n`,
    );
    const imported = await agt('skill', 'import', dir);
    clean('skill import', imported.stdout + imported.stderr);
    if (imported.code === 0) {
      const shown = await agt('skill', 'show', 'skills/words');
      expect(shown.code, shown.stderr).toBe(0);
      clean('skill show', shown.stdout + shown.stderr);
    }
  });
});

// Places the first walk missed, found by a hostile trial of the one function for outside text.
describe('every place that prints or renders outside text: the places the first walk missed', () => {
  const db = path.join(tmp.dir, 'pass.db');
  const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
  const clean = (what: string, text: string) => {
    expect(text, what).not.toMatch(UNSAFE);
    expect(forged(text), `${what} forged a line`).toBe(false);
  };

  it('escapes a lone surrogate (half a pair: a prompt’s JSON or a terminal cannot carry it), keeps a whole pair', () => {
    expect(outsideText('a\ud800b\udc00c😀')).toBe('a\\ud800b\\udc00c😀');
    expect(outsideText(`${'😀'.repeat(3)}`.slice(0, 5), { multiline: true })).toBe('😀😀\\ud83d');
  });

  it('E6: --json output carries every control, bidi and separator escaped as \\uXXXX, and parses back to the same value', async () => {
    expect((await agt('mcp', 'add', 'words', '--', process.execPath, FIXTURE)).code).toBe(0);
    const probe = await agt('mcp', 'probe', 'words', '--json');
    expect(probe.stdout).not.toMatch(UNSAFE);
    const parsed = JSON.parse(probe.stdout) as { server: { version: string } };
    expect(parsed.server.version).toBe(HOSTILE); // lossless: the same text, escaped only in its JSON spelling
    const failed = await agt('mcp', 'task', 'get', 'words', HOSTILE, '--json');
    expect(failed.stdout + failed.stderr).not.toMatch(UNSAFE);
  });

  it('A6: agt agent show and mcp-list of a hand-edited agent row: no forged line, no raw control', async () => {
    expect((await agt('agent', 'create', 'team/edited')).code).toBe(0);
    const raw = rawSqlite(db);
    try {
      const data = {
        name: HOSTILE,
        role: HOSTILE,
        kind: HOSTILE,
        enabled: true,
        capabilities: [HOSTILE],
        mcps: [`default/m${HOSTILE}`],
        skills: [`skills/s${HOSTILE}`],
        settings: { model: HOSTILE, provider: HOSTILE },
      };
      raw.prepare("UPDATE agt_resources SET data = ? WHERE reference = 'team/edited'").run(JSON.stringify(data));
    } finally {
      raw.close();
    }
    for (const verb of ['show', 'mcp-list']) {
      const out = await agt('agent', verb, 'team/edited');
      clean(`agent ${verb}`, out.stdout + out.stderr);
    }
  });

  it("P2: agt mcp probe bounds a server's name, version and tool names: a million characters each are not a line of megabytes", async () => {
    const long = {
      command: process.execPath,
      args: [path.join(REPO_ROOT, 'test/skills/fixtures/raw-skills-server.mjs'), '--long'],
      cwd: REPO_ROOT,
    };
    expect((await agt('mcp', 'add-json', 'long', JSON.stringify(long))).code).toBe(0);
    const probe = await agt('mcp', 'probe', 'long');
    expect(probe.stdout).toMatch(/^(ok|problems): n+… v+… over stdio/);
    for (const line of probe.stdout.split('\n')) expect(line.length).toBeLessThan(2_000);
  });

  it('A6: agt agent show and mcp list with a hand-edited probe notes file: its counts are numbers or nothing', async () => {
    expect((await agt('mcp', 'add', 'noted', '--', process.execPath, 'x.js')).code).toBe(0);
    expect((await agt('agent', 'create', 'team/noted', '--mcp', 'noted')).code).toBe(0);
    const note = { revision: 1, at: HOSTILE, ok: true, tools: `5${HOSTILE}`, toolTokens: `7${HOSTILE}`, protocolVersion: HOSTILE };
    fs.writeFileSync(`${db}.probes.json`, JSON.stringify({ 'default/noted': note }));
    const shown = await agt('agent', 'show', 'team/noted');
    expect(shown.code, shown.stderr).toBe(0);
    clean('agent show', shown.stdout);
    clean('mcp list', (await agt('mcp', 'list')).stdout);
  });

  it("E4: a question on a terminal: the server's field names, types and options never reach the prompt raw", async () => {
    const asked: string[] = [];
    const said: string[] = [];
    const typed = ['maybe', 'maybe', 'y', 'x'];
    const request = {
      method: 'elicitation/create',
      params: {
        message: 'Proceed?',
        requestedSchema: {
          type: 'object',
          properties: {
            [`ok${HOSTILE}`]: { type: 'boolean' },
            pick: { type: `string${HOSTILE}`, enum: [HOSTILE, 'x'] },
          },
          required: [`ok${HOSTILE}`, 'pick'],
        },
      },
    } as const;
    await askOnTerminal(
      { q: request },
      { ask: async (prompt) => (asked.push(prompt), typed.shift() ?? ''), say: (text) => void said.push(text) },
    );
    for (const text of [...asked, ...said]) clean('a terminal question', text);
    const lines = questionLines({ [`q${HOSTILE}`]: { ...request, method: `elicitation/create${HOSTILE}` } as never });
    clean('the questions of a waiting call', lines.join('\n'));
  });

  it("B1: a run's notices quote a server's tool names escaped: a tool listed twice, a schema that does not compile", async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const server = {
      command: process.execPath,
      args: [path.join(REPO_ROOT, 'test/skills/fixtures/raw-skills-server.mjs')],
      cwd: REPO_ROOT,
    };
    await service.write({ kind: 'mcp', reference: 'tools/raw', create: true, data: { mcpServers: { raw: server } } });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/raw'] } });
    const run = await NativeRun.start({ service, agent: 'team/a', policy: policies.autoAllow('*') });
    try {
      expect(run.notices.join('\n')).toMatch(/listed twice[^]*unavailable/);
      for (const notice of run.notices) clean('a run notice', notice);
    } finally {
      await run.close();
    }
  });

  it("B1: a run's servers' instructions, for the host's system prompt, keep their lines but no control or bidi override", async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const server = { command: process.execPath, args: [FIXTURE], cwd: REPO_ROOT, protocol: 'legacy' as const };
    await service.write({ kind: 'mcp', reference: 'tools/words', create: true, data: { mcpServers: { words: server } } });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/words'] } });
    const run = await NativeRun.start({ service, agent: 'team/a', policy: policies.autoAllow('*') });
    try {
      const instructions = run.instructions()['tools/words'];
      expect(instructions).toContain('agt: done: forged'); // a block of text: its lines stay lines
      expect(instructions).not.toMatch(UNSAFE);
    } finally {
      await run.close();
    }
  });

  it('E1: a tool left out for its x-mcp-header declarations is named escaped in connection.warnings (SEP-2243)', () => {
    const warnings: string[] = [];
    const property = { type: 'object', 'x-mcp-header': 'Region' };
    withValidHeaders([{ name: HOSTILE, inputSchema: { type: 'object', properties: { a: property } } } as never], warnings, new Map());
    expect(warnings).toHaveLength(1);
    clean('a header warning', warnings[0]!);
  });

  it("K2: a server's skills/list problems reach connection.warnings escaped, one line each", async () => {
    const connection = await connectMcp({
      command: process.execPath,
      args: [path.join(REPO_ROOT, 'test/skills/fixtures/raw-skills-server.mjs')],
      cwd: REPO_ROOT,
    });
    try {
      await connection.listSkills();
      expect(connection.warnings.join('\n')).toContain('left out');
      for (const w of connection.warnings) clean('a connection warning', w);
    } finally {
      await connection.close();
    }
  });
});
