/**
 * P5 on real processes: the Python fixture (`--feature sandbox-probe`) run sandboxed and, as the control,
 * not. Needs Node >= 22.12 and bubblewrap, socat and ripgrep (CI installs them); elsewhere the file says
 * why it skips, and test/mcp/process/sandbox/refusal.test.ts proves the refusal instead.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp, McpProber, type McpConnection } from '../../../../src/index.js';
import { type SandboxConfig, sandboxMissing } from '../../../../src/config/sandbox.js';
import { sandboxHolders } from '../../../../src/mcp/process/sandbox/host.js';
import { failure, livingWithMarker, marker, pythonConfig, tempDir, waitFor } from '../../../support/index.js';

const missing = sandboxMissing(); // Node >= 22.12, the runtime package, bwrap, socat, rg
const why = missing.length === 0 ? '' : ` (skipped: this machine lacks ${missing.map((m) => m.split(';')[0]).join(', ')})`;
const timeouts = { handshakeMs: 20_000, closeGraceMs: 500 };
// CI (.ci/run) sets AGT_TEST_SANDBOX: there, on a Node that can sandbox, a missing piece fails instead of skipping.
const required = process.env.AGT_TEST_SANDBOX !== undefined && !missing.some((m) => m.startsWith('node:'));

describe.runIf(required && missing.length > 0)('P5: AGT_TEST_SANDBOX is set, so the sandbox must be available', () => {
  it('P5: nothing the sandbox needs is missing', () => {
    expect(missing).toEqual([]);
  });
});

// A temp home with a secret, a work folder (the server's cwd), a folder outside it, and a loopback listener.
let home: ReturnType<typeof tempDir>;
let work: ReturnType<typeof tempDir>;
let outside: ReturnType<typeof tempDir>;
let listener: net.Server;
let port = 0;
let accepted = 0;
beforeEach(async () => {
  home = tempDir('agt-sbx-home-');
  work = tempDir('agt-sbx-work-');
  outside = tempDir('agt-sbx-out-');
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

function probeServer(options: { sandbox?: true | SandboxConfig; mark?: string; features?: string[] } = {}) {
  const features = (options.features ?? ['sandbox-probe']).flatMap((f) => ['--feature', f]);
  const config = pythonConfig({ cwd: work.dir, env: { HOME: home.dir }, extra: features, ...(options.mark ? { mark: options.mark } : {}) });
  return options.sandbox === undefined ? config : { ...config, sandbox: options.sandbox };
}

// This process's living children named `comm` (/proc/PID/stat: pid (comm) state ppid …).
function ownChildren(comm: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .flatMap((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return name === comm && state !== 'Z' && Number(ppid) === process.pid ? [Number(pid)] : [];
      } catch {
        return []; // exited while we looked
      }
    });
}

const text = (result: { content?: unknown }) => JSON.stringify(result.content ?? []);
// The JSON the fixture answered in its first text part.
const answer = <T>(result: { content?: readonly { type: string }[] }): T => {
  const first = result.content?.[0] as { text?: string } | undefined;
  return JSON.parse(first?.text ?? '{}') as T;
};

// Calls every probe tool once; what each answered, and what reached the outside.
async function tryEverything(connection: McpConnection) {
  const target = path.join(outside.dir, 'pwned.txt');
  const writeOutside = await connection.callTool('write_outside', { path: target });
  const writeInside = await connection.callTool('write_inside', { name: 'inside.txt' });
  const connect = await connection.callTool('connect', { port });
  const read = await connection.callTool('read_file', { path: '~/.ssh/id_x' });
  return {
    writeOutside,
    writeInside,
    connect,
    read,
    outsideWritten: fs.existsSync(target),
    insideWritten: fs.existsSync(path.join(work.dir, 'inside.txt')),
  };
}

describe.skipIf(missing.length > 0)(`P5: a sandboxed stdio server gets only what its config gives it${why}`, () => {
  let signalsBefore: Record<string, number>;
  beforeAll(() => {
    signalsBefore = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') };
  });
  afterAll(() => {
    // P5: the host's signal behaviour is its own: the runtime's SIGINT/SIGTERM listeners were taken out again.
    expect({ SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') }).toEqual(signalsBefore);
  });

  it('P5: sandboxed, the outside write, the loopback connect and the secret read fail as tool errors; the inside write works', async () => {
    const connection = await connectMcp(probeServer({ sandbox: true }), { timeouts });
    try {
      const r = await tryEverything(connection);
      expect(r.writeOutside.isError).toBe(true);
      expect(text(r.writeOutside)).toMatch(/EROFS|EPERM|EACCES/);
      expect(r.outsideWritten).toBe(false);
      expect(r.writeInside.isError).toBe(false);
      expect(r.insideWritten).toBe(true);
      expect(r.connect.isError).toBe(true);
      expect(text(r.connect)).toMatch(/ECONNREFUSED|ENETUNREACH|EPERM|EACCES/);
      expect(r.read.isError).toBe(true);
      expect(text(r.read)).toMatch(/ENOENT|EACCES|EPERM/);
      // Its TMPDIR is its private temp folder (made for this launch, removed at its end), which it may write.
      const seen = answer<{ var_sha256: string }>(await connection.callTool('whereami', { var: 'TMPDIR' }));
      const folders = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('agt-sandbox-'));
      const sha = (v: string) => crypto.createHash('sha256').update(v).digest('hex');
      expect(folders.map((f) => sha(path.join(os.tmpdir(), f)))).toContain(seen.var_sha256);
    } finally {
      await connection.close();
    }
    expect(accepted).toBe(0); // the listener saw nothing
  });

  it('P5: the control — the same server unsandboxed does all four', async () => {
    const connection = await connectMcp(probeServer(), { timeouts });
    try {
      const r = await tryEverything(connection);
      expect([r.writeOutside, r.writeInside, r.connect, r.read].map((x) => x.isError)).toEqual([false, false, false, false]);
      expect(r.outsideWritten).toBe(true);
      expect(r.insideWritten).toBe(true);
    } finally {
      await connection.close();
    }
    await waitFor(() => accepted === 1);
  });

  it('P2 P5: the probe starts it the way a run does and lists the same tools sandboxed and not', async () => {
    const prober = new McpProber({ timeouts });
    const plain = await prober.probe({ mcpServers: { py: probeServer() } });
    const boxed = await prober.probe({ mcpServers: { py: probeServer({ sandbox: true }) } });
    expect(boxed.ok).toBe(true);
    expect(boxed.tools.map((t) => t.name)).toEqual(plain.tools.map((t) => t.name));
    expect(boxed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['write_outside', 'write_inside', 'connect', 'read_file']));
  });

  it("P5: the runtime's note of a denied connection shows in the stderr tail", async () => {
    const connection = await connectMcp(probeServer({ sandbox: true }), { timeouts });
    try {
      const denied = await connection.callTool('fetch', { url: 'http://blocked.example.com/' });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain('403');
      expect(connection.stderrTail()).toMatch(/sandbox_violations[\s\S]*blocked\.example\.com/);
    } finally {
      await connection.close();
    }
  });

  it('P5: a sandboxed server killed mid-call leaves 0 processes (closed by us, or killed from outside)', async () => {
    const mark = marker();
    const first = await connectMcp(probeServer({ sandbox: true, mark, features: ['sandbox-probe', 'slow'] }), { timeouts });
    const pending = first.callTool('never', {});
    expect(livingWithMarker(mark).length).toBeGreaterThan(0);
    await first.close();
    await expect(pending).rejects.toMatchObject({ code: 'connection_closed' });
    expect(livingWithMarker(mark)).toEqual([]);

    const mark2 = marker();
    const second = await connectMcp(probeServer({ sandbox: true, mark: mark2, features: ['sandbox-probe', 'slow'] }), { timeouts });
    try {
      const call = second.callTool('never', {});
      // The server itself (python, inside the sandbox's PID namespace) is killed from outside.
      const server = livingWithMarker(mark2).find((pid) =>
        path.basename(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '').startsWith('python'),
      );
      expect(server).toBeDefined();
      process.kill(server as number, 'SIGKILL');
      await expect(call).rejects.toMatchObject({ code: 'connection_closed' });
    } finally {
      await second.close();
    }
    expect(livingWithMarker(mark2)).toEqual([]);
    expect(sandboxHolders()).toBe(0); // the last server's end gave the sandbox host back
    expect(ownChildren('socat')).toEqual([]); // and the reset ended the runtime's network bridge
  });

  it('P5: no argument is shell syntax: quotes and `; touch` reach the server as text', async () => {
    const pwned = path.join(outside.dir, 'pwned-by-arg');
    const nasty = `x'; touch ${pwned}; echo '"$(touch ${pwned})"\`touch ${pwned}\``;
    const connection = await connectMcp(probeServer({ sandbox: true, mark: nasty }), { timeouts });
    try {
      expect(livingWithMarker(nasty).length).toBeGreaterThan(0);
      const seen = answer<{ argv: string[] }>(await connection.callTool('whereami', {}));
      expect(seen.argv).toEqual(['--mode', 'normal', '--marker', nasty, '--feature', 'sandbox-probe']); // each word as given
    } finally {
      await connection.close();
    }
    expect(fs.existsSync(pwned)).toBe(false);
  });

  it('P5: servers with different filesystem rules run at once, each under its own', async () => {
    const shared = tempDir('agt-sbx-extra-');
    try {
      const wide = await connectMcp(probeServer({ sandbox: { filesystem: { allowWrite: [shared.dir] } } }), { timeouts });
      const narrow = await connectMcp(probeServer({ sandbox: true }), { timeouts });
      try {
        const a = await wide.callTool('write_outside', { path: path.join(shared.dir, 'a.txt') });
        const b = await narrow.callTool('write_outside', { path: path.join(shared.dir, 'b.txt') });
        expect(a.isError).toBe(false);
        expect(b.isError).toBe(true);
        expect(fs.existsSync(path.join(shared.dir, 'a.txt'))).toBe(true);
        expect(fs.existsSync(path.join(shared.dir, 'b.txt'))).toBe(false);
      } finally {
        await Promise.all([wide.close(), narrow.close()]);
      }
    } finally {
      shared.cleanup();
    }
  });

  it("P5: network by name: each server's allowedDomains is its own; a deniedDomains entry wins over an allow", async () => {
    const given = await connectMcp(
      probeServer({ sandbox: { network: { allowedDomains: ['*.example.com'], deniedDomains: ['bad.example.com'] } } }),
      { timeouts },
    );
    const none = await connectMcp(probeServer({ sandbox: true }), { timeouts });
    try {
      // The proxy lets the allowed host through (whether it then resolves is the network's business): no 403, no note.
      const allowed = await given.callTool('fetch', { url: 'http://ok.example.com/' });
      expect(text(allowed)).not.toContain('403');
      expect(given.stderrTail()).not.toContain('ok.example.com');
      // The same host from a server not given it: denied, with the runtime's note.
      const other = await none.callTool('fetch', { url: 'http://ok.example.com/' });
      expect(text(other)).toContain('403');
      expect(none.stderrTail()).toMatch(/deny network-outbound ok\.example\.com/);
      // Denied by name although the wildcard allows it.
      const bad = await given.callTool('fetch', { url: 'http://bad.example.com/' });
      expect(text(bad)).toContain('403');
      expect(given.stderrTail()).toMatch(/deny network-outbound bad\.example\.com/);
    } finally {
      await Promise.all([given.close(), none.close()]);
    }
  });

  it('P5: a sandbox that cannot be used as written fails with invalid_config, nothing started', async () => {
    const mark = marker();
    const f = await failure(connectMcp(probeServer({ sandbox: { filesystem: { allowWrite: ['../up'] } }, mark }), { timeouts }));
    expect(f.code).toBe('invalid_config');
    expect(livingWithMarker(mark)).toEqual([]);
  });
});
