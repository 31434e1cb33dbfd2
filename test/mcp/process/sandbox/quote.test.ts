/** P5: the line the sandbox runtime wraps runs the server's command and arguments exactly — no argument is shell syntax. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execLine, shellWord } from '../../../../src/mcp/process/sandbox/quote.js';
import { tempDir } from '../../../support/index.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('agt-sbx-quote-');
});
afterEach(() => tmp.cleanup());

describe('P5: quoting the wrapped command line', () => {
  it('P5: quotes, `; touch`, $(…), backticks, newlines and globs reach the program as the same words', () => {
    const pwned = path.join(tmp.dir, 'pwned');
    const words = [`a'; touch ${pwned}; echo '`, `"$(touch ${pwned})"`, `\`touch ${pwned}\``, 'two\nlines', '*', '$HOME', '', "''"];
    const line = execLine('/usr/bin/printf', ['%s\\0', ...words], '/usr/bin:/bin');
    const out = spawnSync('/bin/bash', ['-c', line], { encoding: 'utf8' });
    expect(out.status).toBe(0);
    expect(out.stdout.split('\0').slice(0, -1)).toEqual(words);
    expect(fs.existsSync(pwned)).toBe(false);
  });

  it("P5: the server gets its own PATH back (the wrapper runs on the host's)", () => {
    const out = spawnSync('/bin/bash', ['-c', execLine('/usr/bin/env', [], '/only/this')], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(out.stdout).toContain('PATH=/only/this\n');
    const none = spawnSync('/bin/bash', ['-c', execLine('/usr/bin/env', [], undefined)], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(none.stdout).not.toContain('PATH=/usr/bin:/bin');
  });

  it('P5: exported variables are quoted like words; a name that is not a shell name is left out', () => {
    const line = execLine('/usr/bin/env', [], '/usr/bin:/bin', { TMPDIR: "/tmp/a b'c; touch x", 'BAD NAME': 'v' });
    const out = spawnSync('/bin/bash', ['-c', line], { encoding: 'utf8', env: {} });
    expect(out.stdout).toContain("TMPDIR=/tmp/a b'c; touch x\n");
    expect(out.stdout).not.toContain('BAD');
  });

  it('P5: a NUL byte cannot pass through a command line: refused, not cut', () => {
    expect(() => shellWord('a\0b')).toThrow(/NUL/);
  });
});
