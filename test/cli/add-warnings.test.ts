/**
 * What `agt mcp add` and `update` say on stderr about a registration that will
 * not work as typed, while still saving it with exit 0 (R1: registering
 * starts nothing): a command that is not on PATH or not a file, and agt's own
 * flags written after `--`, where they belong to the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PYTHON_SERVER, runAgt, tempDir } from '../support/index.js';

const home = tempDir('agt-add-warnings-');
afterAll(() => home.cleanup());
let n = 0;
const fresh = () => {
  const db = path.join(home.dir, `w-${n++}.db`);
  return (...args: string[]) => runAgt(args, { home: home.dir, db });
};
const stored = async (agt: ReturnType<typeof fresh>, ref: string) => {
  const shown = await agt('mcp', 'show', ref, '--json');
  expect(shown.code).toBe(0);
  return Object.values(JSON.parse(shown.stdout).data.mcpServers)[0] as Record<string, unknown>;
};

describe('agt mcp add: a command that cannot be found', () => {
  it('R1: a bare command not on PATH is registered (exit 0) with a warning on stderr naming it and the fixes', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/x', '--', 'no-such-server-zq', '--flag');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^registered tools\/x \(revision 1\)$/m);
    expect(added.stderr).toBe(
      'agt: warning: tools/x: "no-such-server-zq" was not found in PATH; registered anyway (registering starts nothing): install it, or give the absolute path of the program; `agt mcp test tools/x` checks again\n',
    );
    expect(await stored(agt, 'tools/x')).toMatchObject({ command: 'no-such-server-zq', args: ['--flag'] });
  });

  it('R1: an absolute command that does not exist, or is not executable, is registered with a warning naming the file', async () => {
    const agt = fresh();
    const missing = path.join(home.dir, 'missing-bin');
    const added = await agt('mcp', 'add', 'tools/m', '--json', '--', missing);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout).record.reference).toBe('tools/m'); // --json output unchanged; the warning is on stderr
    expect(added.stderr).toContain(`agt: warning: tools/m: ${missing}: the "command" file does not exist; registered anyway`);
    const plain = path.join(home.dir, 'plain.txt');
    fs.writeFileSync(plain, 'not a program', { mode: 0o644 });
    const noexec = await agt('mcp', 'add', 'tools/n', '--command', plain);
    expect(noexec.code).toBe(0);
    expect(noexec.stderr).toMatch(/tools\/n: .*plain\.txt: the "command" file is not an executable file; registered anyway/);
    expect(await stored(agt, 'tools/n')).toMatchObject({ command: plain });
  });

  it('R1: a command on PATH, and a command with a placeholder, register without a warning', async () => {
    const agt = fresh();
    const found = await agt('mcp', 'add', 'tools/ok', '--', 'python3', PYTHON_SERVER);
    expect(found).toMatchObject({ code: 0, stderr: '' });
    const placeholder = await agt('mcp', 'add', 'tools/p', '--', '${HOME}/bin/server-zq');
    expect(placeholder).toMatchObject({ code: 0, stderr: '' });
    expect(await stored(agt, 'tools/p')).toMatchObject({ command: '${HOME}/bin/server-zq' });
  });

  it('R1: update warns when it sets a command not on PATH, not when it changes another field', async () => {
    const agt = fresh();
    expect((await agt('mcp', 'add', 'tools/u', '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    const moved = await agt('mcp', 'update', 'tools/u', '--', 'no-such-server-zq');
    expect(moved.code).toBe(0);
    expect(moved.stderr).toMatch(/^agt: warning: tools\/u: "no-such-server-zq" was not found in PATH; registered anyway/);
    expect(await stored(agt, 'tools/u')).toMatchObject({ command: 'no-such-server-zq' });
    const env = await agt('mcp', 'update', 'tools/u', '--env', 'K=v');
    expect(env).toMatchObject({ code: 0, stderr: '' });
  });

  it('R1: the command name in the warning is outside text: control characters are escaped', async () => {
    const agt = fresh();
    const added = await agt('mcp', 'add', 'tools/e', '--', 'evil\x1b[2Jname');
    expect(added.code).toBe(0);
    expect(added.stderr).toContain('"evil\\x1b[2Jname" was not found in PATH');
    expect(added.stderr).not.toContain('\x1b');
  });
});

describe('agt mcp add: agt flags after --', () => {
  it('R2: --store after -- goes to the server; agt warns, registers in its own store, exits 0', async () => {
    const agt = fresh();
    const other = path.join(home.dir, 'other.db');
    const added = await agt('mcp', 'add', 'tools/s', '--', 'python3', PYTHON_SERVER, '--store', other, '--json');
    expect(added.code).toBe(0);
    expect(added.stderr).toBe(
      "agt: warning: --store, --json after -- went to the server as its arguments, not to agt; agt's own flags go before --: agt mcp add <category/name> --store PATH --json -- COMMAND ARGS…\n",
    );
    expect(added.stderr).not.toContain(other); // no values of the server's arguments
    expect(await stored(agt, 'tools/s')).toMatchObject({ args: [PYTHON_SERVER, '--store', other, '--json'] });
    expect(fs.existsSync(other)).toBe(false);
  });

  it('R2: update says the same, with the verb as typed; --store=PATH counts too', async () => {
    const agt = fresh();
    expect((await agt('mcp', 'add', 'tools/v', '--', 'python3', PYTHON_SERVER)).code).toBe(0);
    const updated = await agt('mcp', 'update', 'tools/v', '--', 'python3', PYTHON_SERVER, '--store=x.db');
    expect(updated.code).toBe(0);
    expect(updated.stderr).toContain(
      "agt: warning: --store after -- went to the server as its argument, not to agt; agt's own flags go before --: agt mcp update <category/name> --store PATH -- COMMAND ARGS…",
    );
    expect(await stored(agt, 'tools/v')).toMatchObject({ args: [PYTHON_SERVER, '--store=x.db'] });
  });
});
