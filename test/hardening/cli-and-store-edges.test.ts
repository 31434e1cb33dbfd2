/**
 * Hostile-input findings, each reproduced and fixed: detached
 * grandchildren, foreign and newer SQLite files, bad import files and homes,
 * prototype keys from the CLI, terminal escapes, conflicting and dash-led
 * flags, read-only stores (P3, R2, R3).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpProber } from '../../src/index.js';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { failure, FIXTURES, livingWithMarker, marker, PYTHON_SERVER, pythonConfig, REPO_ROOT, tempDir, waitFor } from '../support/index.js';
import { pragma, rawSqlite } from '../support/sqlite.js';

const tmp = tempDir('agt-findings-');
afterAll(() => tmp.cleanup());
let n = 0;
const BIN = path.join(REPO_ROOT, 'dist', 'cli.js');

function agt(
  args: string[],
  options: { db?: string; env?: Record<string, string>; user?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const db = options.db ?? path.join(tmp.dir, `f-${n++}.db`);
  const [cmd, argv] = options.user
    ? ['runuser', ['-u', options.user, '--', process.execPath, BIN, ...args, '--store', db]]
    : [process.execPath, [BIN, ...args, '--store', db]];
  return new Promise((resolve) => {
    execFile(cmd, argv as string[], { cwd: tmp.dir, env: { ...process.env, AGT_HOME: tmp.dir, ...options.env } }, (e, stdout, stderr) =>
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('hostile input at the CLI and the store', () => {
  it('P3: children a server starts in their own session, directly or by a double fork, are ended by close', async () => {
    for (const mode of ['detach-child', 'detach-orphan']) {
      const mark = marker();
      const report = await new McpProber().probe({ mcpServers: { s: pythonConfig({ mode, mark }) } });
      expect(report.ok).toBe(true);
      expect(report.warnings.join()).not.toMatch(/outlived close/);
      await waitFor(() => livingWithMarker(mark).length === 0, 10_000);
    }
  });

  it("R2: a SQLite file of a newer schema is store_unavailable naming the version; another application's file is refused; an empty file is used", async () => {
    const newer = path.join(tmp.dir, 'newer.db');
    const raw = rawSqlite(newer);
    raw.exec('PRAGMA user_version = 7');
    raw.exec('CREATE TABLE agt_resources (x TEXT)');
    raw.close();
    expect(await failure(new SqliteStore({ path: newer }).get('mcp', 'a/b'))).toMatchObject({
      code: 'store_unavailable',
      message: expect.stringMatching(/schema version 7.*knows 2/),
      details: { reason: 'newer_schema', schemaVersion: 7 },
    });
    const reread = rawSqlite(newer, { readonly: true });
    expect(pragma(reread, 'user_version')).toBe(7); // untouched
    reread.close();
    const foreign = path.join(tmp.dir, 'foreign.db');
    const other = rawSqlite(foreign);
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
    other.close();
    expect(await failure(new SqliteStore({ path: foreign }).list('mcp'))).toMatchObject({
      code: 'store_unavailable',
      details: { reason: 'foreign_database', tables: ['invoices'] },
    });
    const listed = rawSqlite(foreign, { readonly: true });
    const tables = listed.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[];
    listed.close();
    expect(tables.map((t) => t.name)).toEqual(['invoices']); // no agt table was created
    const empty = path.join(tmp.dir, 'empty.db');
    fs.writeFileSync(empty, '');
    const store = new SqliteStore({ path: empty });
    expect(await store.list('mcp')).toEqual([]);
    await store.close();
  });

  it('R2: importing [], null or {"mcpServers": 5} is invalid_input (exit 2); a home that cannot be created is store_unavailable (exit 5)', async () => {
    for (const body of ['[]', 'null', '{"mcpServers": 5}']) {
      const file = path.join(tmp.dir, `import-${n++}.json`);
      fs.writeFileSync(file, body);
      const out = await agt(['mcp', 'import', file]);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/^agt: invalid_input: /);
    }
    fs.writeFileSync(path.join(tmp.dir, 'not-a-dir'), '');
    const home = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'mcp', 'list'],
        { cwd: tmp.dir, env: { ...process.env, AGT_HOME: path.join(tmp.dir, 'not-a-dir', 'home') } },
        (e, _o, stderr) => resolve({ code: e ? Number((e as { code?: number }).code) : 0, stderr }),
      );
    });
    expect(home).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/^agt: store_unavailable: cannot create the agt home .*\(ENOTDIR\); set AGT_HOME or --store/),
    });
  });

  it('R2: --env __proto__=x and --header "__proto__: v" are kept as keys, like the library keeps them', async () => {
    const db = path.join(tmp.dir, 'proto.db');
    await agt(['mcp', 'create', 'a/s', '--command', 'node', '--cwd', tmp.dir, '--env', '__proto__=x', '--env', 'constructor=y'], { db });
    await agt(['mcp', 'create', 'a/r', '--url', 'https://mcp.example.test/mcp', '--header', '__proto__: v'], { db });
    const s = JSON.parse((await agt(['mcp', 'show', 'a/s', '--json', '--show-secrets'], { db })).stdout);
    const r = JSON.parse((await agt(['mcp', 'show', 'a/r', '--json', '--show-secrets'], { db })).stdout);
    expect(Object.entries(s.data.mcpServers.s.env)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
    expect(Object.entries(r.data.mcpServers.r.headers)).toEqual([['__proto__', 'v']]);
  });

  it('R2: terminal escape bytes in stored names are escaped in human output and exact in --json', async () => {
    const db = path.join(tmp.dir, 'esc.db');
    const evil = 'Alice\u001b[2J\u001b]0;pwned\u0007\r';
    await agt(['agent', 'create', 'team/alice', '--name', evil], { db });
    const text = await agt(['agent', 'show', 'team/alice'], { db });
    expect(text.stdout).not.toMatch(/[\u001b\u0007\r]/);
    expect(text.stdout).toContain('Alice\\x1b[2J\\x1b]0;pwned\\x07\\r'); // outsideText: CR by its name
    expect(JSON.parse((await agt(['agent', 'show', 'team/alice', '--json'], { db })).stdout).name).toBe(evil);
  });

  it('R3: --url with --command is rejected; --arg takes dash-led values (npx -y pkg)', async () => {
    const both = await agt(['mcp', 'create', 'a/x', '--url', 'https://h/mcp', '--command', 'node', '--cwd', tmp.dir]);
    expect(both).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/give one of --command, --url, --from or -- COMMAND ARGS…, not --command and --url/),
    });
    const db = path.join(tmp.dir, 'dash.db');
    expect(
      (
        await agt(
          ['mcp', 'create', 'a/npx', '--command', 'npx', '--arg', '-y', '--arg', '@scope/pkg', '--arg', '--verbose', '--cwd', tmp.dir],
          { db },
        )
      ).code,
    ).toBe(0);
    expect(JSON.parse((await agt(['mcp', 'show', 'a/npx', '--json'], { db })).stdout).data.mcpServers.npx.args).toEqual([
      '-y',
      '@scope/pkg',
      '--verbose',
    ]);
  });

  const root = process.getuid?.() === 0 && fs.existsSync('/usr/sbin/runuser');
  it.skipIf(!root)(
    `R2: a store the user may only read is opened read-only: reads work, writes say read-only${root ? '' : ' (skipped: needs root and runuser to act as another user)'}`,
    async () => {
      const dir = path.join(tmp.dir, 'ro');
      fs.mkdirSync(dir);
      const db = path.join(dir, 'agt.db');
      await agt(['agent', 'create', 'team/alice', '--name', 'Alice'], { db });
      await agt(['mcp', 'create', 'a/s', '--command', 'python3', '--arg', PYTHON_SERVER, '--cwd', FIXTURES], { db });
      fs.chmodSync(tmp.dir, 0o755);
      fs.chmodSync(dir, 0o755);
      fs.chmodSync(db, 0o644);
      const show = await agt(['agent', 'show', 'team/alice', '--json'], { db, user: 'nobody', env: { AGT_HOME: dir } });
      expect(show.stderr).toBe('');
      expect(JSON.parse(show.stdout)).toMatchObject({ reference: 'team/alice', name: 'Alice' });
      expect((await agt(['mcp', 'list'], { db, user: 'nobody', env: { AGT_HOME: dir } })).stdout).toMatch(/a\/s/);
      const write = await agt(['agent', 'update', 'team/alice', '--name', 'Bob'], { db, user: 'nobody', env: { AGT_HOME: dir } });
      expect(write).toMatchObject({
        code: 5,
        stderr: expect.stringMatching(/store_unavailable: the file is read-only for this user; nothing was written/),
      });
      expect(execFileSync(process.execPath, [BIN, 'agent', 'show', 'team/alice', '--json', '--store', db], { encoding: 'utf8' })).toMatch(
        /"Alice"/,
      );
    },
  );
});
