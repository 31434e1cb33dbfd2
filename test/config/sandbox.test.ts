/**
 * The `sandbox` of an MCP config (P5): its shape checked at write, in the static test (P1) and at launch
 * alike; `true` resolved to its documented defaults; what a machine lacks to sandbox named without starting
 * anything; VS Code's `sandboxEnabled` kept on import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore, ResourceService } from '../../src/index.js';
import { planImport } from '../../src/config.js';
import { testMcpConfig } from '../../src/config/config-test.js';
import { normaliseMcpDocument } from '../../src/config/mcp-config.js';
import { resolveSandbox, sandboxProblems } from '../../src/config/sandbox.js';
import { missingSandboxPieces, nodeAtLeast, sandboxMissing } from '../../src/config/sandbox-machine.js';
import { failure, stdioDoc, tempDir } from '../support/index.js';

let tmp: ReturnType<typeof tempDir>;
let service: ResourceService;
beforeEach(() => {
  tmp = tempDir();
  service = new ResourceService({ store: new MemoryStore() });
});
afterEach(() => tmp.cleanup());

const stdio = (sandbox: unknown) => ({ command: 'python3', args: ['server.py'], cwd: '/srv/app', sandbox });
const fields = (sandbox: unknown) => sandboxProblems(stdio(sandbox), 'config').map((p) => p.field);
const write = (config: Record<string, unknown>) =>
  service.write({ kind: 'mcp', reference: 'tools/box', create: true, data: stdioDoc(config) });

describe('P5: the shape of "sandbox"', () => {
  it('P5: true, false, and the known rules are accepted', () => {
    expect(fields(true)).toEqual([]);
    expect(fields(false)).toEqual([]);
    const rules = {
      filesystem: {
        allowWrite: ['out', '${cwd}/cache', '~/.cache/srv'],
        denyWrite: ['out/keep'],
        denyRead: ['**/*.pem'],
        allowRead: ['~/.ssh/known_hosts'],
      },
      network: { allowedDomains: ['api.example.com', '*.cdn.example.com', 'example.org:443'], deniedDomains: ['bad.example.com'] },
    };
    expect(sandboxProblems(stdio(rules), 'config')).toEqual([]);
  });

  it.each([
    [
      'an unknown key',
      { filesystem: { allowWrites: ['x'] } },
      'config.sandbox.filesystem.allowWrites',
      /did you mean "filesystem.allowWrite"/,
    ],
    ['an unknown top key', { net: {} }, 'config.sandbox.net', /unknown key "net"/],
    ['a string', 'yes', 'config.sandbox', /must be true or an object/],
    ['a list of numbers', { filesystem: { allowWrite: [1] } }, 'config.sandbox.filesystem.allowWrite', /list of strings/],
    ['a ".." escape', { filesystem: { allowWrite: ['../shared'] } }, 'config.sandbox.filesystem.allowWrite[0]', /contains "\.\."/],
    [
      'a hidden ".." escape',
      { filesystem: { allowWrite: ['${cwd}/a/../../etc'] } },
      'config.sandbox.filesystem.allowWrite[0]',
      /contains "\.\."/,
    ],
    ['an env placeholder', { filesystem: { allowWrite: ['${HOME}/x'] } }, 'config.sandbox.filesystem.allowWrite[0]', /expand only/],
    ['a write pattern', { filesystem: { denyWrite: ['src/*.ts'] } }, 'config.sandbox.filesystem.denyWrite[0]', /literal paths/],
    [
      'a pattern without a folder to start from',
      { filesystem: { denyRead: ['/**/*.pem'] } },
      'config.sandbox.filesystem.denyRead[0]',
      /literal folder/,
    ],
    ['"~user"', { filesystem: { denyRead: ['~root/.ssh'] } }, 'config.sandbox.filesystem.denyRead[0]', /~user/],
    [
      'a URL for a domain',
      { network: { allowedDomains: ['https://api.example.com'] } },
      'config.sandbox.network.allowedDomains[0]',
      /not a host name/,
    ],
    [
      'a path in a domain',
      { network: { allowedDomains: ['example.com/api'] } },
      'config.sandbox.network.allowedDomains[0]',
      /not a host name/,
    ],
    ['"*" alone', { network: { allowedDomains: ['*'] } }, 'config.sandbox.network.allowedDomains[0]', /every host/],
    ['a bad port', { network: { allowedDomains: ['example.com:70000'] } }, 'config.sandbox.network.allowedDomains[0]', /not a host name/],
    ['a bad host name', { network: { deniedDomains: ['exa mple.com'] } }, 'config.sandbox.network.deniedDomains[0]', /not a host name/],
    [
      'too many entries',
      { filesystem: { denyRead: Array.from({ length: 65 }, (_, i) => `d${i}`) } },
      'config.sandbox.filesystem.denyRead',
      /at most 64/,
    ],
    ['a too long entry', { filesystem: { denyRead: ['x'.repeat(4097)] } }, 'config.sandbox.filesystem.denyRead[0]', /longer than 4096/],
  ])('P5: %s is a problem naming its field, with a fix', (_, sandbox, field, message) => {
    const problems = sandboxProblems(stdio(sandbox), 'config');
    expect(problems.map((p) => p.field)).toEqual([field]);
    expect(problems[0]?.message).toMatch(message);
    expect(problems[0]?.fix).not.toBe('');
  });

  it('P5: a remote server with "sandbox" is refused: it is not a process of ours', async () => {
    const f = await failure(
      service.write({
        kind: 'mcp',
        reference: 'tools/remote',
        create: true,
        data: { mcpServers: { r: { url: 'https://example.com/mcp', sandbox: true } } } as never,
      }),
    );
    expect(f).toMatchObject({ code: 'invalid_config', details: { problems: [{ field: 'mcpServers.r.sandbox' }] } });
    expect(f.message).toMatch(/a remote server is not a process of ours/);
  });

  it('P1/P5: a malformed sandbox is refused at write time with problems [{ field, message, fix }], nothing stored', async () => {
    const f = await failure(
      write({ command: 'python3', cwd: tmp.dir, sandbox: { filesystem: { allowWrite: ['../up'] }, network: { allowedDomains: ['*'] } } }),
    );
    expect(f.code).toBe('invalid_config');
    const problems = (f.details as { problems: { field: string; fix: string }[] }).problems;
    expect(problems.map((p) => p.field)).toEqual([
      'mcpServers.server.sandbox.filesystem.allowWrite[0]',
      'mcpServers.server.sandbox.network.allowedDomains[0]',
    ]);
    expect(problems.every((p) => p.fix.length > 0)).toBe(true);
    expect(await service.list({ kind: 'mcp' })).toEqual([]);
  });

  it('P5: a good sandbox is stored as written; false is stored as no sandbox', async () => {
    const { record } = await write({ command: 'python3', cwd: tmp.dir, sandbox: { network: { allowedDomains: ['api.example.com'] } } });
    expect((record.data as { mcpServers: { server: { sandbox: unknown } } }).mcpServers.server.sandbox).toEqual({
      network: { allowedDomains: ['api.example.com'] },
    });
    expect(normaliseMcpDocument(stdioDoc({ command: 'x', cwd: '/a', sandbox: false })).config).not.toHaveProperty('sandbox');
  });
});

