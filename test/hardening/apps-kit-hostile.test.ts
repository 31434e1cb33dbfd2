/**
 * The kit's interfaces (MCP Apps) fed a hostile definition — a FIFO, a
 * directory, a symlink, a huge or non-UTF-8 file, URI tricks, CSP and
 * permissions with getters, proxies or prototype keys — and the contract's
 * check of a tool's interface against a server that stops answering (the
 * Python fixture's apps-hostile and slow features, over stdio).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/authoring/index.js';
import { checkToolApp } from '../../src/authoring/contract/app-check.js';
import { MAX_APP_HTML_BYTES } from '../../src/bounds.js';
import { connectMcp } from '../../src/mcp/connect.js';
import { pythonConfig, tempDir, thrown } from '../support/index.js';

const tmp = tempDir('agt-apps-kit-hostile-');
afterAll(() => tmp.cleanup());
const at = (name: string) => path.join(tmp.dir, name);
const tool = (app: unknown) => defineTool({ name: 't', description: 'd', input: v.object({}), app: app as never, handler: () => ({}) });
const refused = (app: unknown) => thrown(() => tool(app));

describe('U2: a hostile app.file', () => {
  it('U2: a FIFO (directly or through a symlink) is refused at once, never waited on; a directory too', () => {
    execFileSync('mkfifo', [at('pipe.html')]);
    fs.symlinkSync(at('pipe.html'), at('to-pipe.html'));
    fs.mkdirSync(at('dir.html'));
    for (const file of [at('pipe.html'), at('to-pipe.html'), at('dir.html')])
      expect(refused({ file })).toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(/is not a file/),
        details: { field: 'app.file' },
      });
  });

  it('U2: a symlink to a page is read as the page; a dangling one does not exist', () => {
    fs.writeFileSync(at('page.html'), '<p>page</p>');
    fs.symlinkSync(at('page.html'), at('link.html'));
    fs.symlinkSync(at('gone.html'), at('dangling.html'));
    expect(tool({ file: at('link.html') }).app?.html).toBe('<p>page</p>');
    expect(refused({ file: at('dangling.html') }).message).toMatch(/does not exist/);
  });

  it('U2: a file past the bound is refused before it is read; non-UTF-8 bytes are refused, never replaced', () => {
    fs.writeFileSync(at('huge.html'), '');
    fs.truncateSync(at('huge.html'), MAX_APP_HTML_BYTES + 1); // sparse: nothing read
    expect(refused({ file: at('huge.html') }).message).toMatch(/is larger than/);
    fs.writeFileSync(at('latin1.html'), Buffer.from('<p>caf\xe9</p>', 'latin1'));
    expect(refused({ file: at('latin1.html') })).toMatchObject({
      message: expect.stringMatching(/is not UTF-8/),
      details: { field: 'app.file' },
    });
    fs.writeFileSync(at('escape\u001b[2J.html'), Buffer.from([0xff, 0xfe, 0x3c]));
    expect(refused({ file: at('escape\u001b[2J.html') }).message).not.toMatch(/\u001b/);
  });
});

describe('U2: a hostile definition object', () => {
  it('U2: uri tricks are refused', () => {
    for (const uri of [
      'ui://a/../b',
      'ui://a/%2e%2e/b',
      'UI://a/b',
      'ui://a\u202e/b',
      'ui://a/b c',
      'http://a/b',
      'ui://',
      `ui://a/${'x'.repeat(5000)}`,
    ])
      expect({ uri, field: refused({ html: '<p>x</p>', uri }).details?.field }).toEqual({ uri, field: 'app.uri' });
  });

  it('U2: a getter is read once: what was checked is what is served (uri, csp entries, domain)', () => {
    let reads = 0;
    const uri = 'ui://kit/page';
    const app = {
      html: '<p>x</p>',
      get uri() {
        return reads++ === 0 ? uri : 'ui://kit/../../elsewhere';
      },
    };
    expect(tool(app).app?.uri).toBe(uri);
    const connectDomains = ['https://api.example.com'];
    let entryReads = 0;
    Object.defineProperty(connectDomains, 0, {
      enumerable: true,
      get: () => (entryReads++ === 0 ? 'https://api.example.com' : "*; script-src 'unsafe-eval'"),
    });
    expect(tool({ html: '<p>x</p>', csp: { connectDomains } }).app?.csp).toEqual({ connectDomains: ['https://api.example.com'] });
    let domainReads = 0;
    const domain = {
      html: '<p>x</p>',
      get domain() {
        return domainReads++ === 0 ? 'a.example.com' : 'a.example.com"><script>';
      },
    };
    expect(tool(domain).app?.domain).toBe('a.example.com');
  });

  it('U2: proxies and functions are no data; prototype keys are neither inherited nor taken as fields', () => {
    expect(refused({ html: '<p>x</p>', csp: new Proxy({}, {}) }).details?.field).toBe('app');
    expect(refused({ html: '<p>x</p>', toString: () => 'x' }).details?.field).toBe('app');
    const inherits = Object.assign(Object.create({ csp: { connectDomains: ['*'] }, permissions: { camera: {} } }), { html: '<p>x</p>' });
    expect(tool(inherits).app).toEqual({ html: '<p>x</p>' });
    const proto = JSON.parse('{"html":"<p>x</p>","csp":{"__proto__":{"connectDomains":["*"]}}}');
    expect(refused(proto).details?.field).toMatch(/^app\.csp\.__proto__/);
    const perm = JSON.parse('{"html":"<p>x</p>","permissions":{"__proto__":{}}}');
    expect(refused(perm).details?.field).toMatch(/^app\.permissions\.__proto__/);
    expect(refused(JSON.parse('{"html":"<p>x</p>","__proto__":{"csp":{}}}')).details?.field).toMatch(/^app\.__proto__/);
  });
});

describe('U2: the contract check of an interface on a server that stops answering', () => {
  it('U2: reads and lists that never answer end at the timeouts, as problems naming the field; nothing hangs', async () => {
    const config = pythonConfig({ extra: ['--feature', 'apps-hostile', '--feature', 'slow'] });
    const connection = await connectMcp(config, { apps: true, timeouts: { listMs: 300, callMs: 300 } });
    try {
      await connection.callTool('mute', {});
      const check = await checkToolApp(
        connection,
        { name: 'h_page', inputSchema: { type: 'object' }, _meta: { ui: { resourceUri: 'ui://h/page' } } } as never,
        { timeoutMs: 300 },
      );
      expect(check).toMatchObject({ tool: 'h_page', uri: 'ui://h/page', passed: false });
      expect(check!.problems.map((p) => p.field)).toEqual(['resources/list', 'resources/read']);
    } finally {
      await connection.close();
    }
  });
});
