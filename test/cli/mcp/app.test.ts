/**
 * `agt mcp probe` and `agt mcp app` against the ext-apps fixture
 * (test/fixtures/apps-server.ts) registered as a stdio server, in both eras:
 * the probe shows the interfaces (tool, uri, who may call it); `agt mcp app`
 * writes the checked HTML to --out, prints a summary (never the HTML), and
 * refuses a tool without an interface, a malformed `_meta.ui`, a wrong MIME
 * type, an oversized page and an answer for another URI — exit 2, a clear
 * message, no file written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgt, tempDir } from '../../support/index.js';
import { appsServerConfig, CHART_HTML, CHART_URI } from '../../fixtures/apps-server.js';

let tmp: ReturnType<typeof tempDir>;
let db: string;
beforeEach(() => {
  tmp = tempDir('agt-app-');
  db = path.join(tmp.dir, 'agt.db');
});
afterEach(() => tmp.cleanup());

const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });

async function addCharts(era: 'legacy' | '2026-07-28', ...flags: string[]): Promise<void> {
  const added = await agt('mcp', 'add-json', 'charts', JSON.stringify(appsServerConfig(era, ...flags)));
  expect(added.code).toBe(0);
}

describe.each(['legacy', '2026-07-28'] as const)('agt mcp probe / app on an ext-apps server (%s)', (era) => {
  it(`U1: ${era}: agt mcp probe declares the extension and shows each interface: tool, uri, who may call it`, async () => {
    await addCharts(era, '--capable-only'); // lists its interfaces only to a client that declares the extension
    const probed = await agt('mcp', 'probe', 'charts');
    expect(probed.code).toBe(0);
    expect(probed.stdout).toContain(
      [
        'apps: 3',
        `  show_chart  ${CHART_URI}  (model and app)`,
        `  refresh_chart  ${CHART_URI}  (app only)`,
        `  summarize  ${CHART_URI}  (model only)`,
      ].join('\n'),
    );
    const json = JSON.parse((await agt('mcp', 'probe', 'charts', '--json')).stdout);
    expect(json.apps).toEqual([
      { tool: 'show_chart', resourceUri: CHART_URI, visibility: ['model', 'app'] },
      { tool: 'refresh_chart', resourceUri: CHART_URI, visibility: ['app'] },
      { tool: 'summarize', resourceUri: CHART_URI, visibility: ['model'] },
    ]);
  });

  it(`U2: ${era}: agt mcp app --out writes the checked HTML; without --out a summary, never the HTML`, async () => {
    await addCharts(era);
    const summary = await agt('mcp', 'app', 'charts', 'show_chart');
    expect(summary.code).toBe(0);
    expect(summary.stdout).toMatch(
      new RegExp(`^show_chart: ${CHART_URI}, ${Buffer.byteLength(CHART_HTML)} bytes \\(sha256 [0-9a-f]{16}…\\)\n`),
    );
    expect(summary.stdout).toContain('connectDomains: https://api.example.com');
    expect(summary.stdout).toContain('permissions: clipboardWrite');
    expect(summary.stdout).not.toContain('<html');
    const written = await agt('mcp', 'app', 'charts', 'show_chart', '--out', 'chart.html', '--json');
    expect(written.code).toBe(0);
    expect(fs.readFileSync(path.join(tmp.dir, 'chart.html'), 'utf8')).toBe(CHART_HTML);
    expect(JSON.parse(written.stdout)).toMatchObject({
      reference: 'default/charts',
      tool: 'show_chart',
      uri: CHART_URI,
      bytes: Buffer.byteLength(CHART_HTML),
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
      out: fs.realpathSync(path.join(tmp.dir, 'chart.html')),
    });
    expect(fs.readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it(`U2: ${era}: a tool without an interface is exit 2, nothing written; an unknown tool is not_found (exit 3)`, async () => {
    await addCharts(era);
    const plain = await agt('mcp', 'app', 'charts', 'echo', '--out', 'echo.html');
    expect(plain.code).toBe(2);
    expect(plain.stderr).toBe('agt: invalid_input: tool "echo" declares no interface (_meta.ui.resourceUri); nothing was written\n');
    const unknown = await agt('mcp', 'app', 'charts', 'nope');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^agt: not_found: default\/charts lists no tool "nope"/);
    expect(fs.existsSync(path.join(tmp.dir, 'echo.html'))).toBe(false);
  });

  it(`U2: ${era}: --out in a folder that does not exist is exit 2 (cannot write), no file or temporary left`, async () => {
    await addCharts(era);
    const failed = await agt('mcp', 'app', 'charts', 'show_chart', '--out', path.join('missing', 'chart.html'));
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^agt: invalid_input: cannot write .*missing\/chart\.html \(ENOENT\); nothing was written\n$/);
    expect(fs.readdirSync(tmp.dir).filter((f) => f.includes('chart') || f === 'missing')).toEqual([]);
  });
});

describe('U2: agt mcp app refuses a hostile interface: exit 2, a message naming the field, no file', () => {
  const cases = [
    ['--bad-meta', 'broken_chart', 'app_invalid', '_meta.ui.visibility', /_meta\.ui\.visibility must be a list/],
    ['--wrong-mime', 'show_chart', 'app_type', 'mimeType', /mimeType must be text\/html;profile=mcp-app/],
    ['--oversized', 'show_chart', 'app_too_large', 'text', /text is larger than 2097152 bytes/],
    ['--other-uri', 'show_chart', 'app_invalid', 'contents', /contents hold no item for the URI asked for/],
  ] as const;
  for (const era of ['legacy', '2026-07-28'] as const)
    it.each(cases)(`U2: ${era}: %s (%s)`, async (flag, tool, reason, field, message) => {
      await addCharts(era, flag);
      fs.writeFileSync(path.join(tmp.dir, 'chart.html'), 'before');
      const refused = await agt('mcp', 'app', 'charts', tool, '--out', 'chart.html');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        flag === '--bad-meta'
          ? /^agt: invalid_input: tool "broken_chart" declares its interface wrongly: /
          : new RegExp(`^agt: invalid_input: tool "${tool}" has an interface that is refused \\(ui://charts/chart\\.html\\): `),
      );
      expect(refused.stderr).toMatch(message);
      expect(refused.stderr).toMatch(/; nothing was written\n$/);
      expect(refused.stderr).not.toContain('evil');
      // The file --out names is left as it was, and no temporary file is left beside it.
      expect(fs.readdirSync(tmp.dir).filter((f) => f.includes('chart'))).toEqual(['chart.html']);
      expect(fs.readFileSync(path.join(tmp.dir, 'chart.html'), 'utf8')).toBe('before');
      const json = JSON.parse((await agt('mcp', 'app', 'charts', tool, '--json')).stdout);
      expect(json.error).toMatchObject({ code: 'invalid_input', details: { reason, field, tool } });
    });
});
