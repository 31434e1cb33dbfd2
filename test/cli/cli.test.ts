/** The real `agt` bin in child processes against a temporary SQLite store (R2, P1, P2, A3, A6, A7). */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PYTHON_SERVER, REPO_ROOT, runAgt, tempDir } from '../support/index.js';

let tmp: ReturnType<typeof tempDir>;
let db: string;
beforeEach(() => {
  tmp = tempDir('agt-cli-');
  db = path.join(tmp.dir, 'agt.db');
});
afterEach(() => tmp.cleanup());

// In this process unless the test needs one (test/support/cli.ts).
function agt(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runAgt(args, { home: tmp.dir, db });
}

const py = ['--command', 'python3', '--arg', PYTHON_SERVER, '--cwd', REPO_ROOT];

describe('agt mcp', () => {
  it('R2/P1/P2: create, list, show, test, probe, delete through the same resource service', async () => {
    expect((await agt('mcp', 'create', 'tools/py', ...py)).stdout).toMatch(/registered tools\/py \(revision 1\)/);
    expect((await agt('mcp', 'list')).stdout).toMatch(
      /^tools\/py {2}stdio {2}python3 .*mcp_server\.py.* {2}\(revision 1\) {2}· not probed$/m,
    );
    const shown = JSON.parse((await agt('mcp', 'show', 'tools/py', '--json')).stdout);
    expect(shown).toMatchObject({
      kind: 'mcp',
      reference: 'tools/py',
      data: { mcpServers: { py: { command: 'python3', cwd: REPO_ROOT } } },
    });
    expect(await agt('mcp', 'test', 'tools/py')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ok: tools\/py \(stdio\)/) });
    const probe = await agt('mcp', 'probe', 'tools/py');
    expect(probe.code).toBe(0);
    expect(probe.stdout).toMatch(/ok: agt-python-fixture 1\.0\.0 over stdio/);
    expect(probe.stdout).toMatch(/timings: spawn \d+ ms, initialize \d+ ms, tools\/list \d+ ms, close \d+ ms, ping \d+ ms/);
    expect(probe.stdout).toMatch(/ok {4}echo \(2020-12\)/);
    expect(probe.stderr).toBe(''); // no spinner without a TTY
    expect((await agt('mcp', 'delete', 'tools/py')).stdout).toMatch(/deleted tools\/py/);
    expect((await agt('mcp', 'show', 'tools/py')).code).toBe(3);
  });

  it('P2: agt mcp probe shows output schemas, resources and prompts of the server', async () => {
    const features = ['output', 'resources', 'prompts', 'logs'].flatMap((f) => ['--arg=--feature', '--arg', f]); // dash-led values need --arg=
    expect(
      (await agt('mcp', 'create', 'tools/rich', '--command', 'python3', '--arg', PYTHON_SERVER, ...features, '--cwd', REPO_ROOT)).code,
    ).toBe(0);
    const probe = await agt('mcp', 'probe', 'tools/rich');
    expect(probe.code).toBe(1); // broken_output_schema
    expect(probe.stdout).toMatch(/ok {4}divide \(2020-12, output 2020-12\)/);
    expect(probe.stdout).toMatch(
      /FAIL {2}broken_output_schema: schema_load_failed tool "broken_output_schema": outputSchema failed to load/,
    );
    expect(probe.stdout).toMatch(/^resources: 3 \(1 templates\)$/m);
    expect(probe.stdout).toMatch(/^prompts: 2$/m);
    expect(probe.stdout).toMatch(/, ping \d+ ms$/m);
    expect(probe.stdout).toMatch(/^\d+ tools \(about [\d,]+ tokens of definitions\):$/m);
    expect(probe.stdout).toMatch(/^logs: 1 message\(s\) while probed$/m); // the fixture logs once when initialized
  });

  it('R2: a remote server and a --from document', async () => {
    expect(
      (await agt('mcp', 'create', 'tools/remote', '--url', 'https://mcp.example.test/mcp', '--header', 'Authorization: Bearer t')).code,
    ).toBe(0);
    fs.writeFileSync(
      path.join(tmp.dir, 'doc.json'),
      JSON.stringify({ mcpServers: { files: { command: 'node', args: ['x.js'], cwd: tmp.dir } } }),
    );
    expect((await agt('mcp', 'create', 'tools/files', '--from', 'doc.json')).code).toBe(0);
    const list = JSON.parse((await agt('mcp', 'list', '--json')).stdout) as { reference: string }[];
    expect(list.map((r) => r.reference)).toEqual(['tools/files', 'tools/remote']);
  });

  it('R3: a relative command fails with exit 2 and one line saying how to fix it', async () => {
    const r = await agt('mcp', 'create', 'tools/bad', '--command', './run.sh', '--cwd', tmp.dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^agt: invalid_config: .*use the absolute path of the program/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace without --debug
  });

  it('P1: test reports problems with fixes and exits 1; P2: a failing probe exits 4', async () => {
    await agt('mcp', 'create', 'tools/missing', '--command', 'agt-no-such-server', '--cwd', tmp.dir);
    const t = await agt('mcp', 'test', 'tools/missing');
    expect(t.code).toBe(1);
    expect(t.stdout).toMatch(/was not found in PATH\n {2}fix: install it/);
    const p = await agt('mcp', 'probe', 'tools/missing');
    expect(p.code).toBe(4);
    expect(p.stderr).toMatch(/^agt: spawn_failed: "agt-no-such-server" was not found/);
  });

  it('import: Claude / Cursor and VS Code files; broken entries are reported, not imported', async () => {
    fs.writeFileSync(
      path.join(tmp.dir, 'claude.json'),
      JSON.stringify({
        mcpServers: {
          Memory: { command: 'node', args: ['memory.js'], cwd: tmp.dir },
          relative: { command: './bin/server', cwd: tmp.dir },
          nocwd: { command: 'uvx', args: ['mcp-server-git'] },
        },
      }),
    );
    const claude = await agt('mcp', 'import', 'claude.json', '--category', 'desk', '--json');
    expect(claude.code).toBe(1);
    expect(JSON.parse(claude.stdout).entries.map((e: { reference: string; status: string }) => [e.reference, e.status])).toEqual([
      ['desk/memory', 'imported'],
      ['desk/relative', 'needs_fixing'],
      ['desk/nocwd', 'needs_fixing'],
    ]);
    fs.mkdirSync(path.join(tmp.dir, '.vscode'));
    fs.writeFileSync(
      path.join(tmp.dir, '.vscode', 'mcp.json'),
      JSON.stringify({
        servers: {
          git: { type: 'stdio', command: 'uvx', args: ['mcp-server-git', '--repository', '${workspaceFolder}'] },
          docs: { type: 'http', url: 'https://docs.example.test/mcp' },
        },
      }),
    );
    const vscode = await agt('mcp', 'import', '.vscode/mcp.json', '--category', 'vs', '--cwd', tmp.dir);
    expect(vscode.code).toBe(0);
    const git = JSON.parse((await agt('mcp', 'show', 'vs/git', '--json')).stdout);
    expect(git.data.mcpServers.git).toMatchObject({
      command: 'uvx',
      cwd: tmp.dir,
      args: ['mcp-server-git', '--repository', '${workspaceFolder}'],
    }); // stored as written, resolved at launch
    expect(JSON.parse((await agt('mcp', 'show', 'vs/docs', '--json')).stdout).data.mcpServers.docs.transport).toBe('streamable-http');
  });
});

