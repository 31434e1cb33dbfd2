/**
 * A hostile pass over the sandbox (P5): a hostile config (wide writes, aliases of secret places, wildcard
 * domains, odd values), a hostile server (symlinks, forks, setsid, killing its parent) and a busy host
 * (many servers at once, listener counts). The real-process parts need Node >= 22.12 and bwrap/socat/rg;
 * elsewhere they skip saying why, and the Node-20 refusal is asserted instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/index.js';
import { resolveSandbox, sandboxFields, sandboxMissing, sandboxProblems, type SandboxConfig } from '../../src/config/sandbox.js';
import { missingSandboxPieces, nodeAtLeast } from '../../src/config/sandbox-machine.js';
import { holdSandbox, sandboxHolders } from '../../src/mcp/process/sandbox/host.js';
import { launchRules, sandboxLaunch } from '../../src/mcp/process/sandbox/launch.js';
import { execLine } from '../../src/mcp/process/sandbox/quote.js';
import { withSandbox } from '../../src/cli/mcp/sandbox-flags.js';
import { failure, livingWithMarker, marker, pythonConfig, tempDir, waitFor } from '../support/index.js';

const missing = sandboxMissing();
const why = missing.length === 0 ? '' : ` (skipped: this machine lacks ${missing.map((m) => m.split(';')[0]).join(', ')})`;
const timeouts = { handshakeMs: 20_000, closeGraceMs: 500 };
const HOME = os.homedir();

describe('P5: a hostile sandbox config is refused or narrowed', () => {
  const refused = (config: { sandbox?: unknown; cwd: string }) => {
    try {
      resolveSandbox(config, '/home/other', '/tmp/x');
    } catch (error) {
      return (error as { code: string }).code;
    }
    return 'accepted';
  };

  it('P5: a cwd of "/" or of the home folder (or above it) is refused: `true` would let the server write there', () => {
    expect(refused({ sandbox: true, cwd: '/' })).toBe('invalid_config');
    expect(refused({ sandbox: true, cwd: HOME })).toBe('invalid_config');
    expect(refused({ sandbox: true, cwd: `${HOME}/.` })).toBe('invalid_config');
    expect(refused({ sandbox: {}, cwd: path.dirname(HOME) })).toBe('invalid_config');
    expect(refused({ sandbox: true, cwd: path.join(HOME, 'project') })).toBe('accepted');
  });

  it('P5: allowWrite of "/", "~", "//", "/.", ${userHome} or a folder above home is refused; a folder in home is not', () => {
    const cwd = '/srv/work';
    for (const entry of ['/', '~', '//', '/.', '~/.', '${userHome}', '${userHome}/', path.dirname(HOME)]) {
      const sandbox = { filesystem: { allowWrite: [entry] } };
      // `~` and ${userHome} expand to the home given; here it is the user's own.
      try {
        resolveSandbox({ sandbox, cwd }, HOME, '/tmp/x');
        expect.unreachable(`allowWrite ${entry} was accepted`);
      } catch (error) {
        expect(error).toMatchObject({
          code: 'invalid_config',
          details: { field: expect.stringMatching(/^config\.sandbox\.filesystem\.allowWrite/) },
        });
      }
    }
    expect(resolveSandbox({ sandbox: { filesystem: { allowWrite: ['~/cache'] } }, cwd }, HOME, '/tmp/x')?.filesystem.allowWrite).toContain(
      path.join(HOME, 'cache'),
    );
  });

  it('P1 P5: the static check (at write, in the test) already flags an allowWrite of "/", "~" or ${userHome}', () => {
    const fields = (allowWrite: string[]) => sandboxProblems({ command: 'x', sandbox: { filesystem: { allowWrite } } }).map((p) => p.field);
    expect(fields(['/', '~', '${userHome}/.', '//'])).toEqual([0, 1, 2, 3].map((i) => `config.sandbox.filesystem.allowWrite[${i}]`));
    expect(fields(['~/cache', 'out', '/srv/data'])).toEqual([]);
  });

  it('P5: `agt mcp probe --sandbox` sandboxes a server whose config says "sandboxEnabled": false', () => {
    const document = {
      mcpServers: { s: { command: 'x', sandboxEnabled: false, sandbox: { network: { allowedDomains: ['a.example.com'] } } } },
    };
    const boxed = withSandbox(document as never).mcpServers.s as unknown as Record<string, unknown>;
    expect(boxed.sandboxEnabled).toBeUndefined();
    expect(boxed.sandbox).toEqual({ network: { allowedDomains: ['a.example.com'] } });
    const warnings: string[] = [];
    expect(sandboxFields(boxed, 's', warnings, (f) => new Error(f))).toEqual({ sandbox: boxed.sandbox });
    expect(warnings).toEqual([]);
  });

  it('P5: a cwd or an allowWrite entry that is a symlink to home (or to "/") is refused too', () => {
    const t = tempDir('agt-sbx-link-');
    try {
      fs.symlinkSync(HOME, path.join(t.dir, 'home'));
      fs.symlinkSync('/', path.join(t.dir, 'root'));
      expect(refused({ sandbox: true, cwd: path.join(t.dir, 'home') })).toBe('invalid_config');
      expect(refused({ sandbox: { filesystem: { allowWrite: ['./root'] } }, cwd: t.dir })).toBe('invalid_config');
      expect(refused({ sandbox: { filesystem: { allowWrite: ['home/'] } }, cwd: t.dir })).toBe('invalid_config');
      expect(refused({ sandbox: true, cwd: t.dir })).toBe('accepted');
    } finally {
      t.cleanup();
    }
  });

  it('P5: a unicode look-alike of ".." is a plain name under cwd; "//" and trailing "/." are normalised', () => {
    const r = resolveSandbox({ sandbox: { filesystem: { allowWrite: ['\u2024\u2024/x', '/srv//a/.'] } }, cwd: '/srv/work' }, '/h', '/t');
    expect(r?.filesystem.allowWrite).toEqual(['/srv/work', '/t', '/srv/work/\u2024\u2024/x', '/srv/a']);
  });

  it('P5: "*.com" and "*" are refused as domains; IP literals, localhost and ports are names the user gave', () => {
    const fields = (domains: string[]) =>
      sandboxProblems({ command: 'x', sandbox: { network: { allowedDomains: domains } } }).map((p) => p.field);
    expect(fields(['*.com'])).toEqual(['config.sandbox.network.allowedDomains[0]']);
    expect(fields(['*'])).toEqual(['config.sandbox.network.allowedDomains[0]']);
    expect(fields(['*:443'])).toEqual(['config.sandbox.network.allowedDomains[0]']);
    expect(fields(['*.example.com', 'api.example.com:443', '127.0.0.1', 'localhost'])).toEqual([]);
  });

  it("P5: sandbox 'true' is refused, {} is the same as true, false is none, sandboxEnabled 'yes' is refused", () => {
    expect(sandboxProblems({ command: 'x', sandbox: 'true' }).map((p) => p.field)).toEqual(['config.sandbox']);
    expect(resolveSandbox({ sandbox: {}, cwd: '/srv/w' }, '/h', '/t')).toEqual(
      resolveSandbox({ sandbox: true, cwd: '/srv/w' }, '/h', '/t'),
    );
    expect(resolveSandbox({ sandbox: false, cwd: '/srv/w' }, '/h', '/t')).toBeUndefined();
    const invalid = (field: string, message: string) => new Error(`${field}: ${message}`);
    expect(() => sandboxFields({ command: 'x', sandboxEnabled: 'yes' }, 'c', [], invalid)).toThrow(/sandboxEnabled/);
    expect(sandboxFields({ command: 'x', sandboxEnabled: true }, 'c', [], invalid)).toEqual({ sandbox: true });
  });
});

describe("P5: the server's HOME", () => {
  it("P5: a relative or empty HOME in the config is the server's cwd-relative home; the host's secrets stay denied", () => {
    const spec = (HOME: string) => ({ command: 'x', args: [], cwd: work.dir, env: { HOME } });
    const rel = launchRules({ sandbox: true }, spec('h'), '/t')?.filesystem.denyRead ?? [];
    expect(rel).toEqual(expect.arrayContaining([path.join(work.dir, 'h', '.ssh'), path.join(HOME, '.ssh')]));
    expect(rel.every((p) => path.isAbsolute(p))).toBe(true);
    expect(launchRules({ sandbox: true }, spec(''), '/t')?.filesystem.denyRead).toContain(path.join(HOME, '.ssh'));
  });
});

describe('P5: the machine check is not fooled by PATH', () => {
  it('P5: a relative PATH entry, a non-executable file and a folder named bwrap are not bwrap', () => {
    const t = tempDir('agt-sbx-path-');
    try {
      const [file, folder, rel] = ['file', 'folder', 'rel'].map((d) => path.join(t.dir, d)) as [string, string, string];
      for (const d of [file, folder, rel]) fs.mkdirSync(d);
      fs.writeFileSync(path.join(file, 'bwrap'), '#!/bin/sh\n', { mode: 0o644 });
      fs.mkdirSync(path.join(folder, 'bwrap'));
      fs.writeFileSync(path.join(rel, 'bwrap'), '#!/bin/sh\n', { mode: 0o755 });
      const relative = path.relative(process.cwd(), rel);
      const pieces = missingSandboxPieces({
        platform: 'linux',
        nodeVersion: '24.0.0',
        runtimeInstalled: () => true,
        pathValue: [file, folder, relative, 'bwrap'].join(':'),
      });
      expect(pieces.map((p) => p.piece)).toContain('bwrap');
      expect(nodeAtLeast('22.11.9')).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});

describe('P5: the command line the runtime wraps carries each word exactly', () => {
  const nasty = ["a'b", 'new\nline', "$'\\x41'", '$(touch /tmp/agt-pwn)', '`id`', '"; exit 3', '-c', ' '];
  it("P5: quotes, newlines, $'…', $( ) and backquotes reach the program as text (run by a real sh)", () => {
    const line = execLine('printf', ['%s\\0', ...nasty], process.env.PATH);
    const run = spawnSync('bash', ['-c', line], { encoding: 'utf8' }); // the runtime's shell (sh: the same quoting)
    expect(run.status).toBe(0);
    expect(run.stdout.split('\0').slice(0, -1)).toEqual(nasty);
  });

  it("P5: a command named like an exec option is no option; NUL and a line over one argument's limit are refused", () => {
    expect(() => execLine('-a', ['x'], undefined)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => execLine('x', ['a\0b'], undefined)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    const f = (() => {
      try {
        execLine('x', ['y'.repeat(200_000)], '/bin');
      } catch (error) {
        return error as { code: string; message: string };
      }
      return undefined;
    })();
    expect(f?.code).toBe('invalid_config');
    expect(f?.message).not.toContain('yyyy');
  });
});

describe('P5: error messages hold no env values from the config', () => {
  it('P5: a refused sandbox (malformed or unavailable) names no env value', async () => {
    const secret = 'sk-hostile-SECRET-123';
    for (const sandbox of [{ filesystem: { allowWrite: ['../x'] } }, { network: { allowedDomains: ['*'] } }, true] as const) {
      const config = { ...pythonConfig({ env: { TOKEN: secret, HOME: '/' } }), sandbox: sandbox as true | SandboxConfig };
      const f = await failure(connectMcp({ ...config, cwd: '/' }, { timeouts }));
      expect(['invalid_config', 'sandbox_unavailable']).toContain(f.code);
      expect(JSON.stringify(f)).not.toContain(secret);
    }
  });
});

describe.runIf(!nodeAtLeast(process.versions.node))('P5: on Node < 22.12 a sandboxed server is refused', () => {
  it('P5: invalid_config naming Node >= 22.12, nothing started', async () => {
    const mark = marker();
    const f = await failure(connectMcp({ ...pythonConfig({ mark }), sandbox: true }, { timeouts }));
    expect(f.code).toBe('invalid_config');
    expect(f.message).toContain('Node >= 22.12');
    expect(livingWithMarker(mark)).toEqual([]);
  });
});

// A temp home with a secret, a work folder, a folder outside it, a loopback listener.
let home: ReturnType<typeof tempDir>;
let work: ReturnType<typeof tempDir>;
let outside: ReturnType<typeof tempDir>;
let listener: net.Server;
let port = 0;
let accepted = 0;
beforeEach(async () => {
  home = tempDir('agt-sbxh-home-');
  work = tempDir('agt-sbxh-work-');
  outside = tempDir('agt-sbxh-out-');
  fs.mkdirSync(path.join(home.dir, '.ssh'));
  fs.writeFileSync(path.join(home.dir, '.ssh', 'id_x'), 'PRIVATE KEY\n');
  accepted = 0;
  listener = net.createServer((socket) => {
    accepted += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});
afterEach(async () => {
  await new Promise((resolve) => listener.close(resolve));
  for (const t of [home, work, outside]) t.cleanup();
});

const probe = (sandbox: unknown = true, env: Record<string, string> = { HOME: home.dir }) => ({
  ...pythonConfig({ cwd: work.dir, env, extra: ['--feature', 'sandbox-probe'] }),
  sandbox: sandbox as true | SandboxConfig,
});
const text = (r: { content?: unknown }) => JSON.stringify(r.content ?? []);

describe.skipIf(missing.length > 0)(`P5: a hostile server inside the sandbox${why}`, () => {
  it('P5: a symlink in cwd to a folder outside does not let a write escape', async () => {
    fs.symlinkSync(outside.dir, path.join(work.dir, 'out'));
    const c = await connectMcp(probe(), { timeouts });
    try {
      const r = await c.callTool('write_inside', { name: 'out/pwned.txt' });
      expect(r.isError).toBe(true);
      expect(fs.existsSync(path.join(outside.dir, 'pwned.txt'))).toBe(false);
    } finally {
      await c.close();
    }
  });

  it('P5: ~/.ssh stays unreadable through a symlink in cwd, /proc/self/root, "/../" and "//…/./"', async () => {
    fs.symlinkSync(path.join(home.dir, '.ssh'), path.join(work.dir, 'keys'));
    const name = path.basename(home.dir);
    const c = await connectMcp(probe(), { timeouts });
    try {
      for (const p of [
        path.join(work.dir, 'keys', 'id_x'),
        `/proc/self/root${home.dir}/.ssh/id_x`,
        `${home.dir}/../${name}/.ssh/id_x`,
        `${path.dirname(home.dir)}//${name}/./.ssh/id_x`,
      ]) {
        const r = await c.callTool('read_file', { path: p });
        expect(r.isError, p).toBe(true);
        expect(text(r)).not.toContain('PRIVATE KEY');
      }
    } finally {
      await c.close();
    }
  });

  it('P5: VS Code\'s "sandboxEnabled": true alone sandboxes the server', async () => {
    const { sandbox: _, ...config } = probe();
    const c = await connectMcp({ ...config, sandboxEnabled: true } as typeof config, { timeouts });
    try {
      expect((await c.callTool('write_outside', { path: path.join(outside.dir, 'x') })).isError).toBe(true);
    } finally {
      await c.close();
    }
    expect(fs.existsSync(path.join(outside.dir, 'x'))).toBe(false);
  });

  it('P5: an argument over the one-argument limit is refused as invalid_config naming no argument; nothing left held', async () => {
    const mark = marker();
    const big = `--token=${'s'.repeat(140_000)}`;
    const f = await failure(connectMcp({ ...pythonConfig({ mark, cwd: work.dir, extra: [big] }), sandbox: true }, { timeouts }));
    expect(f).toMatchObject({ code: 'invalid_config', details: { reason: 'command_line_too_long' } });
    expect(f.message).not.toContain('ssss');
    expect(livingWithMarker(mark)).toEqual([]);
    expect(sandboxHolders()).toBe(0);
  });

  it('P5: a cwd that is the home folder is refused before anything starts', async () => {
    const mark = marker();
    const f = await failure(connectMcp({ ...pythonConfig({ mark, cwd: HOME }), sandbox: true }, { timeouts }));
    expect(f).toMatchObject({ code: 'invalid_config', details: { field: 'config.cwd' } });
    expect(livingWithMarker(mark)).toEqual([]);
  });

  it("P5: the host's loopback is out of reach, directly and through the proxy, even with a wildcard allowed", async () => {
    const c = await connectMcp(probe({ network: { allowedDomains: ['*.example.com'] } }), { timeouts });
    try {
      expect((await c.callTool('connect', { port })).isError).toBe(true);
      for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
        const r = await c.callTool('fetch', { url: `http://${host}:${port}/` });
        expect(text(r)).toMatch(/403|error|refused/i);
      }
    } finally {
      await c.close();
    }
    expect(accepted).toBe(0);
  });

  it('P5: a server that setsids, double-forks and kills pid 1 leaves 0 processes once its launcher ends', async () => {
    for (const how of ['stdin', 'SIGKILL'] as const) {
      const mark = marker();
      const daemon = `python3 -c "import time; time.sleep(3000)" ${mark}`;
      const script = `setsid ${daemon} & (${daemon} &) ; kill -9 1 2>/dev/null; exec cat`;
      const env = { PATH: process.env.PATH ?? '' };
      const launched = await sandboxLaunch({ sandbox: true }, { command: 'sh', args: ['-c', script], cwd: work.dir, env });
      expect(launched).toBeDefined();
      const { spec, lease } = launched as NonNullable<typeof launched>;
      const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'ignore', 'ignore'] });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        await waitFor(() => livingWithMarker(mark).length >= 2);
        if (how === 'stdin') child.stdin.end();
        else child.kill('SIGKILL');
        await exited;
        await waitFor(() => livingWithMarker(mark).length === 0);
      } finally {
        child.kill('SIGKILL');
        await lease.release();
      }
      expect(livingWithMarker(mark)).toEqual([]);
    }
  });
});

describe.skipIf(missing.length > 0)(`P5: many sandboxed servers and the one runtime host${why}`, () => {
  const counts = () => ({
    SIGINT: process.listenerCount('SIGINT'),
    SIGTERM: process.listenerCount('SIGTERM'),
    exit: process.listenerCount('exit'),
  });

  it('P5: 10 at once, closed in a shuffled order, then one more: the host resets and starts again', async () => {
    const all = await Promise.all(Array.from({ length: 10 }, () => connectMcp(probe(), { timeouts })));
    expect(sandboxHolders()).toBe(10);
    const order = all.map((c, i) => ({ c, k: (i * 7) % 10 })).sort((a, b) => a.k - b.k);
    await Promise.all(order.map(({ c }, i) => (i % 2 === 0 ? c.close() : Promise.resolve().then(() => c.close()))));
    expect(sandboxHolders()).toBe(0);
    const again = await connectMcp(probe(), { timeouts });
    try {
      expect((await again.callTool('write_inside', { name: 'again.txt' })).isError).toBe(false);
    } finally {
      await again.close();
    }
    expect(sandboxHolders()).toBe(0);
  });

  it('P5: 20 start/close cycles add no SIGINT, SIGTERM or exit listeners', async () => {
    const warm = await connectMcp(probe(), { timeouts }); // the runtime's once-per-process listeners come here
    await warm.close();
    const before = counts();
    for (let i = 0; i < 20; i++) {
      const c = await connectMcp(probe(), { timeouts });
      await c.close();
    }
    // A listener a closing connection holds until its process is reaped may still be there a moment: waited for.
    await waitFor(() => JSON.stringify(counts()) === JSON.stringify(before)).catch(() => undefined);
    expect(counts()).toEqual(before);
  });

  it("P5: a SIGINT listener the host adds while the runtime initializes is kept (only the runtime's own is taken out)", async () => {
    const mine = () => undefined;
    const before = counts();
    const held = holdSandbox();
    await waitFor(() => sandboxHolders() > 0);
    process.on('SIGINT', mine);
    process.on('SIGTERM', mine);
    const hold = await held;
    try {
      expect(process.listeners('SIGINT')).toContain(mine);
      expect(process.listeners('SIGTERM')).toContain(mine);
      // The runtime's own clean-up (added with `once` to both, the first time in a process) is not there.
      expect({ SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') }).toEqual({
        SIGINT: before.SIGINT + 1,
        SIGTERM: before.SIGTERM + 1,
      });
    } finally {
      process.removeListener('SIGINT', mine);
      process.removeListener('SIGTERM', mine);
      await hold.release();
    }
  });
});
