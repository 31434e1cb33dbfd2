/**
 * The `agt` bin with real host config files and `claude mcp` habits: help,
 * aliases, `--`, update, import re-runs, placeholders, inputs (on a real
 * pseudo-terminal), progress and the server's stderr (R2, R4, P1, P2, A4).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, PYTHON_SERVER, REPO_ROOT, runAgt, tempDir } from '../support/index.js';

const BIN = path.join(REPO_ROOT, 'dist', 'cli.js');
const HOSTS = path.join(FIXTURES, 'hosts');
let tmp: ReturnType<typeof tempDir>;
let db: string;
beforeEach(() => {
  tmp = tempDir('agt-cli-hosts-');
  db = path.join(tmp.dir, 'agt.db');
});
afterEach(() => tmp.cleanup());

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

// In this process unless the test needs one (test/support/cli.ts).
function agt(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return runAgt(args, { home: tmp.dir, db, env });
}

// `agt` on a pseudo-terminal (test/fixtures/pty_run.py), typing each answer once its prompt shows.
function agtOnTerminal(args: string[], answers: [string, string][]): Promise<{ code: number; output: string }> {
  const spec = { argv: [process.execPath, BIN, '--store', db, ...args], cwd: tmp.dir, env: { AGT_HOME: tmp.dir }, answers };
  return new Promise((resolve, reject) => {
    execFile('python3', [path.join(FIXTURES, 'pty_run.py'), JSON.stringify(spec)], (error, stdout, stderr) => {
      if (error) reject(new Error(`pty_run failed: ${stderr}`));
      else resolve(JSON.parse(stdout) as { code: number; output: string });
    });
  });
}

async function importHost(file: string, ...flags: string[]): Promise<Ran> {
  return agt(['mcp', 'import', path.join(HOSTS, file), '--cwd', REPO_ROOT, ...flags]);
}

describe('agt help', () => {
  it('R2: agt <group> --help and agt <group> <verb> --help print that usage with exit 0; aliases too', async () => {
    const group = await agt(['mcp', '--help']);
    expect(group).toMatchObject({ code: 0, stderr: '' });
    expect(group.stdout).toMatch(/^agt mcp create <ref>/m);
    expect(group.stdout).toMatch(/^agt mcp update <ref>/m);
    const verb = await agt(['mcp', 'probe', '--help']);
    expect(verb.code).toBe(0);
    expect(verb.stdout).toMatch(/^agt mcp probe <ref> \[--timeout MS\]/);
    expect(verb.stdout).not.toMatch(/agt mcp create/);
    expect((await agt(['mcp', 'add', '--help'])).stdout).toMatch(/^agt mcp create <ref>/); // the alias shows its verb
    expect((await agt(['help', 'agent', 'update'])).stdout).toMatch(/^agt agent update <ref>/);
    expect(await agt(['agent', '-h'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/agt agent mcp-list <ref>/) });
    // agt --help shows every form of every verb (the `add REF -- COMMAND` one too) and every exit code.
    const all = await agt(['--help']);
    expect(all.stdout).toMatch(/^agt mcp add <ref> .*-- COMMAND \[ARGS…\]/m);
    expect(all.stdout).toMatch(/5 the store is unavailable, 6 the call waits for answers/);
    const unknown = await agt(['mcp', 'frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "agt mcp frobnicate": create, .*add, get, remove/);
  });
});

describe('claude mcp habits', () => {
  it('R2/R4: agt mcp add REF --cwd D -- COMMAND ARGS takes everything after -- as the command, dash-led args included', async () => {
    const added = await agt([
      'mcp',
      'add',
      'tools/py',
      '--cwd',
      REPO_ROOT,
      '--env',
      'K=v',
      '--',
      'python3',
      PYTHON_SERVER,
      '--feature',
      'resources',
      '--name',
      'dash-fixture',
    ]);
    expect(added).toMatchObject({ code: 0, stdout: expect.stringMatching(/^registered tools\/py \(revision 1\)/) });
    const shown = JSON.parse((await agt(['--json', '--show-secrets', 'mcp', 'get', 'tools/py'])).stdout);
    expect(shown.data.mcpServers.py).toEqual({
      command: 'python3',
      args: [PYTHON_SERVER, '--feature', 'resources', '--name', 'dash-fixture'],
      cwd: REPO_ROOT,
      env: { K: 'v' },
    });
    const probe = await agt(['mcp', 'probe', 'tools/py']);
    expect(probe.stdout).toMatch(/^ok: dash-fixture 1\.0\.0 over stdio/);
    expect((await agt(['mcp', 'remove', 'tools/py'])).stdout).toMatch(/deleted tools\/py/);
    const both = await agt(['mcp', 'add', 'tools/x', '--cwd', REPO_ROOT, '--command', 'python3', '--', 'python3']);
    expect(both).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/give one of --command, --url, --from or -- COMMAND ARGS…, not --command and -- COMMAND/),
    });
    expect((await agt(['mcp', 'add', 'tools/x', '--cwd', REPO_ROOT, '--'])).stderr).toMatch(
      /nothing after --: give the command and its arguments/,
    );
    const noCwd = await agt(['mcp', 'add', 'tools/x', '--', 'npx', '-y', 'pkg']); // R3: the current folder, said and stored absolute
    expect(noCwd).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^cwd: .* \(the current folder; give --cwd DIR for another\)$/m),
    });
    expect(JSON.parse((await agt(['--json', 'mcp', 'show', 'tools/x'])).stdout).data.mcpServers.x.cwd).toBe(fs.realpathSync(tmp.dir));
  });

  it('A4: agt mcp update changes fields or replaces the config; a stale --expected-revision is refused in CLI terms', async () => {
    await agt(['mcp', 'add', 'tools/py', '--cwd', REPO_ROOT, '--env', 'A=1', '--', 'python3', PYTHON_SERVER]);
    const again = await agt(['mcp', 'add', 'tools/py', '--cwd', REPO_ROOT, '--', 'python3', PYTHON_SERVER]);
    expect(again).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/mcp tools\/py is already registered; change it with `agt mcp update tools\/py …`/),
    });
    expect((await agt(['mcp', 'update', 'tools/py', '--env', 'B=2', '--timeout', '45000'])).stdout).toMatch(
      /^updated tools\/py \(revision 2\)/,
    );
    const shown = JSON.parse((await agt(['--json', '--show-secrets', 'mcp', 'show', 'tools/py'])).stdout);
    expect(shown.data.mcpServers.py).toMatchObject({ command: 'python3', env: { A: '1', B: '2' }, handshakeTimeoutMs: 45000 });
    expect((await agt(['mcp', 'update', 'tools/py', '--url', 'https://mcp.example.test/mcp', '--expected-revision', '2'])).stdout).toMatch(
      /revision 3/,
    );
    // A switch to a remote server keeps what still applies (the timeout); stdio fields go.
    expect(JSON.parse((await agt(['--json', 'mcp', 'show', 'tools/py'])).stdout).data.mcpServers.py).toEqual({
      url: 'https://mcp.example.test/mcp',
      headers: {},
      transport: 'streamable-http',
      handshakeTimeoutMs: 45000,
    });
    const stale = await agt(['mcp', 'update', 'tools/py', '--header', 'X: y', '--expected-revision', '1']);
    expect(stale.code).toBe(3);
    expect(stale.stderr).toMatch(
      /mcp tools\/py is at revision 3, not 1: someone changed it; look with `agt mcp show tools\/py`, then retry with --expected-revision 3/,
    );
    expect(stale.stderr).not.toMatch(/expectedRevision|create: false/);
    expect((await agt(['mcp', 'update', 'tools/none', '--env', 'A=1'])).stderr).toMatch(
      /mcp tools\/none is not registered; register it with `agt mcp create tools\/none …`/,
    );
    expect((await agt(['mcp', 'update', 'tools/py'])).stderr).toMatch(/nothing to change/);
    const staleDelete = await agt(['mcp', 'remove', 'tools/py', '--expected-revision', '2']);
    expect(staleDelete).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/is at revision 3, not 2: .*retry with --expected-revision 3/),
    });
    expect((await agt(['mcp', 'delete', 'tools/none'])).stderr).toMatch(/mcp tools\/none is not registered; nothing was deleted/);
    for (const verb of ['get', 'probe', 'test'])
      expect((await agt(['mcp', verb, 'tools/none'])).stderr).toMatch(
        /^agt: not_found: mcp tools\/none is not registered; register it with `agt mcp create tools\/none …`$/m,
      );
    expect((await agt(['agent', 'show', 'team/none'])).stderr).toMatch(
      /agent team\/none is not registered; register it with `agt agent create team\/none …`/,
    );
  });
});

describe('agt mcp import with real host files', () => {
  it('R2: a re-run reports unchanged; a changed entry is offered --update; --update replaces it', async () => {
    const first = await importHost('claude-desktop/claude_desktop_config.json');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^imported {5}imported\/fixture$/m);
    expect(first.stdout).toMatch(/^imported {5}imported\/memory$/m);
    const again = await importHost('claude-desktop/claude_desktop_config.json');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^unchanged {4}imported\/fixture$/m);
    const edited = path.join(tmp.dir, 'claude_desktop_config.json');
    const file = JSON.parse(fs.readFileSync(path.join(HOSTS, 'claude-desktop/claude_desktop_config.json'), 'utf8'));
    file.mcpServers.fixture.args.push('--feature', 'output');
    fs.writeFileSync(edited, JSON.stringify(file));
    const changed = await agt(['mcp', 'import', edited, '--cwd', REPO_ROOT]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(
      /^changed {6}imported\/fixture\n {13}- differs from the stored config \(revision 1\); re-run with --update/m,
    );
    expect(changed.stdout).toMatch(/^unchanged {4}imported\/memory$/m);
    expect((await agt(['mcp', 'import', edited, '--cwd', REPO_ROOT, '--update', '--dry-run'])).stdout).toMatch(
      /^would_update imported\/fixture$/m,
    );
    const updated = await agt(['mcp', 'import', edited, '--cwd', REPO_ROOT, '--update']);
    expect(updated).toMatchObject({ code: 0, stdout: expect.stringMatching(/^updated {6}imported\/fixture$/m) });
    expect(JSON.parse((await agt(['--json', 'mcp', 'show', 'imported/fixture'])).stdout).revision).toBe(2);
  });

  it('R2: VS Code JSONC imports with its inputs; warnings are shown as create --from shows them', async () => {
    const r = await importHost('vscode/.vscode/mcp.json');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^imported {5}imported\/fixture$/m);
    expect(r.stdout).toMatch(/^imported {5}imported\/docs$/m);
    const odd = path.join(tmp.dir, 'odd.json');
    fs.writeFileSync(odd, '{ "mcpServers": { "odd": { "command": "python3", "args": ["${command:pickFile}"], "colour": "red", }, }, }');
    const warned = await agt(['mcp', 'import', odd, '--cwd', REPO_ROOT]);
    expect(warned.stdout).toMatch(/^ {13}warning: .*\$\{command:pickFile\}.*not supported/m);
    expect(warned.stdout).toMatch(/^ {13}warning: .*unknown key "colour" kept as is/m);
    fs.writeFileSync(
      path.join(tmp.dir, 'odd-doc.json'),
      '{ "mcpServers": { "odd": { "command": "python3", "args": ["${command:pickFile}"], "cwd": "/" } } }',
    );
    expect((await agt(['mcp', 'create', 'tools/odd', '--from', 'odd-doc.json'])).stdout).toMatch(
      /^warning: .*\$\{command:pickFile\}.*not supported/m,
    );
  });

  it('R4/P1: agt mcp test fails naming each placeholder without a value, then passes once the environment has them', async () => {
    await importHost('claude-code/.mcp.json');
    const missing = await agt(['mcp', 'test', 'imported/fixture'], { AGT_FIXTURE_NAME: '', AGT_FIXTURE_KEY: '' });
    expect(missing.code).toBe(0); // set (even empty) is a value, as in Claude Code
    const env = { ...process.env } as Record<string, string>;
    delete env.AGT_FIXTURE_NAME;
    delete env.AGT_FIXTURE_KEY;
    const unset = await new Promise<Ran>((resolve) => {
      execFile(
        process.execPath,
        [BIN, '--store', db, 'mcp', 'test', 'imported/fixture'],
        { cwd: tmp.dir, env: { ...env, AGT_HOME: tmp.dir } },
        (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    expect(unset.code).toBe(1);
    expect(unset.stdout).toMatch(
      /- mcpServers\.fixture\.args\[2\]: \$\{AGT_FIXTURE_NAME\} has no value now\n {2}fix: set AGT_FIXTURE_NAME in the environment/,
    );
    expect(unset.stdout).toMatch(/- mcpServers\.fixture\.env\.FIXTURE_API_KEY: \$\{AGT_FIXTURE_KEY\} has no value now/);
    const ok = await agt(['mcp', 'test', 'imported/fixture'], { AGT_FIXTURE_NAME: 'n', AGT_FIXTURE_KEY: 'k' });
    expect(ok).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ok: imported\/fixture \(stdio\)/) });
    const probe = await agt(['mcp', 'probe', 'imported/fixture'], { AGT_FIXTURE_NAME: 'from-env', AGT_FIXTURE_KEY: 'k' });
    expect(probe.stdout).toMatch(/^ok: \*\*\* 1\.0\.0/); // the server repeats a resolved value: masked
    const shown = await agt(['mcp', 'probe', 'imported/fixture', '--show-secrets'], { AGT_FIXTURE_NAME: 'from-env', AGT_FIXTURE_KEY: 'k' });
    expect(shown.stdout).toMatch(/^ok: from-env 1\.0\.0/);
    expect(JSON.stringify(JSON.parse((await agt(['--json', '--show-secrets', 'mcp', 'show', 'imported/fixture'])).stdout))).toContain(
      '${AGT_FIXTURE_KEY}',
    ); // stored as written
  });

  it('R4: --input gives VS Code inputs without a terminal; without them test and probe name the inputs', async () => {
    await importHost('vscode/.vscode/mcp.json');
    const t = await agt(['mcp', 'test', 'imported/fixture']);
    expect(t.code).toBe(1);
    expect(t.stdout).toMatch(
      /\$\{input:fixture-key\} has no value now\n {2}fix: give the input: agt mcp probe … --input fixture-key=VALUE/,
    );
    const p = await agt(['mcp', 'probe', 'imported/fixture']);
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/invalid_config: the config cannot be started yet: .*\$\{input:fixture-name\} has no value/);
    const given = await agt([
      'mcp',
      'probe',
      'imported/fixture',
      '--input',
      'fixture-name=given-name',
      '--input',
      'fixture-key=input-secret-77',
    ]);
    expect(given.code).toBe(0);
    expect(given.stdout).toMatch(/^ok: \*\*\* 1\.0\.0/); // an input value the server repeats is masked
    expect(given.stdout + given.stderr).not.toContain('input-secret-77');
  });

  it('R4: on a terminal the inputs are asked for, the password without echo; Ctrl-C cancels', async () => {
    await importHost('vscode/.vscode/mcp.json');
    const run = await agtOnTerminal(
      ['mcp', 'probe', 'imported/fixture'],
      [
        ['Name the fixture server reports: ', 'typed-name\r'],
        ['Fixture API key (hidden): ', 'typed-secret-5150\r'],
      ],
    );
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/Name the fixture server reports: typed-name/); // echoed
    expect(run.output).not.toContain('typed-secret-5150'); // hidden
    expect(run.output).toMatch(/ok: \*\*\* 1\.0\.0/); // the typed name comes back from the server: masked
    expect(run.output).toMatch(/probing imported\/fixture: (starting|handshake|listing) \(\d+\.\d s, \d+\.\d s in all\)/); // TTY progress
    const cancelled = await agtOnTerminal(['mcp', 'probe', 'imported/fixture'], [['Name the fixture server reports: ', '\u0003']]);
    expect(cancelled.code).toBe(1);
    expect(cancelled.output).toMatch(/agt: cancelled: cancelled at the prompt for input "fixture-name"/);
  });
});

describe('agt mcp probe failures', () => {
  it('P2: a failed probe in text mode prints the server stderr tail', async () => {
    await agt(['mcp', 'add', 'tools/dies', '--cwd', REPO_ROOT, '--', 'python3', PYTHON_SERVER, '--mode', 'exit-now']);
    const r = await agt(['mcp', 'probe', 'tools/dies']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^agt: exited_early: /);
    expect(r.stderr).toMatch(/server stderr \(last 1 line\):\n {2}\| fixture: configuration file missing, exiting/);
  });

  it('P2: --timeout bounds the handshake; a cold npx start gets a hint; a slow phase prints one line on a pipe', async () => {
    const bin = path.join(tmp.dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'npx'), `#!/bin/sh\nexec python3 ${PYTHON_SERVER} --mode hang\n`, { mode: 0o755 });
    await agt(['mcp', 'add', 'tools/cold', '--cwd', REPO_ROOT, '--env', `PATH=${bin}:/usr/bin:/bin`, '--', 'npx', '-y', 'some-package']);
    const r = await agt(['mcp', 'probe', 'tools/cold', '--timeout', '4000']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^agt: probing tools\/cold: still in handshake after 2 s$/m);
    expect(r.stderr.match(/still in/g)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /agt: handshake_timeout: the server did not answer initialize within 4000 ms; npx may still be downloading the package on a cold start: give it more time \(agt mcp probe --timeout 60000, or "handshakeTimeoutMs" in the config\)/,
    );
    expect((await agt(['mcp', 'probe', 'tools/cold', '--timeout', 'soon'])).code).toBe(2);
  });
});

describe('a probe returns when it is done', () => {
  it('P2: once a probe has closed its server, no timer keeps the host process alive (the close grace is cleared)', async () => {
    const script = `import(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'index.js'))}).then(async (m) => {
      const report = await new m.McpProber().probe({ mcpServers: { s: { command: 'python3', args: [${JSON.stringify(PYTHON_SERVER)}], cwd: ${JSON.stringify(REPO_ROOT)} } } });
      console.log(JSON.stringify({ ok: report.ok, active: process.getActiveResourcesInfo() }));
    });`;
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['-e', script], { cwd: tmp.dir }, (error, stdout, stderr) =>
        error ? reject(new Error(stderr)) : resolve(stdout),
      );
    });
    const { ok, active } = JSON.parse(out) as { ok: boolean; active: string[] };
    expect(ok).toBe(true);
    expect(active.filter((r) => r === 'Timeout')).toEqual([]);
  });
});