describe('P5: resolving a sandbox for a launch', () => {
  it('P5: true writes only in cwd and the private temp folder, reads all but the secret places, has no network', () => {
    const home = path.join(tmp.dir, 'home');
    const cwd = path.join(tmp.dir, 'work');
    const resolved = resolveSandbox({ cwd, sandbox: true }, home, path.join(tmp.dir, 'private-tmp'));
    expect(resolved).toEqual({
      filesystem: {
        allowWrite: [cwd, path.join(tmp.dir, 'private-tmp')],
        denyWrite: [],
        denyRead: [
          path.join(home, '.ssh'),
          path.join(home, '.aws'),
          path.join(home, '.gnupg'),
          path.join(home, '.config/gcloud'),
          path.join(cwd, '**/.env'),
          path.join(cwd, '**/.env.*'),
        ],
        allowRead: [],
      },
      network: { allowedDomains: [], deniedDomains: [] },
    });
  });

  it('R4/P5: rules add to the defaults; relative paths, ${cwd}, ${workspace}, ${userHome} and ~/ expand; allowRead re-opens a secret place', () => {
    const home = '/home/ann';
    const resolved = resolveSandbox(
      {
        cwd: '/srv/app',
        sandbox: {
          filesystem: {
            allowWrite: ['out/', '${workspace}/cache', '~/.cache/app'],
            denyWrite: ['${cwd}/out/keep'],
            allowRead: ['${userHome}/.ssh/known_hosts'],
          },
          network: { allowedDomains: ['API.example.com', 'api.example.com', '*.cdn.example.com'] },
        },
      },
      home,
      '/tmp/agt-box',
    );
    expect(resolved?.filesystem.allowWrite).toEqual(['/srv/app', '/tmp/agt-box', '/srv/app/out', '/srv/app/cache', '/home/ann/.cache/app']);
    expect(resolved?.filesystem.denyWrite).toEqual(['/srv/app/out/keep']);
    expect(resolved?.filesystem.denyRead).toContain('/home/ann/.ssh');
    expect(resolved?.filesystem.allowRead).toEqual(['/home/ann/.ssh/known_hosts']);
    expect(resolved?.network).toEqual({ allowedDomains: ['api.example.com', '*.cdn.example.com'], deniedDomains: [] });
  });

  it('P5: no sandbox asked: undefined; a malformed one: invalid_config naming the field', () => {
    expect(resolveSandbox({ cwd: '/a' }, '/h', '/t')).toBeUndefined();
    expect(resolveSandbox({ cwd: '/a', sandbox: false }, '/h', '/t')).toBeUndefined();
    expect(() => resolveSandbox({ cwd: '/a', sandbox: { filesystem: { allowWrite: ['../x'] } } }, '/h', '/t')).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        details: expect.objectContaining({ field: 'config.sandbox.filesystem.allowWrite[0]', reason: 'invalid_sandbox' }),
      }),
    );
  });
});

