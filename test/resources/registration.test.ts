/** SPEC §2 registration (R1–R7) and §3 P1, through ResourceService as the tools and the CLI use it. */
import childProcess from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore, ResourceService } from '../../src/index.js';
import { failure, stdioDoc, tempDir } from '../support/index.js';
import type { McpDocument } from '../../src/index.js';

let tmp: ReturnType<typeof tempDir>;
let store: MemoryStore;
let service: ResourceService;
beforeEach(() => {
  tmp = tempDir();
  store = new MemoryStore();
  service = new ResourceService({ store });
});
afterEach(() => {
  vi.restoreAllMocks();
  tmp.cleanup();
});

const create = (data: unknown, reference = 'tools/x') => service.write({ kind: 'mcp', reference, create: true, data: data as McpDocument }); // invalid on purpose too: the run-time checks are tested

describe('R1/R2: registering stores one config, nothing else', () => {
  it('R1: registering does not run the command, install anything or enable any agent', async () => {
    const marker = path.join(tmp.dir, 'ran');
    await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { enabled: false } });
    const spawn = vi.spyOn(childProcess, 'spawn');
    await create(stdioDoc({ command: '/bin/sh', args: ['-c', `touch ${marker}`], cwd: tmp.dir }));
    expect(fs.existsSync(marker)).toBe(false);
    expect(spawn).not.toHaveBeenCalled();
    expect((await service.read({ kind: 'agent', reference: 'team/alice' })).data).toMatchObject({ enabled: false, mcps: [] });
    expect((await service.read({ kind: 'mcp', reference: 'tools/x' })).revision).toBe(1);
  });

  it('R2: data holds exactly one server', async () => {
    expect((await failure(create({ mcpServers: {} }))).message).toMatch(/exactly one server \(found 0\)/);
    const two = { mcpServers: { a: { command: 'node', cwd: '/srv' }, b: { command: 'node', cwd: '/srv' } } };
    expect((await failure(create(two))).message).toMatch(/exactly one server \(found 2\)/);
    expect((await failure(create({ servers: { a: { command: 'node' } } }))).message).toMatch(/rename "servers"/);
    expect(await store.list('mcp')).toEqual([]);
  });

  it('R2: the stored document is the normal form; unknown keys are kept and warned about', async () => {
    const { record, warnings } = await create({ mcpServers: { s: { command: 'node', cwd: '/srv', disabled: true, alwaysAllow: ['x'] } } });
    expect(record.data).toEqual({
      mcpServers: { s: { command: 'node', args: [], cwd: '/srv', env: {}, disabled: true, alwaysAllow: ['x'] } },
    });
    expect(warnings).toEqual([
      'mcpServers.s: unknown key "disabled" kept as is (it has no effect)',
      'mcpServers.s: unknown key "alwaysAllow" kept as is (it has no effect)',
    ]);
  });
});

describe('R3/R4: launch rules at write time', () => {
  it.each([['./run.sh'], ['bin/server'], ['../x/server.py']])('R3: a relative command %s is rejected with the fix', async (command) => {
    const f = await failure(create(stdioDoc({ command, cwd: '/srv/app' })));
    expect(f.code).toBe('invalid_config');
    expect(f.message).toMatch(/bare command name found in PATH .* or an absolute path/);
    expect(f.message).toContain(`"${path.resolve('/srv/app', command)}"`);
    expect(await store.list('mcp')).toEqual([]);
  });

  it('R3: a stdio config without cwd, or with a relative one, is rejected with the fix', async () => {
    expect((await failure(create(stdioDoc({ command: 'node' })))).message).toMatch(/needs an absolute "cwd"/);
    expect((await failure(create(stdioDoc({ command: 'node', cwd: 'srv/app' })))).message).toMatch(/"cwd" must be an absolute path/);
  });

  it('R3: a bare command name and an absolute command are accepted', async () => {
    await create(stdioDoc({ command: 'python3', cwd: '/srv' }), 'tools/py');
    await create(stdioDoc({ command: process.execPath, cwd: '/srv' }), 'tools/node');
    expect((await store.list('mcp')).length).toBe(2);
  });

  it("R4: ${cwd}/${workspace} and the hosts' placeholders are allowed in args and env; unsupported ones are warned about", async () => {
    const { warnings, record } = await create(
      stdioDoc({
        command: 'node',
        args: ['${cwd}/server.js', '--root=${workspace}', '${workspaceFolder}', '${config:editor.tabSize}'],
        cwd: '/srv',
        env: { DATA: '${cwd}/data', KEY: '${API_KEY:-none}' },
      }),
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /args\[3\]: placeholder \$\{config:editor.tabSize\}: this placeholder is not supported, so the server cannot start until it is replaced/,
      ),
    ]);
    expect((record.data as { mcpServers: { server: { args: string[] } } }).mcpServers.server.args[0]).toBe('${cwd}/server.js');
  });

  it('R3: no message echoes env values or args', async () => {
    const f = await failure(create(stdioDoc({ command: 'bin/x', args: ['--token=sekrit-arg'], env: { API_KEY: 'sekrit-env' } })));
    expect(JSON.stringify(f)).not.toMatch(/sekrit/);
    const bad = await failure(create(stdioDoc({ command: 'node', cwd: '/srv', env: { API_KEY: 42 } })));
    expect(bad.message).toMatch(/env values are strings/);
  });
});

