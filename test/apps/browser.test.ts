/**
 * examples/apps-host in a real browser: headless Chromium (the distribution's, through playwright-core)
 * opens the host page; the counter's app renders in the sandbox's inner frame; its button calls the
 * approval-gated `increment`, which waits until the test approves it with run.decide; the app cannot
 * reach the host page, and the sandbox's CSP header blocks a fetch to a domain the app did not declare.
 * The counter server is a real process over stdio. CI (.ci/run) installs Chromium and sets
 * AGT_TEST_CHROMIUM, so there the test always runs; elsewhere it skips, saying so, when Chromium is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEvent, toolAlias } from '../../src/index.js';
import { appCspHeader } from '../../src/apps/index.js';
import { type AppsHost, startAppsHost } from '../../examples/apps-host/host.js';
import { REPO_ROOT } from '../support/paths.js';
import { livingWithMarker, marker, waitFor } from '../support/servers.js';

const CHROMIUM = process.env.AGT_TEST_CHROMIUM ?? '/usr/bin/chromium';
const required = process.env.AGT_TEST_CHROMIUM !== undefined;
const present = fs.existsSync(CHROMIUM);
const EXAMPLE = path.join(REPO_ROOT, 'examples', 'apps-host');
// The page's screenshot: docs/apps.md shows the one a run with AGT_DOCS_SCREENSHOT=1 wrote; other runs write it to a
// temporary folder (a run of the suite leaves the repository as it was).
const SCREENSHOT =
  process.env.AGT_DOCS_SCREENSHOT === '1'
    ? path.join(REPO_ROOT, 'docs', 'apps-screenshot.png')
    : path.join(os.tmpdir(), `agt-apps-screenshot-${process.pid}.png`);

const mark = marker();
let host: AppsHost | undefined;
let browser: Browser | undefined;
let page: Page;
const consoleLines: string[] = [];
const audit: AuditEvent[] = [];

async function closeAll(): Promise<void> {
  await browser?.close();
  browser = undefined;
  await host?.close();
  host = undefined;
  if (process.env.AGT_DOCS_SCREENSHOT !== '1') fs.rmSync(SCREENSHOT, { force: true });
}

// The frames the host page holds: the sandbox (on the sandbox origin) and the app inside it.
// What runs in the page, as source (the test's TypeScript has no DOM types).
// Reads window.top's and window.parent's document from the app: each throws a SecurityError, or says what it read.
const REACH = `(() => {
  const names = [];
  for (const read of [() => window.top.document.title, () => window.parent.document.title]) {
    try { names.push('reachable: ' + read()); } catch (error) { names.push(error.name); }
  }
  return { top: names[0], parent: names[1] };
})()`;
// Fetches an origin the app never declared: the CSP refuses it (no request is made), with a violation event.
const UNDECLARED_FETCH = `(async () => {
  const violation = new Promise((resolve) =>
    document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective + ' ' + e.blockedURI), { once: true }));
  const fetched = await fetch('https://undeclared.example.com/').then(() => 'fetched', (error) => error.name);
  return { fetched, violation: await violation };
})()`;
// How many colours a PNG (base64) has, decoded by the browser itself: a blank frame has one.
const COLOURS = `async (png) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + png;
  await image.decode();
  const canvas = Object.assign(document.createElement('canvas'), { width: image.width, height: image.height });
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, image.width, image.height).data;
  const seen = new Set();
  for (let i = 0; i < data.length; i += 4) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  return seen.size;
}`;

const sandboxFrame = (): Frame | undefined => page.mainFrame().childFrames()[0];
const appFrame = (): Frame | undefined => sandboxFrame()?.childFrames()[0];
const shown = (frame: Frame, id: string) => frame.locator(`#${id}`).textContent();

describe.skipIf(!present && !required)(
  `examples/apps-host in headless Chromium${present || required ? '' : ` (skipped: no ${CHROMIUM}; .ci/run installs it)`}`,
  () => {
    beforeAll(async () => {
      host = await startAppsHost({
        server: {
          command: process.execPath,
          args: ['--import', 'tsx', path.join(EXAMPLE, 'counter-server.ts'), mark],
          cwd: EXAMPLE,
          env: { TSX_TSCONFIG_PATH: path.join(REPO_ROOT, 'tsconfig.json') },
        },
        audit: { record: (event) => void audit.push(event) },
      });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', `--agt-test-marker=${mark}`] });
      page = await browser.newPage({ viewport: { width: 720, height: 420 } });
      page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
      await page.goto(host.hostUrl);
      await waitFor(() => appFrame() !== undefined);
    }, 60_000);
    afterAll(closeAll);

    it('U4: the app of the tool the model called renders in the inner frame of the sandbox origin and shows its permitted result', async () => {
      const sandbox = sandboxFrame() as Frame;
      const app = appFrame() as Frame;
      expect(new URL(sandbox.url()).origin).toBe(host?.sandboxUrl);
      expect(new URL(sandbox.url()).origin).not.toBe(new URL(page.url()).origin);
      // ui/initialize, then the tool's result (the call was auto-allowed and its output checked): count 0.
      await app.locator('#increment:not([disabled])').waitFor();
      await app.locator('#count', { hasText: '0' }).waitFor();
      // The app is a srcdoc document with an opaque origin (its frame has no allow-same-origin).
      expect(await app.evaluate('[window.origin, location.href]')).toEqual(['null', 'about:srcdoc']);
      expect(await page.locator('#tool').textContent()).toBe(toolAlias('apps/counter', 'show_counter'));
    });

    it("U3: the app's button calls the approval-gated tool; it waits in run.pending(), and once approved its result shows in the app", async () => {
      const run = (host as AppsHost).run;
      const app = appFrame() as Frame;
      await app.locator('#increment').click();
      await waitFor(() => run.pending().some((p) => p.tool === toolAlias('apps/counter', 'increment')));
      const waiting = run.pending().find((p) => p.tool === toolAlias('apps/counter', 'increment'));
      const showCounter = toolAlias('apps/counter', 'show_counter');
      expect(waiting).toMatchObject({ waitingFor: 'approval', arguments: { by: 1 }, origin: 'app', from: showCounter });
      // Nothing ran yet: the app still waits, and the host page lists the call for a person.
      expect(await shown(app, 'count')).toBe('0');
      expect(await shown(app, 'result')).toMatch(/^asked the host/);
      await page.locator('#approvals .pending', { hasText: 'increment' }).waitFor();
      await page.screenshot({ path: SCREENSHOT }); // docs/apps.md shows this moment: the app's call waits for a person

      const { batchId, callId } = waiting as { batchId: string; callId: string };
      await run.decide(batchId, { [callId]: { approve: true } });
      await app.locator('#result', { hasText: 'incremented: the count is 1' }).waitFor();
      expect(await shown(app, 'count')).toBe('1');
      expect(run.pending()).toEqual([]);
      // The app's call is audited as the app's; the model's as the model's.
      const calls = audit.filter((e) => e.type === 'tool_call');
      expect(calls.map((e) => [e.remoteTool, e.origin, e.from])).toEqual([
        ['show_counter', undefined, undefined],
        ['increment', 'app', showCounter],
      ]);
    });

    it('the app cannot reach the host page, nor the sandbox page around it (cross-origin: access throws)', async () => {
      const reach = await (appFrame() as Frame).evaluate(REACH);
      expect(reach).toEqual({ top: 'SecurityError', parent: 'SecurityError' });
    });

    it('U2: the sandbox page carries the CSP built from the resource as a header, and it blocks a fetch to an undeclared domain', async () => {
      const res = await fetch(`${host?.sandboxUrl}/sandbox`);
      expect(res.headers.get('content-security-policy')).toBe(appCspHeader(undefined));
      const blocked = await (appFrame() as Frame).evaluate(UNDECLARED_FETCH);
      expect(blocked).toEqual({ fetched: 'TypeError', violation: 'connect-src https://undeclared.example.com/' });
    });

    it("the app's frame is not blank (its screenshot has many colours); the page's is docs/apps-screenshot.png", async () => {
      const shot = await (sandboxFrame() as Frame).locator('#app').screenshot();
      const probe = await (browser as Browser).newPage();
      const colours = await probe.evaluate(`(${COLOURS})(${JSON.stringify(shot.toString('base64'))})`);
      await probe.close();
      expect(colours, consoleLines.join('\n')).toBeGreaterThan(10);
      expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(0);
    });

    it('closing the browser, the host and its run leaves no process behind', async () => {
      expect(livingWithMarker(mark).length).toBeGreaterThan(1); // the counter server and Chromium
      await closeAll();
      await waitFor(() => livingWithMarker(mark).length === 0);
    });
  },
);
