/**
 * The contract checks of interfaces (MCP Apps, U2): checkServer (`agt mcp
 * check`) and runContract read each declared `ui://` resource from the
 * server's real answers, in both eras — listed, readable, its MIME type, size,
 * CSP and permissions — and a failure names the tool and the field.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkServer, contractCases, runContract } from '../../src/authoring/index.js';
import { contractSuite } from '../../src/testing/index.js';
import { REPO_ROOT, runAgt, tempDir } from '../support/index.js';
import { weatherTools } from './fixtures/apps-server.js';

const FIXTURE = path.join(REPO_ROOT, 'test/authoring/fixtures/apps-server.ts');
const server = (...args: string[]) => ({ command: process.execPath, cwd: REPO_ROOT, args: ['--import', 'tsx', FIXTURE, ...args] });
const URI = 'ui://weather/show_weather';

describe('U2: the contract checks of a kit server with app tools', () => {
  it('U2: checkServer reads every declared interface in both eras, and a good app tool passes', async () => {
    const report = await checkServer(server());
    expect(report.ok).toBe(true);
    expect(report.eras.map((e) => e.protocolVersion)).toEqual(['2025-11-25', '2026-07-28']);
    const apps = report.tools.map((t) => [t.tool, t.era, t.app]);
    expect(apps).toEqual([
      ['show_weather', 'legacy', { tool: 'show_weather', uri: URI, passed: true, problems: [] }],
      ['refresh_weather', 'legacy', { tool: 'refresh_weather', uri: URI, passed: true, problems: [] }],
      ['add', 'legacy', undefined],
      ['show_weather', 'modern', { tool: 'show_weather', uri: URI, passed: true, problems: [] }],
      ['refresh_weather', 'modern', { tool: 'refresh_weather', uri: URI, passed: true, problems: [] }],
      ['add', 'modern', undefined],
    ]);
  });

  it('U2: checkServer fails a server whose interface has the wrong MIME type, naming the tool and the field', async () => {
    const report = await checkServer(server('--bad-mime'));
    expect(report.ok).toBe(false);
    for (const check of report.tools) {
      expect(check.app).toEqual({
        tool: 'show',
        uri: 'ui://bad/show',
        passed: false,
        problems: [
          { field: 'resources/list mimeType', message: 'is text/html, not text/html;profile=mcp-app' },
          { field: 'mimeType', message: "the interface's mimeType must be text/html;profile=mcp-app" },
        ],
      });
      expect(check.failed).toBe(1); // its cases passed; its interface is the one failure
    }
  });

  it("U2: runContract checks the interfaces of its cases' tools in each era; a wrong MIME type fails the contract", async () => {
    const [show] = weatherTools('weather');
    const good = await runContract(server(), contractCases(show!, { valid: [{ city: 'Oslo' }] }));
    expect(good.failed).toBe(0);
    expect(good.eras.map((e) => e.apps)).toEqual([
      [{ tool: 'show_weather', uri: URI, passed: true, problems: [] }],
      [{ tool: 'show_weather', uri: URI, passed: true, problems: [] }],
    ]);
    const bad = await runContract(server('--bad-mime'), [{ name: 'shows', tool: 'show', args: {}, expect: { ok: true } }]);
    expect([bad.passed, bad.failed]).toEqual([2, 2]); // the call passed in both eras; the interface failed in both
    expect(bad.eras.map((e) => e.apps?.[0]?.problems.map((p) => p.field))).toEqual([
      ['resources/list mimeType', 'mimeType'],
      ['resources/list mimeType', 'mimeType'],
    ]);
  });

  it('U2: contractSuite fails the first case of a tool whose interface fails, naming the tool and the field', async () => {
    const tests: [string, () => Promise<void>][] = [];
    let setup: (() => Promise<void>) | undefined;
    const cases = [
      { name: 'shows', tool: 'show', args: {}, expect: { ok: true } as const },
      { name: 'shows again', tool: 'show', args: {}, expect: { ok: true } as const },
    ];
    contractSuite(server('--bad-mime'), cases, { test: (name, fn) => tests.push([name, fn]), beforeAll: (fn) => (setup = fn) });
    await setup?.();
    const outcomes: [string, string][] = [];
    for (const [name, fn] of tests)
      outcomes.push([
        name,
        await fn().then(
          () => 'passed',
          (e: Error) => e.message,
        ),
      ]);
    const failed = `show's interface ui://bad/show: resources/list mimeType: is text/html, not text/html;profile=mcp-app; mimeType: the interface's mimeType must be text/html;profile=mcp-app`;
    expect(outcomes).toEqual([
      ['show: shows → ok (2025)', failed],
      ['show: shows again → ok (2025)', 'passed'],
      ['show: shows → ok (2026-07-28)', failed],
      ['show: shows again → ok (2026-07-28)', 'passed'],
    ]);
  });

  it("U2: agt mcp check says which tool's interface failed and why", async () => {
    const tmp = tempDir('agt-apps-check-');
    try {
      const db = path.join(tmp.dir, 'agt.db');
      const command = ['--cwd', REPO_ROOT, '--', process.execPath, '--import', 'tsx', FIXTURE, '--bad-mime'];
      expect((await runAgt(['mcp', 'add', 'bad', ...command], { home: tmp.dir, db })).code).toBe(0);
      const out = await runAgt(['mcp', 'check', 'bad'], { home: tmp.dir, db });
      expect(out.code).toBe(1);
      expect(out.stdout).toContain(
        'interface ui://bad/show: resources/list mimeType: is text/html, not text/html;profile=mcp-app; mimeType:',
      );
    } finally {
      tmp.cleanup();
    }
  });
});
