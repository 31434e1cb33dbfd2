/**
 * `agt mcp call` and the result budget (B8, issue 63): a large result is
 * printed cut as a run gives it to the model, with a notice on stderr;
 * `--full` prints the whole, `--budget TOKENS` moves the cut. Against the
 * Python fixture server's `results` tools.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PYTHON_SERVER, REPO_ROOT, runAgt, tempDir } from '../../support/index.js';

let tmp: ReturnType<typeof tempDir>;
let db: string;
let calls: string;
beforeEach(() => {
  tmp = tempDir('agt-budget-');
  db = path.join(tmp.dir, 'agt.db');
  calls = path.join(tmp.dir, 'calls.log');
});
afterEach(() => tmp.cleanup());

const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
const sent = () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean) : []);

async function addFixture(...features: string[]): Promise<void> {
  const extra = features.flatMap((f) => ['--feature', f]);
  const added = await agt('mcp', 'add', 'fx', '--cwd', REPO_ROOT, '--', 'python3', PYTHON_SERVER, '--log', calls, ...extra);
  expect(added.code).toBe(0);
}

// The fixture's `lines` {n, width}: line i is "line 00000i " padded with a letter to width - 1, then a line break.
const lineOf = (i: number, width = 100) => `line ${String(i).padStart(6, '0')} `.padEnd(width - 1, 'abcdefghij'[i % 10]);
const LINES = ['--args', '{"n": 3000, "width": 100}'];

describe('agt mcp call: the result budget (B8)', () => {
  it('B8: a result over the default budget (25,000 tokens) is printed cut to ~100,000 characters, the notice on stderr', async () => {
    await addFixture('results');
    const cut = await agt('mcp', 'call', 'fx', 'lines', ...LINES);
    expect(cut.code).toBe(0);
    // The page ends at a line break: the first 1,000 lines of 100 characters, exactly the budget's 100,000.
    expect(cut.stdout).toBe(`${Array.from({ length: 1000 }, (_, i) => lineOf(i)).join('\n')}\n\n`);
    expect(cut.stdout).not.toContain(lineOf(1000));
    expect(cut.stderr).toContain(
      '[cut at the result budget of 25000 tokens: showing 100000 of 300000 characters; --full prints the whole, --budget N sets the tokens]',
    );
  });

  it('B8: --full prints the whole result: all 3,000 lines, the last one included, and no notice', async () => {
    await addFixture('results');
    const full = await agt('mcp', 'call', 'fx', 'lines', ...LINES, '--full');
    expect(full.code).toBe(0);
    expect(full.stdout.length).toBe(300_000 + 1);
    expect(full.stdout).toContain(`${lineOf(2999)}\n`);
    expect(full.stdout.split('\n').filter((l) => l.startsWith('line '))).toHaveLength(3000);
    expect(full.stderr).not.toContain('[cut at');
  });

  it('B8: --budget 100 cuts at 400 characters (4 lines); a result within the budget is printed whole, no notice', async () => {
    await addFixture('results');
    const small = await agt('mcp', 'call', 'fx', 'lines', ...LINES, '--budget', '100');
    expect(small.code).toBe(0);
    expect(small.stdout).toBe(`${[0, 1, 2, 3].map((i) => lineOf(i)).join('\n')}\n\n`);
    expect(small.stderr).toContain('showing 400 of 300000 characters');
    const within = await agt('mcp', 'call', 'fx', 'lines', '--args', '{"n": 4, "width": 100}', '--budget', '100');
    expect(within.stdout).toContain(lineOf(3));
    expect(within.stderr).not.toContain('[cut at');
  });

  it('B8: --budget that is not a whole number of tokens from 1 is a usage error naming the flag (exit 2), nothing called', async () => {
    await addFixture('results');
    for (const bad of ['abc', '0', '1e20', '-5', '2.5', '99999999999']) {
      const refused = await agt('mcp', 'call', 'fx', 'lines', ...LINES, '--budget', bad);
      expect(refused.code, bad).toBe(2);
      expect(refused.stderr, bad).toContain('--budget');
      expect(refused.stdout, bad).not.toContain('line 000000');
    }
    const both = await agt('mcp', 'call', 'fx', 'lines', ...LINES, '--budget', '10', '--full');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--full');
    expect(sent()).toEqual([]); // refused before the server was started
  });

  it('B8: --json prints the cut result with cut {keptChars, totalChars}; with --full the whole and no cut', async () => {
    await addFixture('results');
    const cut = JSON.parse((await agt('mcp', 'call', 'fx', 'lines', ...LINES, '--json')).stdout);
    expect(cut.result.status).toBe('ok');
    expect(cut.result.cut).toEqual({ keptChars: 100_000, totalChars: 300_000 });
    expect(cut.result.content).toEqual([{ type: 'text', text: `${Array.from({ length: 1000 }, (_, i) => `${lineOf(i)}\n`).join('')}` }]);
    const full = JSON.parse((await agt('mcp', 'call', 'fx', 'lines', ...LINES, '--json', '--full')).stdout);
    expect(full.result.cut).toBeUndefined();
    expect(full.result.content[0].text).toHaveLength(300_000);
  });

  it('B8: a structuredContent over the budget is left out of a cut result, and the notice says so', async () => {
    await addFixture('results');
    const rows = await agt('mcp', 'call', 'fx', 'rows', '--args', '{"n": 200, "note": 100}', '--budget', '100');
    expect(rows.code).toBe(0);
    expect(rows.stdout).not.toContain('structuredContent (');
    expect(rows.stderr).toMatch(/showing 400 of \d+ characters and not its structuredContent;/);
  });

  it('B8: a tool error over the budget is printed cut too, and still exits 1', async () => {
    await addFixture('big');
    const error = await agt('mcp', 'call', 'fx', 'big_error', '--arg', 'bytes=5000', '--budget', '10');
    expect(error.code).toBe(1);
    // The error's message is the runtime's (the text's first 2,000 characters, as in a run); its content is cut.
    const [message, ...content] = error.stdout.split('\n');
    expect(message).toBe(`tool error: tool_error: ${'e'.repeat(2000)}`);
    expect(content).toEqual(['e'.repeat(40), '']);
    expect(error.stderr).toContain('showing 40 of 5000 characters');
  });

  it('B8: control characters a server sends in a cut result stay escaped (S8: no terminal sequence reaches the terminal)', async () => {
    await addFixture('results');
    const message = `\u001b]0;pwned\u0007\u202e${'y'.repeat(60)}`;
    const cut = await agt('mcp', 'call', 'fx', 'echo', '--args', JSON.stringify({ message }), '--budget', '3');
    expect(cut.code).toBe(0);
    expect(cut.stdout).toBe('\\x1b]0;pwned\\x07\\u202ey\n'); // 12 characters: the 11 of the escape sequences, one y
    expect(cut.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(cut.stderr).toContain('showing 12 of 71 characters');
  });
});
