/**
 * What `agt mcp add` and `update` say about a registration that will not work
 * as typed, while still saving it with exit 0 (R1: registering starts
 * nothing): a command that is not on PATH or not a file, and agt's own flags
 * written after `--`, where they belong to the server. On stderr; with --json
 * in the output's `warnings`, and nothing on stderr.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AgtResult, PYTHON_SERVER, REPO_ROOT, runAgt, tempDir } from '../support/index.js';

const home = tempDir('agt-add-warnings-');
afterAll(() => home.cleanup());
let n = 0;
const fresh = () => {
  const db = path.join(home.dir, `w-${n++}.db`);
  return (...args: string[]) => runAgt(args, { home: home.dir, db });
};
const stored = async (agt: ReturnType<typeof fresh>, ref: string) => {
  const shown = await agt('mcp', 'show', ref, '--json');
  expect(shown.code).toBe(0);
  return Object.values(JSON.parse(shown.stdout).data.mcpServers)[0] as Record<string, unknown>;
};

describe('agt mcp add: a command that cannot be found', () => {
  it('R1: a bare command not on PATH is registered (exit 0) with a warning on stderr naming it and the fixes', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/x', '--', 'no-such-server-zq', '--flag');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^registered tools\/x \(revision 1\)$/m);
    expect(added.stderr).toBe(
      'agt: warning: tools/x: "no-such-server-zq" was not found in PATH; registered anyway (registering starts nothing): install it, or give the absolute path of the program; `agt mcp test tools/x` checks again\n',
    );
    expect(await stored(agt, 'tools/x')).toMatchObject({ command: 'no-such-server-zq', args: ['--flag'] });
  });

  it('R1: an absolute command that does not exist, or is not executable, is registered with a warning naming the file', async () => {
    const agt = fresh();
    const missing = path.join(home.dir, 'missing-bin');
    const added = await agt('mcp', 'add', 'tools/m', '--', missing);
    expect(added.code).toBe(0);
    expect(added.stderr).toContain(`agt: warning: tools/m: ${missing}: the "command" file does not exist; registered anyway`);
    const plain = path.join(home.dir, 'plain.txt');
    fs.writeFileSync(plain, 'not a program', { mode: 0o644 });
    const noexec = await agt('mcp', 'add', 'tools/n', '--command', plain);
    expect(noexec.code).toBe(0);
    expect(noexec.stderr).toMatch(/tools\/n: .*plain\.txt: the "command" file is not an executable file; registered anyway/);
    expect(await stored(agt, 'tools/n')).toMatchObject({ command: plain });
  });

  it('R1: a command on PATH, and a command with a placeholder, register without a warning', async () => {
    const agt = fresh();
    const found = await agt('mcp', 'add', 'tools/ok', '--', 'python3', PYTHON_SERVER);
    expect(found).toMatchObject({ code: 0, stderr: '' });
    const placeholder = await agt('mcp', 'add', 'tools/p', '--', '${HOME}/bin/server-zq');
    expect(placeholder).toMatchObject({ code: 0, stderr: '' });
    expect(await stored(agt, 'tools/p')).toMatchObject({ command: '${HOME}/bin/server-zq' });
  });

  it('R1: update warns when it sets a command not on PATH, not when it changes another field', async () => {
    const agt = fresh();
    expect((await agt('mcp', 'add', 'tools/u', '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    const moved = await agt('mcp', 'update', 'tools/u', '--', 'no-such-server-zq');
    expect(moved.code).toBe(0);
    expect(moved.stderr).toMatch(/^agt: warning: tools\/u: "no-such-server-zq" was not found in PATH; registered anyway/);
    expect(await stored(agt, 'tools/u')).toMatchObject({ command: 'no-such-server-zq' });
    const env = await agt('mcp', 'update', 'tools/u', '--env', 'K=v');
    expect(env).toMatchObject({ code: 0, stderr: '' });
  });

  it('R1: the command name in the warning is outside text: control characters are escaped', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/e', '--', 'evil\x1b[2Jname');
    expect(added.code).toBe(0);
    expect(added.stderr).toContain('"evil\\x1b[2Jname" was not found in PATH');
    expect(added.stderr).not.toContain('\x1b');
  });
});

describe('agt mcp add --json: the warnings are in the output', () => {
  it('R1: with --json the PATH warning is in `warnings` (the plain message), stderr stays empty; add, add-json and update alike', async () => {
    const agt = fresh();
    const missing = path.join(home.dir, 'missing-bin');
    const added = await agt('mcp', 'add', 'tools/m', '--json', '--', missing);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const out = JSON.parse(added.stdout) as { record: { reference: string }; warnings: string[] };
    expect(out.record.reference).toBe('tools/m');
    expect(out.warnings).toEqual([
      `tools/m: ${missing}: the "command" file does not exist; registered anyway (registering starts nothing): correct the absolute path of the program; \`agt mcp test tools/m\` checks again`,
    ]);
    const json = await agt('mcp', 'add-json', 'tools/j', '{"command": "no-such-server-zq"}', '--json');
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout).warnings).toEqual([expect.stringMatching(/^tools\/j: "no-such-server-zq" was not found in PATH; /)]);
    const updated = await agt('mcp', 'update', 'tools/m', '--json', '--', 'no-such-server-zq');
    expect(updated).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(updated.stdout).warnings).toEqual([expect.stringMatching(/^tools\/m: "no-such-server-zq" was not found in PATH; /)]);
  });

  it('R1: in --json the command is exact JSON (its control characters \\u-escaped), on stderr it is escaped text', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/e', '--json', '--', 'evil\x1b[2Jname');
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).not.toContain('\x1b');
    expect(JSON.parse(added.stdout).warnings[0]).toMatch(/^tools\/e: "evil\x1b\[2Jname" was not found in PATH/);
  });
});

describe('agt mcp add: agt flags after --', () => {
  it('R2: --store and --show-secrets after -- go to the server: a warning naming them (never their values); agt registers in its own store', async () => {
    const agt = fresh();
    const other = path.join(home.dir, 'other.db');
    const added = await agt('mcp', 'add', 'tools/s', '--', 'python3', PYTHON_SERVER, '--store', other, '--show-secrets');
    expect(added.code).toBe(0);
    expect(added.stderr).toBe(
      "agt: warning: flags after -- go to the server: --store, --show-secrets; put agt's flags before --: agt mcp add <category/name> --store PATH --show-secrets -- COMMAND ARGS…\n",
    );
    expect(added.stderr).not.toContain(other); // no values of the server's arguments
    expect(await stored(agt, 'tools/s')).toMatchObject({ args: [PYTHON_SERVER, '--store', other, '--show-secrets'] });
    expect(fs.existsSync(other)).toBe(false);
  });

  it('R2: --json or --debug after -- may be the server\'s own: only a note, "if they were meant for agt"', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/j', '--', 'python3', PYTHON_SERVER, '--json', '--debug');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^registered tools\/j/); // text: the --json was the server's
    expect(added.stderr).toBe(
      'agt: note: flags after -- go to the server: --json, --debug; if they were meant for agt, put them before --: agt mcp add <category/name> --json --debug -- COMMAND ARGS…\n',
    );
    expect(added.stderr).not.toMatch(/warning|ignored/);
  });

  it("R2: a switch agt also got before -- is plainly the server's after it: nothing said of it", async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/g', '--json', '--debug', '--', 'python3', PYTHON_SERVER, '--json', '--debug');
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(added.stdout).warnings).toEqual([]);
  });

  it('R2: both kinds at once: one warning line and one note line', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/b', '--', 'python3', PYTHON_SERVER, '--json', '--store=x.db');
    expect(added.code).toBe(0);
    expect(added.stderr.split('\n')).toEqual([
      "agt: warning: flags after -- go to the server: --store; put agt's flags before --: agt mcp add <category/name> --store PATH -- COMMAND ARGS…",
      'agt: note: flags after -- go to the server: --json; if they were meant for agt, put them before --: agt mcp add <category/name> --json -- COMMAND ARGS…',
      '',
    ]);
  });

  it("R2: add's own flags after -- (--env, --env-file, --cwd, --timeout, = forms too) get the note, without their values", async () => {
    const agt = fresh();
    const added = await agt(
      'mcp',
      'add',
      'tools/f',
      '--',
      'python3',
      PYTHON_SERVER,
      '--env',
      'TOKEN=s3cret',
      '--cwd=/tmp',
      '--timeout',
      '5000',
      '--env-file=.env',
    );
    expect(added.code).toBe(0);
    expect(added.stderr).toBe(
      'agt: note: flags after -- go to the server: --env, --cwd, --timeout, --env-file; if they were meant for agt, put them before --: agt mcp add <category/name> --env K=V --cwd DIR --timeout MS --env-file FILE -- COMMAND ARGS…\n',
    );
    expect(added.stderr).not.toContain('s3cret');
    expect(await stored(agt, 'tools/f')).toMatchObject({
      env: {},
      args: [PYTHON_SERVER, '--env', 'TOKEN=s3cret', '--cwd=/tmp', '--timeout', '5000', '--env-file=.env'],
    });
  });

  it("R2: flags agt refuses or ignores with a command (--header, --transport, --url, --arg) and docker's -e are the server's: nothing said", async () => {
    const agt = fresh();
    const added = await agt(
      'mcp',
      'add',
      'tools/r',
      '--',
      'python3',
      PYTHON_SERVER,
      '--header',
      'Authorization: Bearer x',
      '--transport',
      'stdio',
      '-e',
      'KEY',
      '--url=u',
      '--arg',
      'a',
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
  });

  it("R2: update says the same with the verb as typed, and also names update's own --expected-revision and --unset-env", async () => {
    const agt = fresh();
    expect((await agt('mcp', 'add', 'tools/v', '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    const updated = await agt(
      'mcp',
      'update',
      'tools/v',
      '--',
      'python3',
      PYTHON_SERVER,
      '--store=x.db',
      '--expected-revision',
      '1',
      '--unset-env=K',
    );
    expect(updated.code).toBe(0);
    expect(updated.stderr).toBe(
      [
        "agt: warning: flags after -- go to the server: --store; put agt's flags before --: agt mcp update <category/name> --store PATH -- COMMAND ARGS…",
        'agt: note: flags after -- go to the server: --expected-revision, --unset-env; if they were meant for agt, put them before --: agt mcp update <category/name> --expected-revision N --unset-env KEY -- COMMAND ARGS…',
        '',
      ].join('\n'),
    );
    expect(await stored(agt, 'tools/v')).toMatchObject({
      args: [PYTHON_SERVER, '--store=x.db', '--expected-revision', '1', '--unset-env=K'],
    });
    // add takes no --expected-revision: after -- it is the server's, nothing said
    expect(await agt('mcp', 'add', 'tools/w', '--', 'python3', PYTHON_SERVER, '--expected-revision', '1')).toMatchObject({
      code: 0,
      stderr: '',
    });
  });

  it('R2: with --json before --, the flag warnings are in `warnings` with the others; stderr stays empty', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/k', '--json', '--', 'no-such-server-zq', '--store', 'x.db');
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(added.stdout).warnings).toEqual([
      "flags after -- go to the server: --store; put agt's flags before --: agt mcp add <category/name> --store PATH -- COMMAND ARGS…",
      expect.stringMatching(/^tools\/k: "no-such-server-zq" was not found in PATH; /),
    ]);
  });

  it('R2: when the command fails, the warning comes first on stderr and explains it (the server is not in the default store)', async () => {
    const agt = fresh();
    const failed = await agt('mcp', 'update', 'tools/none', '--', 'python3', PYTHON_SERVER, '--store', 'elsewhere.db');
    expect(failed.code).not.toBe(0);
    const lines = failed.stderr.split('\n');
    expect(lines[0]).toBe(
      "agt: warning: flags after -- go to the server: --store; put agt's flags before --: agt mcp update <category/name> --store PATH -- COMMAND ARGS…",
    );
    expect(lines[1]).toMatch(/^agt: not_found: mcp tools\/none is not registered/);
  });
});

// The CLI from source in its own process, with exactly these arguments (runAgt adds a --store of its own).
function agtProcess(args: string[]): Promise<AgtResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'src/cli/bin.ts'), ...args],
      { cwd: REPO_ROOT, env: { ...process.env, AGT_HOME: path.join(home.dir, 'agt-home') } },
      (e, stdout, stderr) => resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('agt --store=PATH: the global flag in its = form', () => {
  it('--store=PATH before the command is the store (not "unknown command"), in a process of its own', async () => {
    const db = path.join(home.dir, 'eq.db');
    const added = await agtProcess([`--store=${db}`, 'mcp', 'add', 'tools/q', '--', 'python3', PYTHON_SERVER]);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const listed = await agtProcess([`--store=${db}`, 'mcp', 'list', '--json']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toContain('tools/q');
    expect(fs.existsSync(db)).toBe(true);
    expect(fs.existsSync(path.join(home.dir, 'agt-home', 'agt.db'))).toBe(false); // not the default store
  });

  it('--store without a path, or given twice, is a usage error naming it', async () => {
    const bare = await agtProcess(['mcp', 'list', '--store']);
    expect(bare).toMatchObject({ code: 2, stdout: '' });
    expect(bare.stderr).toBe('agt: --store needs a path: agt --store PATH …\n');
    const empty = await agtProcess(['--store=', 'mcp', 'list']);
    expect(empty.stderr).toBe('agt: --store needs a path: agt --store PATH …\n');
    const twice = await agtProcess([`--store=${path.join(home.dir, 'a.db')}`, 'mcp', 'list', '--store', path.join(home.dir, 'b.db')]);
    expect(twice).toMatchObject({ code: 2, stderr: 'agt: --store is given more than once; give one store\n' });
  });
});

describe('outside text in the command-line errors: quoted one way, escaped once', () => {
  it('an unknown command, help topic or option with control characters is escaped (`\\x1b`), never raw, and bounded', async () => {
    const agt = fresh();
    const unknown = await agt('evil\x1b[2J');
    expect(unknown).toMatchObject({ code: 2, stderr: 'agt: unknown command "evil\\x1b[2J"; see agt --help\n' });
    const verb = await agt('mcp', `${'v'.repeat(100)}\x1b`);
    expect(verb.stderr).toContain(`unknown command "agt mcp ${'v'.repeat(64)}…"`);
    const help = await agt('help', 'mcp', 'no\x1bverb');
    expect(help).toMatchObject({ code: 2, stderr: 'agt: no help for "mcp no\\x1bverb"; see agt --help\n' });
    const option = await agt('mcp', 'list', '--x\x1b[2J');
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("'--x\\x1b[2J'");
    for (const r of [unknown, verb, help, option]) expect(r.stderr).not.toContain('\x1b');
  });
});