describe('agt agent', () => {
  it('A6: create with defaults, show identity, enabled and resolved mounts', async () => {
    await agt('mcp', 'create', 'tools/py', ...py);
    expect(
      (await agt('agent', 'create', 'team/alice', '--name', 'Alice', '--mcp', 'tools/py', '--mcp', 'tools/ghost', '--model', 'm1')).stdout,
    ).toMatch(/created agent team\/alice[\s\S]*warning: mcp "tools\/ghost" is not registered/);
    const show = await agt('agent', 'show', 'team/alice');
    expect(show.stdout).toMatch(
      /team\/alice — Alice \(revision 1\)\n {2}enabled, native, worker\n {2}model: m1\nmounts:\n {2}ok {6}tools\/py \(stdio\)\n {2}missing tools\/ghost/,
    );
    const described = JSON.parse((await agt('agent', 'show', 'team/alice', '--json')).stdout);
    expect(described).toMatchObject({ enabled: true, kind: 'native', role: 'worker', resourceManagement: false });
    expect(show.stdout).toMatch(/^tools: not known \(probe the mounts: agt mcp probe REF\)$/m);
    expect((await agt('mcp', 'probe', 'tools/py')).code).toBe(0);
    const probed = await agt('agent', 'show', 'team/alice');
    expect(probed.stdout).toMatch(/^tools: 4 \(about [\d,]+ tokens of definitions\) by the last probes; not known for tools\/ghost$/m);
    expect(probed.stdout).toMatch(/^tool search: off in a run by default \(auto: on beyond 40 tools or 20,000 tokens\)$/m);
    expect(JSON.parse((await agt('agent', 'show', 'team/alice', '--json')).stdout).tools).toMatchObject({
      tools: 4,
      unknown: ['tools/ghost'],
      toolSearch: 'off',
    });
    expect((await agt('agent', 'mcp-list', 'team/alice')).code).toBe(1); // a mount is missing
  });

  it('A3: update --add-mcp/--remove-mcp; --expected-revision guards stale writes; concurrent CLI processes lose nothing', async () => {
    await agt('agent', 'create', 'team/bob');
    const adds = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => agt('agent', 'update', 'team/bob', '--add-mcp', `m/x${i}`)));
    expect(adds.map((a) => a.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const after = JSON.parse((await agt('agent', 'show', 'team/bob', '--json')).stdout);
    expect(after.mcps.map((m: { reference: string }) => m.reference).sort()).toEqual(['m/x0', 'm/x1', 'm/x2', 'm/x3', 'm/x4', 'm/x5']);
    expect((await agt('agent', 'update', 'team/bob', '--remove-mcp', 'm/x0', '--add-mcp', 'm/y')).stdout).toMatch(/mounts: .*m\/y/);
    const stale = await agt('agent', 'update', 'team/bob', '--add-mcp', 'm/z', '--expected-revision', '1');
    expect(stale.code).toBe(3);
    expect(stale.stderr).toMatch(/^agt: revision_conflict: agent team\/bob is at revision 8, not 1: .*retry with --expected-revision 8/);
  });

  it('A7: --allow-mcp anywhere fails with a clear message and exit 2', async () => {
    for (const args of [
      ['agent', 'update', 'team/x', '--allow-mcp'],
      ['--allow-mcp', 'mcp', 'list'],
      ['mcp', 'list', '--allow-mcp=true'],
    ]) {
      const r = await agt(...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--allow-mcp was removed.*Stop passing --allow-mcp/);
    }
  });

  it('A8: mounting MCP on a harness agent is refused; usage errors exit 2', async () => {
    const h = await agt('agent', 'create', 'team/h', '--kind', 'harness', '--mcp', 'tools/a');
    expect(h).toMatchObject({ code: 2, stderr: expect.stringMatching(/harness agents do not support library MCP mounts/) });
    expect((await agt('agent', 'frobnicate')).code).toBe(2);
    expect((await agt('mcp', 'create', 'tools/x', '--bogus-flag')).code).toBe(2);
    expect((await agt('nonsense')).code).toBe(2);
  });

  it('--json errors are machine-readable on stdout', async () => {
    const r = await agt('agent', 'show', 'team/nobody', '--json');
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'not_found' } });
  });
});
