/**
 * `agt mcp import server.json [REF]`: a published server.json registered as
 * one mcp resource, saving configuration only (R1) — and the config it saves
 * starts for real: a stand-in `npx` on PATH (a script that runs the Python
 * fixture server) shows the command, arguments, working directory and the
 * secret input arrive as the file asked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PYTHON_SERVER, REPO_ROOT, runAgt, tempDir } from '../../support/index.js';

const home = tempDir('agt-server-json-');
afterAll(() => home.cleanup());
const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/server-json');
const BRAVE = path.join(FIXTURES, 'brave-search-mcp-server.json');

// A stand-in npx: writes the arguments agt gave it, then is the fixture server.
const bin = path.join(home.dir, 'bin');
const ran = path.join(home.dir, 'npx-ran');
fs.mkdirSync(bin);
fs.writeFileSync(path.join(bin, 'npx'), `#!/bin/sh\necho "$@" >> '${ran}'\nexec python3 '${PYTHON_SERVER}'\n`, { mode: 0o755 });
const PATH_WITH_NPX = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;

let n = 0;
const fresh = () => {
  const db = path.join(home.dir, `s-${n++}.db`);
  return (...args: string[]) => runAgt(args, { home: home.dir, db, env: { PATH: PATH_WITH_NPX } });
};

describe('agt mcp import server.json', () => {
  it('R1: registers the package under imported/<name>, says what it asks for at launch, and starts nothing', async () => {
    const agt = fresh();
    const imported = await agt('mcp', 'import', BRAVE, '--cwd', home.dir);
    expect(imported.code).toBe(0);
    expect(imported.stdout.split('\n')).toEqual([
      'imported     imported/brave-search-mcp-server  (io.github.brave/brave-search-mcp-server: npm @brave/brave-search-mcp-server@2.1.3)',
      'asks at launch for: BRAVE_API_KEY (secret) (--input ID=VALUE, or inputs in code)',
      'nothing was installed or started; try it: agt mcp probe imported/brave-search-mcp-server',
      '',
    ]);
    expect(fs.existsSync(ran)).toBe(false);
    const shown = JSON.parse((await agt('mcp', 'show', 'imported/brave-search-mcp-server', '--json')).stdout);
    expect(shown.data.mcpServers['brave-search-mcp-server']).toEqual({
      command: 'npx',
      args: ['-y', '@brave/brave-search-mcp-server@2.1.3'],
      cwd: home.dir,
      env: { BRAVE_API_KEY: '${input:BRAVE_API_KEY}' },
    });
    // Again: unchanged; with a REF of one's own: another entry.
    expect((await agt('mcp', 'import', BRAVE, '--cwd', home.dir)).stdout).toMatch(/^unchanged {4}imported\/brave-search-mcp-server/);
    expect((await agt('mcp', 'import', BRAVE, 'search/brave', '--cwd', home.dir)).stdout).toMatch(/^imported {5}search\/brave /);
  });

  it('R3: the saved config starts as written: npx -y name@version in its cwd, the secret given as an input reaches the server', async () => {
    const agt = fresh();
    expect((await agt('mcp', 'import', BRAVE, 'tools/brave', '--cwd', home.dir)).code).toBe(0);
    const called = await agt(
      'mcp',
      'call',
      'tools/brave',
      'whereami',
      '--arg',
      'var=BRAVE_API_KEY',
      '--input',
      'BRAVE_API_KEY=k-123456',
      '--json',
    );
    expect(called.code).toBe(0);
    const report = JSON.parse(JSON.parse(called.stdout).result.content[0].text);
    expect(report).toMatchObject({ cwd: home.dir, has_var: true, var_value_length: 8 });
    expect(fs.readFileSync(ran, 'utf8')).toBe('-y @brave/brave-search-mcp-server@2.1.3\n');
    expect(called.stdout).not.toContain('k-123456');
  });

  it('R7: --remote takes a remote; --dry-run writes nothing; --json gives the source, inputs and warnings', async () => {
    const agt = fresh();
    const dry = await agt('mcp', 'import', path.join(FIXTURES, 'registry-with-remote.json'), '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      format: 'server.json',
      name: 'io.github.user/remote-weather',
      source: { kind: 'remote', type: 'streamable-http', url: 'https://{host}/mcp' },
      entries: [
        {
          reference: 'imported/remote-weather',
          status: 'would_import',
          problems: [],
          warnings: ['remotes[0].variables.host: written with its default "api.example.com"; change it with agt mcp update'],
        },
      ],
      inputs: [{ id: 'Authorization', secret: true }],
      alternatives: [],
    });
    expect((await agt('mcp', 'show', 'imported/remote-weather')).code).toBe(3);
  });

  it('a file it cannot take exits 2 with the field and the fix; flags of the server.json form are refused for a host config', async () => {
    const agt = fresh();
    const template = await agt('mcp', 'import', path.join(FIXTURES, 'github-mcp-server.template.json'), '--cwd', home.dir);
    expect(template.code).toBe(2);
    expect(template.stderr).toContain('server.json: packages[0].identifier: holds "${"');
    const claude = path.join(home.dir, 'claude.json');
    fs.writeFileSync(claude, JSON.stringify({ mcpServers: { a: { command: 'python3', args: ['x.py'] } } }));
    const mixed = await agt('mcp', 'import', claude, '--remote', '--cwd', home.dir);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--remote is for a server.json (MCP Registry)');
    const bad = await agt('mcp', 'import', BRAVE, 'not a ref', '--cwd', home.dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"not a ref" is not a reference');
  });
});