describe('R6: legacy configs without an absolute cwd', () => {
  const legacy = { mcpServers: { old: { command: 'node', args: ['server.js'] } } };

  it('R6: a legacy record stays readable and modifiable; its problem is warned about, not hidden', async () => {
    await store.put({ kind: 'mcp', reference: 'tools/old', data: legacy }, { expectedRevision: null });
    expect((await service.read({ kind: 'mcp', reference: 'tools/old' })).data).toEqual(legacy);
    const { record, warnings } = await service.write({
      kind: 'mcp',
      reference: 'tools/old',
      data: { mcpServers: { old: { command: 'node', args: ['server.js', '--v'] } } } as unknown as McpDocument, // R6: saved before cwd was required
    });
    expect(record.revision).toBe(2);
    expect(warnings.join()).toMatch(/cannot start until fixed/);
    const report = await service.test({ kind: 'mcp', reference: 'tools/old' });
    expect(report.ok).toBe(false);
    expect(report.problems[0]).toMatchObject({ field: 'mcpServers.old.cwd', fix: expect.stringMatching(/absolute directory/) });
  });

  it('R6: fixing a legacy record works; a new problem on it is still rejected', async () => {
    await store.put({ kind: 'mcp', reference: 'tools/old', data: legacy }, { expectedRevision: null });
    expect((await failure(service.write({ kind: 'mcp', reference: 'tools/old', data: stdioDoc({ command: './run.sh' }) }))).code).toBe(
      'invalid_config',
    );
    await service.write({ kind: 'mcp', reference: 'tools/old', data: stdioDoc({ command: 'node', args: ['server.js'], cwd: tmp.dir }) });
    expect((await service.test({ kind: 'mcp', reference: 'tools/old' })).problems.filter((p) => p.field.endsWith('.cwd'))).toEqual([]);
  });
});

