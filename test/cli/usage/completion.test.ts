/** `agt completion bash|zsh|fish`: scripts generated from the usage texts, completing verbs, flags and stored references. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, PYTHON_SERVER, REPO_ROOT, runAgt, tempDir } from '../../support/index.js';

const tmp = tempDir('agt-completion-');
const db = path.join(tmp.dir, 'agt.db');
const shim = path.join(tmp.dir, 'bin');
afterAll(() => tmp.cleanup());
beforeAll(async () => {
  // `agt` on PATH, as an installed bin would be, on this test's store.
  fs.mkdirSync(shim);
  fs.writeFileSync(path.join(shim, 'agt'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@" --store "${db}"\n`, { mode: 0o755 });
  await runAgt(['mcp', 'add', 'tools/py', '--cwd', REPO_ROOT, '--', 'python3', PYTHON_SERVER], { home: tmp.dir, db });
  await runAgt(['mcp', 'add', 'tools/other', '--cwd', REPO_ROOT, '--', 'python3', PYTHON_SERVER], { home: tmp.dir, db });
});

const has = (shell: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${shell}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const env = () => ({ ...process.env, PATH: `${shim}${path.delimiter}${process.env.PATH ?? ''}`, HOME: tmp.dir });
const script = (shell: string) => execFileSync(process.execPath, [BIN, 'completion', shell], { encoding: 'utf8' });

describe('agt completion', () => {
  it('bash: verbs, the flags of a verb, and stored references', () => {
    const file = path.join(tmp.dir, 'agt.bash');
    fs.writeFileSync(file, script('bash'));
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source "${file}"; COMP_WORDS=(${words.map((w) => `"${w}"`).join(' ')}); COMP_CWORD=${words.length - 1}; _agt; echo "\${COMPREPLY[@]}"`,
        ],
        {
          encoding: 'utf8',
          env: env(),
        },
      ).trim();
    expect(complete(['agt', 'mcp', 'ca']).split(' ')).toEqual(['call']);
    expect(complete(['agt', 'mcp', 'lo']).split(' ')).toEqual(['login', 'logout']);
    expect(complete(['agt', 'mcp', 'call', '--ar']).split(' ')).toEqual(['--arg', '--args', '--args-file']);
    expect(complete(['agt', 'mcp', 'list', '--p']).split(' ')).toEqual(['--probe']);
    expect(complete(['agt', 'mcp', 'call', 'tools/']).split(' ').sort()).toEqual(['tools/other', 'tools/py']);
    expect(complete(['agt', 'mcp', 'add', 'tools/'])).toBe(''); // a new reference: nothing to offer
    expect(complete(['agt', 'comp']).split(' ')).toEqual(['completion']);
  });

  it.skipIf(!has('zsh'))(`zsh: the script loads and registers agt${has('zsh') ? '' : ' (skipped: zsh is not installed here)'}`, () => {
    const file = path.join(tmp.dir, '_agt');
    fs.writeFileSync(file, script('zsh'));
    execFileSync('zsh', ['-n', file]);
    expect(execFileSync('zsh', ['-c', `source "${file}"; echo "\${_comps[agt]}"`], { encoding: 'utf8', env: env() })).toMatch(/-F _agt/);
  });

  it.skipIf(!has('fish'))(`fish: verbs, flags and stored references${has('fish') ? '' : ' (skipped: fish is not installed here)'}`, () => {
    const file = path.join(tmp.dir, 'agt.fish');
    fs.writeFileSync(file, script('fish'));
    const complete = (line: string) =>
      execFileSync('fish', ['-c', `source "${file}"; complete -C "${line}"`], { encoding: 'utf8', env: env() })
        .trim()
        .split('\n');
    expect(complete('agt mcp ca')).toEqual(['call']);
    expect(complete('agt mcp call --args')).toEqual(['--args', '--args-file']);
    expect(complete('agt mcp call tools/').sort()).toEqual(['tools/other', 'tools/py']);
  });

  it('an unknown shell is a usage error naming the three', async () => {
    const out = await runAgt(['completion', 'powershell'], { home: tmp.dir, db });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/usage: agt completion bash\|zsh\|fish/);
  });
});
