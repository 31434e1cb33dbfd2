/**
 * The tool developer's loop: `agt mcp call`, `read`, `prompt`,
 * `resources`, `prompts`, `ping`, `check` and `list --probe`, run as the real
 * bin against the Python fixture and reference servers from npm.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PYTHON_SERVER, referenceServer, REPO_ROOT, runAgt, tempDir } from '../../support/index.js';

let tmp: ReturnType<typeof tempDir>;
let db: string;
let calls: string;
beforeEach(() => {
  tmp = tempDir('agt-dev-');
  db = path.join(tmp.dir, 'agt.db');
  calls = path.join(tmp.dir, 'calls.log');
});
afterEach(() => tmp.cleanup());

const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
const sent = () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean) : []);

async function addFixture(ref = 'fx', ...features: string[]): Promise<void> {
  const extra = features.flatMap((f) => ['--feature', f]);
  const added = await agt('mcp', 'add', ref, '--cwd', REPO_ROOT, '--', 'python3', PYTHON_SERVER, '--log', calls, ...extra);
  expect(added.code).toBe(0);
}

describe('agt mcp call', () => {
  it('B4: invalid arguments never reach the server: issues with paths, exit 2; a valid call is sent once', async () => {
    await addFixture();
    const invalid = await agt('mcp', 'call', 'fx', 'add', '--arg', 'a=two', '--arg', 'b=3');
    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toMatch(/^invalid arguments \(nothing was sent to the server\):\n {2}\/a: /);
    expect(invalid.stdout).not.toContain('two'); // S8: the value is not echoed
    expect(sent()).toEqual([]);
    const valid = await agt('mcp', 'call', 'fx', 'add', '--arg', 'a=2', '--arg', 'b=3');
    expect(valid).toMatchObject({ code: 0, stdout: expect.stringMatching(/^5\n/) });
    expect(sent()).toHaveLength(1);
  });

  it('B4: --arg values are JSON when they parse (n=3 a number, s="3" a string); --arg goes on top of --args', async () => {
    await addFixture();
    expect((await agt('mcp', 'call', 'fx', 'echo', '--arg', 'message=3')).code).toBe(2); // 3 is a number: echo wants a string
    const text = await agt('mcp', 'call', 'fx', 'echo', '--arg', 'message="3"');
    expect(text).toMatchObject({ code: 0, stdout: '3\n' });
    const merged = await agt('mcp', 'call', 'fx', 'add', '--args', '{"a": 1, "b": 1}', '--arg', 'b=41', '--json');
    expect(JSON.parse(merged.stdout)).toMatchObject({
      tool: 'add',
      called: true,
      result: { status: 'ok', structuredContent: { sum: 42 } },
    });
    fs.writeFileSync(path.join(tmp.dir, 'args.json'), '{"a": 20, "b": 22}');
    expect((await agt('mcp', 'call', 'fx', 'add', '--args-file', 'args.json')).stdout).toMatch(/^42\n/);
  });

  it('C4: a business refusal is a tool error (exit 1); a structured result is checked against its outputSchema', async () => {
    await addFixture('fx', 'output');
    const divided = await agt('mcp', 'call', 'fx', 'divide', '--arg', 'a=7', '--arg', 'b=2');
    expect(divided.code).toBe(0);
    expect(divided.stdout).toMatch(/structuredContent \(matches its outputSchema\):\n {2}\{\n {4}"quotient": 3/);
    const bad = await agt('mcp', 'call', 'fx', 'bad_output');
    expect(bad).toMatchObject({ code: 1, stdout: expect.stringMatching(/^failed: output_invalid: .* at "\/quotient"/) });
    const refused = await agt('mcp', 'call', 'fx', 'withdraw', '--arg', 'amount=1000000');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^tool error: /);
  });

  it('B6: an unknown tool is refused before anything is sent, naming the closest tools; bad --args says where', async () => {
    await addFixture();
    const unknown = await agt('mcp', 'call', 'fx', 'ad');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/agt: not_found: default\/fx has no usable tool "ad"; closest: add, /);
    const notJson = await agt('mcp', 'call', 'fx', 'add', '--args', '{"a": 1,');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--args is not valid JSON \((at character \d+|it ends too early)\)/);
    expect((await agt('mcp', 'call', 'fx', 'add', '--args', '[1]')).stderr).toMatch(/must be a JSON object/);
    expect(sent()).toEqual([]);
  });
});

describe('agt mcp read, prompt, resources, prompts, ping', () => {
  it('P2: resources, prompts and ping over the same connection code as a run', async () => {
    await addFixture('fx', 'resources', 'prompts');
    expect((await agt('mcp', 'resources', 'fx')).stdout).toMatch(/^3 resource\(s\):\n {2}fixture:\/\/r\/0 {2}r0 \(text\/plain\)/);
    expect((await agt('mcp', 'read', 'fx', 'fixture://r/1')).stdout).toBe('content of fixture://r/1\n');
    expect((await agt('mcp', 'read', 'fx', 'fixture://nope')).code).toBe(3);
    expect((await agt('mcp', 'prompts', 'fx')).stdout).toMatch(/greet\(who\) {2}Greets someone\./);
    expect((await agt('mcp', 'prompt', 'fx', 'greet', '--arg', 'who=3')).stdout).toMatch(/\[user\]\n {2}Say hello to 3\./);
    const ping = await agt('mcp', 'ping', 'fx', '--count', '3', '--json');
    const measured = JSON.parse(ping.stdout) as { pings: number[]; medianMs: number };
    expect(measured.pings).toHaveLength(3);
    expect(measured.pings).toContain(measured.medianMs);
  });
});

describe('agt mcp check', () => {
  it('C3: a server that validates its arguments passes; write tools are skipped unless --all', async () => {
    const root = fs.mkdtempSync(path.join(tmp.dir, 'root-'));
    fs.writeFileSync(path.join(root, 'a.txt'), 'hello');
    await agt('mcp', 'add', 'fs', '--cwd', tmp.dir, '--', process.execPath, referenceServer('filesystem'), root);
    const checked = await agt('mcp', 'check', 'fs');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/^read_text_file +2025 +\d+ +\d+ +0$/m);
    expect(checked.stdout).toMatch(/^write_file +2025 +- +- +skipped: not annotated readOnlyHint: true \(--all calls it\)$/m);
    // The reference server speaks only the 2025 era: the other is said, not failed.
    expect(checked.stdout).toMatch(/^2026-07-28: not checked: the server does not speak MCP 2026-07-28; it offers the 2025 era$/m);
    expect(checked.stdout).toMatch(/no failures/);
    expect(fs.readdirSync(root)).toEqual(['a.txt']); // nothing was written
  });

  it('C3: a server that accepts invalid arguments or crashes fails; --dry-run calls nothing', async () => {
    await addFixture('fx', 'output');
    const dry = await agt('mcp', 'check', 'fx', '--dry-run', '--all', '--tool', 'divide');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(
      /^dry run: nothing was called \(planned on MCP 2025-11-25\)\ndivide: \d+ case\(s\)\n {2}valid {3}generated valid arguments/,
    );
    expect(sent()).toEqual([]);
    const unknown = await agt('mcp', 'check', 'fx', '--dry-run', '--tool', 'nope');
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('agt: default/fx lists no tool "nope"') });
    const report = JSON.parse(
      (await agt('mcp', 'check', 'fx', '--all', '--tool', 'echo', '--tool', 'divide', '--tool', 'add', '--json')).stdout,
    );
    const byTool = Object.fromEntries(report.tools.map((t: { tool: string }) => [t.tool, t]));
    expect(byTool.echo.results.filter((r: { reason?: string }) => r.reason === 'accepted invalid arguments').length).toBeGreaterThan(0);
    // The fixture's divide dies on a missing field: the rest of its cases are not run, and the next tool gets a new server.
    expect(byTool.divide.results.some((r: { outcome: string }) => r.outcome === 'crashed')).toBe(true);
    expect(byTool.divide.pingAfter).toBe(false);
    expect(
      byTool.add.results.filter((r: { case: { expect: string }; passed: boolean }) => r.case.expect === 'answer' && r.passed).length,
    ).toBeGreaterThan(0);
    expect(report.ok).toBe(false);
  });
});

describe('agt mcp list --probe', () => {
  it('P2: every server probed in parallel: ✓ connected, ✗ failed with its code, ⊘ disabled', async () => {
    await addFixture('good');
    await agt('mcp', 'add', 'dead', '--cwd', tmp.dir, '--', 'python3', path.join(tmp.dir, 'missing.py'));
    await agt('mcp', 'add-json', 'off', JSON.stringify({ command: 'python3', args: [PYTHON_SERVER], disabled: true }), '--cwd', tmp.dir);
    const listed = await agt('mcp', 'list', '--probe');
    expect(listed.code).toBe(1);
    expect(listed.stdout).toMatch(/^default\/good .* ✓ connected, \d+ tools, MCP 20\d\d-\d\d-\d\d \(\d+\.\d s\)$/m);
    expect(listed.stdout).toMatch(/^default\/dead .* ✗ failed: exited_early/m);
    expect(listed.stdout).toMatch(/^default\/off .* ⊘ disabled$/m);
    expect((await agt('mcp', 'list')).stdout).toMatch(/^default\/good .* ✓ \d+ tools, MCP 20\d\d-\d\d-\d\d$/m); // the probes were noted, with the protocol
  });
});