describe('R7: remote servers by url', () => {
  it('R7: url plus headers, Streamable HTTP by default, SSE on request', async () => {
    const { record } = await create({ mcpServers: { r: { url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer t' } } } });
    expect(record.data).toEqual({
      mcpServers: { r: { url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer t' }, transport: 'streamable-http' } },
    });
    const sse = await create({ mcpServers: { r: { url: 'http://127.0.0.1:9/sse', transport: 'sse' } } }, 'tools/sse');
    expect((await service.test({ kind: 'mcp', reference: 'tools/sse' })).transport).toBe('sse');
    expect(sse.record.revision).toBe(1);
  });

  it('R7: VS Code spellings (type: http | sse | stdio) are accepted', async () => {
    await create({ mcpServers: { a: { type: 'http', url: 'https://a.example.test/mcp' } } }, 'vs/http');
    await create({ mcpServers: { a: { type: 'sse', url: 'https://a.example.test/sse' } } }, 'vs/sse');
    await create({ mcpServers: { a: { type: 'stdio', command: 'node', cwd: '/srv' } } }, 'vs/stdio');
    const transports = await Promise.all(
      ['vs/http', 'vs/sse', 'vs/stdio'].map(async (reference) => (await service.test({ kind: 'mcp', reference })).transport),
    );
    expect(transports).toEqual(['streamable-http', 'sse', 'stdio']);
    expect((await failure(create({ mcpServers: { a: { type: 'sse', command: 'node', cwd: '/srv' } } }, 'vs/bad'))).code).toBe(
      'invalid_input',
    );
  });

  it.each([['not a url'], ['ftp://example.test/x'], ['file:///tmp/x']])('R7: url %s is rejected', async (url) => {
    expect((await failure(create({ mcpServers: { r: { url } } }))).code).toBe('invalid_input');
  });
});

describe('P1: resource_test is static', () => {
  it('P1: a good config passes; it never spawns a process or opens a connection', async () => {
    const spies = [
      vi.spyOn(childProcess, 'spawn'),
      vi.spyOn(childProcess, 'spawnSync'),
      vi.spyOn(childProcess, 'exec'),
      vi.spyOn(childProcess, 'execFile'),
      vi.spyOn(childProcess, 'execFileSync'),
      vi.spyOn(childProcess, 'fork'),
      vi.spyOn(net, 'connect'),
      vi.spyOn(net, 'createConnection'),
      vi.spyOn(globalThis, 'fetch'),
    ];
    await create(stdioDoc({ command: 'sh', args: ['-c', 'exit 0'], cwd: tmp.dir }), 'tools/sh');
    await create({ mcpServers: { r: { url: 'http://127.0.0.1:1/mcp' } } }, 'tools/remote');
    expect(await service.test({ kind: 'mcp', reference: 'tools/sh' })).toEqual({
      ok: true,
      transport: 'stdio',
      problems: [],
      warnings: [],
    });
    expect(await service.test({ kind: 'mcp', reference: 'tools/remote' })).toEqual({
      ok: true,
      transport: 'streamable-http',
      problems: [],
      warnings: [],
    });
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('P1: reports a missing cwd, a command not in PATH, a missing or non-executable file, each with a fix', async () => {
    const script = path.join(tmp.dir, 'server.sh');
    fs.writeFileSync(script, '#!/bin/sh\n', { mode: 0o644 });
    await create(stdioDoc({ command: 'node', cwd: path.join(tmp.dir, 'nope') }), 'p/cwd');
    await create(stdioDoc({ command: 'agt-no-such-command-xyz', cwd: tmp.dir }), 'p/path');
    await create(stdioDoc({ command: path.join(tmp.dir, 'missing'), cwd: tmp.dir }), 'p/missing');
    await create(stdioDoc({ command: script, cwd: tmp.dir }), 'p/noexec');
    await create(stdioDoc({ command: 'node', cwd: script }), 'p/notdir');
    const messages = async (reference: string) =>
      (await service.test({ kind: 'mcp', reference })).problems.map((p) => `${p.message} | ${p.fix}`);
    expect(await messages('p/cwd')).toEqual([expect.stringMatching(/"cwd" directory does not exist \| create it/)]);
    expect(await messages('p/path')).toEqual([expect.stringMatching(/was not found in PATH \| install it/)]);
    expect(await messages('p/missing')).toEqual([expect.stringMatching(/file does not exist/)]);
    expect(await messages('p/noexec')).toEqual([expect.stringMatching(/not an executable file \| make it executable/)]);
    expect(await messages('p/notdir')).toEqual([expect.stringMatching(/"cwd" is not a directory/)]);
  });

  it('P1: PATH lookup uses the PATH the server will get (config env first)', async () => {
    const bin = path.join(tmp.dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'my-server'), '#!/bin/sh\n', { mode: 0o755 });
    await create(stdioDoc({ command: 'my-server', cwd: tmp.dir, env: { PATH: bin } }), 'p/env');
    expect((await service.test({ kind: 'mcp', reference: 'p/env' })).ok).toBe(true);
  });

  it('P1: only mcp resources are tested', async () => {
    expect((await failure(service.test({ kind: 'agent' as 'mcp', reference: 'a/b' }))).code).toBe('invalid_input');
    expect((await failure(service.test({ kind: 'mcp', reference: 'a/none' }))).code).toBe('not_found');
  });
});
