/**
 * The sandbox on the command line (P5): `agt mcp add … --sandbox [--allow-write P]… [--allow-domain D]…` writes
 * `sandbox`, `agt mcp update` changes it, a malformed one is refused at write time, `agt mcp test` names what this
 * machine lacks, and `agt mcp probe REF --sandbox` probes sandboxed once and writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PYTHON_SERVER, runAgt, tempDir } from '../../support/index.js';
import { missingSandboxPieces } from '../../../src/config/sandbox-machine.js';

const home = tempDir('agt-sandbox-cli-');
afterAll(() => home.cleanup());
let n = 0;
const fresh = () => {
  const db = path.join(home.dir, `s-${n++}.db`);
  return { db, agt: (...args: string[]) => runAgt(args, { home: home.dir, db }) };
};
const stored = async (agt: ReturnType<typeof fresh>['agt'], ref: string) => {
  const shown = await agt('mcp', 'show', ref, '--json');
  expect(shown.code).toBe(0);
  const record = JSON.parse(shown.stdout) as { revision: number; data: { mcpServers: Record<string, Record<string, unknown>> } };
  return { revision: record.revision, config: Object.values(record.data.mcpServers)[0] as Record<string, unknown> };
};

describe('P5: agt mcp add/update with a sandbox', () => {
  it('P5: --sandbox alone writes sandbox: true', async () => {
    const { agt } = fresh();
    const added = await agt('mcp', 'add', 'tools/box', '--cwd', home.dir, '--sandbox', '--', 'python3', PYTHON_SERVER);
    expect(added.code).toBe(0);
    expect((await stored(agt, 'tools/box')).config).toMatchObject({ command: 'python3', sandbox: true });
  });

  it('P5: --allow-write and --allow-domain write the rules (paths against the current folder, ~/ kept)', async () => {
    const { agt } = fresh();
    const added = await agt(
      'mcp',
      'add',
      'tools/box',
      '--cwd',
      home.dir,
      '--sandbox',
      '--allow-write',
      'out',
      '--allow-write',
      '~/.cache/box',
      '--allow-domain',
      'api.example.com',
      '--allow-domain',
      '*.cdn.example.com',
      '--',
      'python3',
      PYTHON_SERVER,
    );
    expect(added.code).toBe(0);
    expect((await stored(agt, 'tools/box')).config.sandbox).toEqual({
      filesystem: { allowWrite: [path.join(home.dir, 'out'), '~/.cache/box'] },
      network: { allowedDomains: ['api.example.com', '*.cdn.example.com'] },
    });
  });

  it('P5: --allow-domain implies --sandbox; update adds a sandbox to a stored server and keeps it on a new command', async () => {
    const { agt } = fresh();
    expect((await agt('mcp', 'add', 'tools/box', '--cwd', home.dir, '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    expect((await stored(agt, 'tools/box')).config).not.toHaveProperty('sandbox');
    expect((await agt('mcp', 'update', 'tools/box', '--allow-domain', 'api.example.com')).code).toBe(0);
    expect((await stored(agt, 'tools/box')).config.sandbox).toEqual({ network: { allowedDomains: ['api.example.com'] } });
    expect((await agt('mcp', 'update', 'tools/box', '--', 'python3', PYTHON_SERVER, '--name', 'x')).code).toBe(0);
    expect((await stored(agt, 'tools/box')).config.sandbox).toEqual({ network: { allowedDomains: ['api.example.com'] } });
  });

  it('P5: a bad domain is refused at write time naming the field (exit 2); nothing is stored', async () => {
    const { agt } = fresh();
    const added = await agt(
      'mcp',
      'add',
      'tools/box',
      '--cwd',
      home.dir,
      '--allow-domain',
      'https://x.example.com/',
      '--',
      'python3',
      PYTHON_SERVER,
    );
    expect(added.code).toBe(2);
    expect(added.stderr).toMatch(
      /mcpServers\.box\.sandbox\.network\.allowedDomains\[0\]: "https:\/\/x\.example\.com\/" is not a host name/,
    );
    expect((await agt('mcp', 'show', 'tools/box')).code).toBe(3);
  });

  it('P5: the sandbox flags apply to stdio servers only', async () => {
    const { agt } = fresh();
    const added = await agt('mcp', 'add', 'tools/remote', '--url', 'https://example.com/mcp', '--sandbox');
    expect(added.code).toBe(2);
    expect(added.stderr).toMatch(/--sandbox applies to stdio servers only/);
  });

  it('P1/P5: agt mcp test names what this machine lacks to sandbox it, or nothing when it has it all', async () => {
    const { agt } = fresh();
    expect((await agt('mcp', 'add', 'tools/box', '--cwd', home.dir, '--sandbox', '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    const tested = await agt('mcp', 'test', 'tools/box', '--json');
    const report = JSON.parse(tested.stdout) as { ok: boolean; problems: { field: string; message: string }[] };
    const missing = missingSandboxPieces();
    expect(report.problems.map((p) => p.field)).toEqual(missing.map(() => 'mcpServers.box.sandbox'));
    expect(report.problems.map((p) => p.message)).toEqual(missing.map((p) => `this machine cannot sandbox the server: ${p.message}`));
    expect(tested.code).toBe(missing.length === 0 ? 0 : 1);
  });
});

describe('P5: agt mcp probe --sandbox', () => {
  it('P5: probes the stored config with sandbox: true for this probe only; the stored config and its notes are untouched', async () => {
    const { agt, db } = fresh();
    expect((await agt('mcp', 'add', 'tools/box', '--cwd', home.dir, '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    const probed = await agt('mcp', 'probe', 'tools/box', '--sandbox');
    const missing = missingSandboxPieces();
    if (missing.some((p) => p.piece === 'node')) {
      // Node before 22.12: refused before anything starts, never probed unsandboxed.
      expect(probed.code).toBe(2);
      expect(probed.stderr).toMatch(/Node >= 22\.12/);
    } else if (missing.length > 0) {
      expect(probed.code).toBe(4);
      expect(probed.stderr).toMatch(/sandbox/);
    } else {
      expect(probed.code).toBe(0);
      expect(probed.stdout).toMatch(/^ok: /m);
    }
    const after = await stored(agt, 'tools/box');
    expect(after.revision).toBe(1);
    expect(after.config).not.toHaveProperty('sandbox');
    expect(fs.existsSync(`${db}.probes.json`)).toBe(false);
  });

  it('P5: --sandbox on a remote server is refused: it is not a process of ours', async () => {
    const { agt } = fresh();
    expect((await agt('mcp', 'add', 'tools/remote', '--url', 'https://example.com/mcp')).code).toBe(0);
    const probed = await agt('mcp', 'probe', 'tools/remote', '--sandbox');
    expect(probed.code).toBe(2);
    expect(probed.stderr).toMatch(/--sandbox applies to stdio servers only/);
  });
});
