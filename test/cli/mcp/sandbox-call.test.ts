/**
 * P5 on the command line, on real processes: `agt mcp call` of a sandboxed server shows the tool's own error
 * and, after it, the sandbox runtime's note of what it denied (escaped like any server text). Needs Node >= 22.12
 * and bubblewrap, socat and ripgrep; elsewhere it says why it skips (test/mcp/process/sandbox/refusal.test.ts
 * proves the refusal there).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxMissing } from '../../../src/config/sandbox.js';
import { PYTHON_SERVER, runAgt, tempDir } from '../../support/index.js';

const missing = sandboxMissing();
const why = missing.length === 0 ? '' : ` (skipped: this machine lacks ${missing.map((m) => m.split(';')[0]).join(', ')})`;

describe.skipIf(missing.length > 0)(`P5: agt mcp call of a sandboxed server${why}`, () => {
  let home: ReturnType<typeof tempDir>;
  beforeAll(() => {
    home = tempDir('agt-sandbox-call-');
  });
  afterAll(() => home.cleanup());

  it("P5: a denied connection is the tool's error, and the runtime's note of it follows as server stderr", async () => {
    const agt = (...args: string[]) => runAgt(args, { home: home.dir, db: path.join(home.dir, 'call.db') });
    const added = await agt(
      'mcp',
      'add',
      'tools/box',
      '--cwd',
      home.dir,
      '--sandbox',
      '--',
      'python3',
      PYTHON_SERVER,
      '--feature',
      'sandbox-probe',
    );
    expect(added.code).toBe(0);
    const called = await agt('mcp', 'call', 'tools/box', 'fetch', '--arg', 'url=http://blocked.example.com/');
    expect(called.code).toBe(1);
    expect(called.stdout + called.stderr).toContain('403');
    expect(called.stderr).toMatch(/server stderr[\s\S]*deny network-outbound blocked\.example\.com/);
  });
});