describe('P1/P5: what this machine lacks, found without starting anything', () => {
  const bin = () => {
    const dir = path.join(tmp.dir, 'bin');
    fs.mkdirSync(dir, { recursive: true });
    for (const name of ['bwrap', 'socat', 'rg']) {
      fs.writeFileSync(path.join(dir, name), '#!/bin/sh\nexit 1\n');
      fs.chmodSync(path.join(dir, name), 0o755);
    }
    return dir;
  };
  const ok = { platform: 'linux' as const, nodeVersion: '22.12.0', runtimeInstalled: () => true };

  it('P5: with everything in place nothing is missing', () => {
    expect(missingSandboxPieces({ ...ok, pathValue: bin() })).toEqual([]);
  });

  it('P5: a PATH without bwrap names bwrap and how to install it; the tools are looked up, never run', () => {
    const dir = bin();
    fs.rmSync(path.join(dir, 'bwrap'));
    const lines = sandboxMissing({ ...ok, pathValue: dir });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^bwrap: bubblewrap .* is not in PATH; install it: apt-get install bubblewrap/);
  });

  it('P5: Node before 22.12, the runtime package, and every Linux tool are named', () => {
    const pieces = missingSandboxPieces({ platform: 'linux', nodeVersion: '20.19.0', runtimeInstalled: () => false, pathValue: '' });
    expect(pieces.map((p) => p.piece)).toEqual(['node', '@anthropic-ai/sandbox-runtime', 'bwrap', 'socat', 'rg']);
    expect(pieces.map((p) => p.fix).join('\n')).toMatch(
      /Node 22\.12\.0 or later[\s\S]*npm install @anthropic-ai\/sandbox-runtime[\s\S]*apt-get install socat[\s\S]*apt-get install ripgrep/,
    );
  });

  it('P5: macOS needs no tools in PATH; Windows is unsupported', () => {
    expect(missingSandboxPieces({ platform: 'darwin', nodeVersion: '24.0.0', runtimeInstalled: () => true, pathValue: '' })).toEqual([]);
    expect(missingSandboxPieces({ platform: 'win32', nodeVersion: '24.0.0', runtimeInstalled: () => true }).map((p) => p.piece)).toEqual([
      'os',
    ]);
  });

  it('P5: the Node floor compares versions, not strings', () => {
    expect([nodeAtLeast('22.12.0'), nodeAtLeast('v24.1.0'), nodeAtLeast('22.9.1'), nodeAtLeast('20.19.5'), nodeAtLeast('23.0.0')]).toEqual([
      true,
      true,
      false,
      false,
      true,
    ]);
  });

  it('P1/P5: the static test reports the shape and what is missing here; a config without sandbox is not asked about it', () => {
    const doc = stdioDoc({ command: process.execPath, cwd: tmp.dir, sandbox: true });
    const missing = testMcpConfig(doc, {}, { platform: 'linux', nodeVersion: '20.19.0', runtimeInstalled: () => true, pathValue: '' });
    expect(missing.ok).toBe(false);
    expect(missing.problems.map((p) => p.field)).toEqual(Array(4).fill('mcpServers.server.sandbox'));
    expect(missing.problems.map((p) => p.message).join('\n')).toMatch(/Node >= 22\.12\.0[\s\S]*bubblewrap[\s\S]*socat[\s\S]*ripgrep/);
    expect(testMcpConfig(doc, {}, { ...ok, pathValue: bin() })).toMatchObject({ ok: true, problems: [] });
    const plain = stdioDoc({ command: process.execPath, cwd: tmp.dir });
    expect(testMcpConfig(plain, {}, { platform: 'win32' })).toMatchObject({ ok: true, problems: [] });
    const bad = testMcpConfig(
      stdioDoc({ command: process.execPath, cwd: tmp.dir, sandbox: { network: { allowedDomains: ['*'] } } }),
      {},
      { platform: 'win32' },
    );
    expect(bad.problems.map((p) => p.field)).toEqual(['mcpServers.server.sandbox.network.allowedDomains[0]']);
  });
});

