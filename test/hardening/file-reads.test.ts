/**
 * File reads (found by a hostile trial): files named by configs and users
 * are read only when they are regular files, within a limit, without blocking.
 * The real bin and real server launches.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp, MemoryStore, ResourceService } from '../../src/index.js';
import { createServerCgroup } from '../../src/mcp/process/cgroup.js';
import { failure, livingWithMarker, marker, PYTHON_SERVER, pythonConfig, REPO_ROOT, runAgt, tempDir, waitFor } from '../support/index.js';

const tmp = tempDir('agt-files-');
afterAll(() => tmp.cleanup());
let n = 0;
const agt = (args: string[], input?: string | Buffer) =>
  runAgt(args, { home: tmp.dir, db: path.join(tmp.dir, `s-${n++}.db`), ...(input === undefined ? {} : { input }) });
const fifo = (name: string) => {
  const file = path.join(tmp.dir, name);
  execFileSync('mkfifo', [file]);
  return file;
};

describe('envFile is read bounded, asynchronously, and only as a regular text file', () => {
  it('R3: a FIFO, /dev/zero and /proc/self/environ as envFile are spawn_failed env_file_unreadable naming why; nothing hangs or leaks', async () => {
    const cases: [string, string][] = [
      [fifo('env.fifo'), 'not_regular_file'],
      ['/dev/zero', 'not_regular_file'],
      ['/proc/self/environ', 'not_text'],
    ];
    for (const [envFile, problem] of cases) {
      const error = await failure(connectMcp({ ...pythonConfig(), envFile }));
      expect(error).toMatchObject({ code: 'spawn_failed', details: { reason: 'env_file_unreadable', problem } });
      expect(JSON.stringify(error)).not.toContain(process.env.PATH as string);
    }
  });

  it('R3: an envFile over 1 MiB is refused as too_large; one just under is read', async () => {
    const big = path.join(tmp.dir, 'big.env');
    const comments = (bytes: number) => `${'# padding\n'.repeat(Math.floor(bytes / 10))}A=1\n`; // one env value stays small (E2BIG)
    fs.writeFileSync(big, comments(1024 * 1024 + 10));
    expect(await failure(connectMcp({ ...pythonConfig(), envFile: big }))).toMatchObject({
      code: 'spawn_failed',
      details: { problem: 'too_large' },
    });
    const fits = path.join(tmp.dir, 'fits.env');
    fs.writeFileSync(fits, comments(1024 * 1024 - 20));
    await using connection = await connectMcp({ ...pythonConfig(), envFile: fits });
    expect(connection.serverInfo.name).toBe('agt-python-fixture');
  });

  it('P1: the static test names an envFile that is a pipe or device without opening it', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    for (const envFile of ['/dev/zero', fifo('static.fifo')]) {
      const reference = `tools/s${n++}`;
      await service.write({ kind: 'mcp', reference, create: true, data: { mcpServers: { s: { ...pythonConfig(), envFile } } } });
      const report = await service.test({ kind: 'mcp', reference });
      expect(report.ok).toBe(false);
      expect(JSON.stringify(report.problems)).toMatch(/not a regular file/);
    }
  });
});

describe('config files are read bounded', () => {
  it('R2: agt mcp import of /dev/zero, a FIFO and a directory is invalid_input, exit 2, at once', async () => {
    for (const file of ['/dev/zero', fifo('import.fifo'), tmp.dir]) {
      const { code, stderr } = await agt(['mcp', 'import', file]);
      expect({ file, code }).toEqual({ file, code: 2 });
      expect(stderr).toMatch(/not a regular file/);
    }
  });

  it('R2: 300 MB piped to standard input ("-") stops at the 4 MiB limit: invalid_input, exit 2; a small document on stdin imports', async () => {
    const huge = Buffer.alloc(300 * 1024 * 1024, 0x20);
    const refused = await agt(['mcp', 'import', '-'], huge);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/larger than 4194304 bytes/);
    const doc = JSON.stringify({ mcpServers: { s: { command: 'python3', args: ['x.py'], cwd: tmp.dir } } });
    const ok = await agt(['mcp', 'import', '-', '--category', 'tools'], doc);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/tools\/s/);
  });
});

describe('processes that try to escape close', () => {
  const cgroups = () => {
    try {
      return fs.readdirSync('/sys/fs/cgroup/unified').filter((d) => d.startsWith(`agt-mcp-${process.pid}-`));
    } catch {
      return [];
    }
  };

  it('P3: an env -i setsid double fork at start or on stdin EOF, and a stray that respawns on SIGTERM, are all ended; warnings say so when one is left', async () => {
    for (const mode of ['escape-env', 'escape-on-eof', 'respawn']) {
      const mark = marker();
      const connection = await connectMcp(pythonConfig({ mode, mark }));
      expect((await connection.listTools()).length).toBeGreaterThan(0);
      if (mode !== 'escape-on-eof') await waitFor(() => livingWithMarker(mark).length === 2); // the server and its escapee
      await connection.close();
      const left = livingWithMarker(mark);
      // Either nothing is left, or the connection says so: never a silent survivor.
      expect({ mode, left: left.length === 0 || connection.warnings.some((w) => /outlived close/.test(w)) }).toEqual({ mode, left: true });
      expect({ mode, left }).toEqual({ mode, left: [] }); // on Linux with a writable cgroup2 (CI): nothing at all
    }
    expect(cgroups()).toEqual([]); // every server's cgroup is removed
  });

  // Where to look: the cgroup2 directory this host makes servers' cgroups in (none without a writable cgroup2).
  const probe = createServerCgroup();
  probe?.remove();
  const base = probe === undefined ? undefined : path.dirname(probe.dir);

  it.runIf(base !== undefined)(
    'P3: the empty cgroup a SIGKILLed host leaves behind is removed by the next host (skipped without a writable cgroup2)',
    async () => {
      const dir = base as string;
      const host = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/hardening/fixtures/host-with-server.ts')], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        host.stdout.on('data', (chunk: Buffer) => String(chunk).includes('ready') && resolve());
        host.once('exit', (code) => reject(new Error(`the host exited (${code}) before its server started`)));
      });
      const left = () => fs.readdirSync(dir).filter((d) => d.startsWith(`agt-mcp-${host.pid}-`));
      expect(left()).toHaveLength(1); // its server's cgroup
      const exited = new Promise((resolve) => host.once('exit', resolve));
      host.kill('SIGKILL');
      await exited;
      // The server reads EOF and ends; its cgroup stays, empty, until a host sweeps it (another test file's may come first).
      const emptyOrGone = () => {
        const [name] = left();
        try {
          return name === undefined || fs.readFileSync(path.join(dir, name, 'cgroup.procs'), 'utf8') === '';
        } catch {
          return true; // removed as it was read
        }
      };
      await waitFor(emptyOrGone);
      // The next host to start a server (here: a CLI probe, a process of its own) sweeps it.
      const db = path.join(tmp.dir, 'sweep.db');
      expect(
        (await runAgt(['mcp', 'add', 'tools/py', '--cwd', REPO_ROOT, '--', 'python3', PYTHON_SERVER], { home: tmp.dir, db })).code,
      ).toBe(0);
      expect((await runAgt(['mcp', 'probe', 'tools/py'], { home: tmp.dir, db, spawn: true })).code).toBe(0);
      expect(left()).toEqual([]);
    },
    60_000, // two hosts and a CLI process start through tsx: room for a busy machine
  );
});
