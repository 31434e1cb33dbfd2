/**
 * `claude mcp` habits in `agt mcp`: -e and -H, a URL
 * after the name with --transport http, add-json, bare names in a default
 * category, the current folder as cwd, --unset-env, and updates that patch
 * only what is given (R2, R3, A4). The real bin.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PYTHON_SERVER, runAgt, tempDir } from '../support/index.js';

const home = tempDir('agt-habits-');
afterAll(() => home.cleanup());
let n = 0;
const fresh = () => {
  const db = path.join(home.dir, `h-${n++}.db`);
  return (...args: string[]) => runAgt(args, { home: home.dir, db });
};
const stored = async (agt: ReturnType<typeof fresh>, ref: string) => {
  const shown = await agt('mcp', 'show', ref, '--json', '--show-secrets');
  return Object.values(JSON.parse(shown.stdout).data.mcpServers)[0] as Record<string, unknown>;
};

describe('claude mcp habits', () => {
  it('R2/R3: agt mcp add NAME -e K=V -- CMD: category "default", the current folder as cwd (printed, stored absolute)', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'fs', '-e', 'K=v1', '-e', 'L=v2', '--', 'python3', PYTHON_SERVER);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^registered default\/fs \(revision 1\)\ncwd: .* \(the current folder; give --cwd DIR for another\)$/m);
    expect(await stored(agt, 'fs')).toMatchObject({ command: 'python3', cwd: fs.realpathSync(home.dir), env: { K: 'v1', L: 'v2' } });
    expect((await agt('mcp', 'probe', 'fs')).code).toBe(0); // bare names work for every verb
    expect((await agt('mcp', 'remove', 'fs')).stdout).toMatch(/deleted default\/fs/);
  });

  it('A1/A3: a bare name is default/NAME in the agent commands too: agent create --mcp, update --add-mcp and --remove-mcp', async () => {
    const agt = fresh();
    expect((await agt('mcp', 'add', 'everything', '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    expect((await agt('mcp', 'add', 'tools/calc', '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    const created = await agt('agent', 'create', 'team/bob', '--mcp', 'everything', '--mcp', 'tools/calc', '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).record.data.mcps).toEqual(['default/everything', 'tools/calc']);
    expect((await agt('agent', 'update', 'team/bob', '--remove-mcp', 'everything')).stdout).toMatch(/mounts: tools\/calc$/m);
    expect((await agt('agent', 'update', 'team/bob', '--add-mcp', 'everything')).stdout).toMatch(
      /mounts: tools\/calc, default\/everything$/m,
    );
  });

  it('R7: agt mcp add --transport http NAME URL -H "K: V", and --transport sse', async () => {
    const agt = fresh();
    expect(
      (await agt('mcp', 'add', '--transport', 'http', 'remote', 'https://mcp.example.test/mcp', '-H', 'Authorization: Bearer ${TOKEN}'))
        .code,
    ).toBe(0);
    expect(await stored(agt, 'remote')).toEqual({
      url: 'https://mcp.example.test/mcp',
      headers: { Authorization: 'Bearer ${TOKEN}' },
      transport: 'streamable-http',
    });
    expect((await agt('mcp', 'add', '--transport', 'sse', 'old', 'https://mcp.example.test/sse')).code).toBe(0);
    expect(await stored(agt, 'old')).toMatchObject({ transport: 'sse' });
    expect((await agt('mcp', 'add', '--transport', 'carrier-pigeon', 'x', 'https://a.test/')).stderr).toMatch(
      /--transport must be http \(streamable-http\), sse or stdio/,
    );
  });

  it('R2: agt mcp add-json NAME JSON, stdio (current folder as cwd) and remote', async () => {
    const agt = fresh();
    const stdio = await agt('mcp', 'add-json', 'j', JSON.stringify({ command: 'python3', args: [PYTHON_SERVER], env: { A: '1' } }));
    expect(stdio.code).toBe(0);
    expect(await stored(agt, 'j')).toMatchObject({ command: 'python3', cwd: fs.realpathSync(home.dir), env: { A: '1' } });
    expect((await agt('mcp', 'add-json', 'tools/r', '{"type": "http", "url": "https://mcp.example.test/mcp"}')).code).toBe(0);
    expect(await stored(agt, 'tools/r')).toMatchObject({ url: 'https://mcp.example.test/mcp' });
    expect((await agt('mcp', 'add-json', 'bad', '{nope')).stderr).toMatch(/not valid JSON; quote it for the shell/);
  });

  it('A4: update -- CMD and update --command keep the stored cwd, env and timeout; --unset-env removes one variable', async () => {
    const agt = fresh();
    const cwd = tempDir('agt-habits-cwd-');
    await agt('mcp', 'add', 'tools/p', '--cwd', cwd.dir, '-e', 'KEEP=1', '-e', 'DROP=2', '--timeout', '30000', '--', 'python3', 'old.py');
    expect((await agt('mcp', 'update', 'tools/p', '--', 'python3', 'new.py')).code).toBe(0);
    expect(await stored(agt, 'tools/p')).toMatchObject({
      command: 'python3',
      args: ['new.py'],
      cwd: cwd.dir,
      env: { KEEP: '1', DROP: '2' },
      handshakeTimeoutMs: 30000,
    });
    expect((await agt('mcp', 'update', 'tools/p', '--unset-env', 'DROP')).code).toBe(0);
    expect((await stored(agt, 'tools/p')).env).toEqual({ KEEP: '1' });
    expect((await agt('mcp', 'update', 'tools/p', '--unset-env', 'NOPE')).stderr).toMatch(
      /--unset-env NOPE: the stored config has no such env variable/,
    );
    await agt('mcp', 'add', 'tools/remote', '--url', 'https://a.test/mcp', '-H', 'X: 1');
    expect((await agt('mcp', 'update', 'tools/remote', '--url', 'https://b.test/mcp')).code).toBe(0);
    expect(await stored(agt, 'tools/remote')).toMatchObject({ url: 'https://b.test/mcp', headers: { X: '1' } });
    cwd.cleanup();
  });
});

describe('import infers the project folder', () => {
  it('R3: .vscode/mcp.json and .cursor/mcp.json belong to the folder above, a project .mcp.json to its own; Claude Desktop files still need --cwd', async () => {
    const project = tempDir('agt-project-');
    const files: Record<string, string> = {
      '.vscode/mcp.json': JSON.stringify({ servers: { v: { type: 'stdio', command: 'python3', args: ['${workspaceFolder}/server.py'] } } }),
      '.cursor/mcp.json': JSON.stringify({ mcpServers: { c: { command: 'python3', args: ['server.py'] } } }),
      '.mcp.json': JSON.stringify({ mcpServers: { m: { command: 'python3', args: ['server.py'] } } }),
      'claude_desktop_config.json': JSON.stringify({ mcpServers: { d: { command: 'python3', args: ['server.py'] } } }),
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(project.dir, file)), { recursive: true });
      fs.writeFileSync(path.join(project.dir, file), text);
    }
    const agt = fresh();
    for (const [file, ref] of [
      ['.vscode/mcp.json', 'imported/v'],
      ['.cursor/mcp.json', 'imported/c'],
      ['.mcp.json', 'imported/m'],
    ]) {
      const imported = await agt('mcp', 'import', path.join(project.dir, file as string));
      expect({ file, code: imported.code }).toEqual({ file, code: 0 });
      expect(imported.stdout).toContain(`cwd: ${project.dir} (the project folder of this file`);
      expect((await stored(agt, ref as string)).cwd).toBe(project.dir);
    }
    const desktop = await agt('mcp', 'import', path.join(project.dir, 'claude_desktop_config.json'));
    expect(desktop.code).toBe(1);
    expect(desktop.stdout).toMatch(/needs_fixing/);
    project.cleanup();
  });
});

describe('agt mcp list shows each server as claude mcp list does', () => {
  it('P4: transport, command or URL, revision, and the last probe: tool count, failure code, or stale after a change', async () => {
    const agt = fresh();
    await agt('mcp', 'add', 'tools/py', '--cwd', home.dir, '--', 'python3', PYTHON_SERVER);
    await agt('mcp', 'add', 'tools/broken', '--cwd', home.dir, '--', 'python3', PYTHON_SERVER, '--mode', 'exit-now');
    await agt('mcp', 'add', 'tools/remote', '--url', 'https://mcp.example.test/mcp');
    expect((await agt('mcp', 'probe', 'tools/py')).code).toBe(0);
    expect((await agt('mcp', 'probe', 'tools/broken')).code).toBe(4);
    const list = (await agt('mcp', 'list')).stdout.split('\n');
    expect(list.find((l) => l.startsWith('tools/py '))).toMatch(
      / {2}stdio {2}python3 .*mcp_server\.py {2}\(revision 1\) {2}✓ 4 tools, MCP 2025-\d\d-\d\d$/,
    );
    expect(list.find((l) => l.startsWith('tools/broken '))).toMatch(/✗ exited_early$/);
    expect(list.find((l) => l.startsWith('tools/remote '))).toMatch(
      / {2}streamable-http {2}https:\/\/mcp\.example\.test\/mcp {2}\(revision 1\) {2}· not probed$/,
    );
    await agt('mcp', 'update', 'tools/py', '-e', 'A=1');
    expect((await agt('mcp', 'list')).stdout).toMatch(/^tools\/py .*\(revision 2\) {2}\? changed since the last probe$/m);
  });
});