describe('P5: VS Code configs keep their sandbox on import', () => {
  it('P5: sandboxEnabled true becomes sandbox: true, or its sandbox rules; false drops the rules with a warning', () => {
    const file = {
      servers: {
        plain: { type: 'stdio', command: 'npx', args: ['-y', 'srv'], sandboxEnabled: true },
        ruled: {
          type: 'stdio',
          command: 'npx',
          sandboxEnabled: true,
          sandbox: {
            filesystem: { allowWrite: ['${workspaceFolder}'], denyRead: ['${userHome}/.ssh'] },
            network: { allowedDomains: ['api.example.com'] },
          },
        },
        off: { type: 'stdio', command: 'npx', sandboxEnabled: false, sandbox: { network: { allowedDomains: ['x.example.com'] } } },
      },
    };
    const entries = planImport(file, { cwd: tmp.dir }).entries;
    const config = (name: string) =>
      Object.values(entries.find((e) => e.name === name)?.document?.mcpServers ?? {})[0] as unknown as Record<string, unknown>;
    expect(config('plain').sandbox).toBe(true);
    expect(config('plain')).not.toHaveProperty('sandboxEnabled');
    expect(config('ruled').sandbox).toEqual(file.servers.ruled.sandbox);
    expect(config('off')).not.toHaveProperty('sandbox');
    expect(entries.find((e) => e.name === 'off')?.warnings.join('\n')).toMatch(/sandbox: dropped: "sandboxEnabled" is false/);
    expect(entries.every((e) => e.problems.length === 0)).toBe(true);
  });

  it('P5: sandboxEnabled must be a boolean, may not contradict sandbox, and on a remote server is a problem', () => {
    const plan = (config: Record<string, unknown>) => planImport({ servers: { s: config } }, { cwd: tmp.dir }).entries[0];
    expect(plan({ command: 'npx', sandboxEnabled: 'yes' })?.problems.join('\n')).toMatch(/sandboxEnabled: must be true or false/);
    expect(plan({ command: 'npx', sandboxEnabled: true, sandbox: false })?.problems.join('\n')).toMatch(/contradicts "sandboxEnabled"/);
    const remote = plan({ type: 'http', url: 'https://example.com/mcp', sandboxEnabled: true });
    expect(remote?.document).toBeUndefined();
    expect(remote?.problems.join('\n')).toMatch(/a remote server is not a process of ours/);
  });

  it('P5: a VS Code rule we cannot take is named, never dropped silently', () => {
    const entries = planImport(
      { servers: { odd: { type: 'stdio', command: 'npx', sandboxEnabled: true, sandbox: { filesystem: { allowGit: true } } } } },
      { cwd: tmp.dir },
    ).entries;
    expect(entries[0]?.document).toBeUndefined();
    expect(entries[0]?.problems.join('\n')).toMatch(/unknown key "filesystem\.allowGit"/);
  });
});
