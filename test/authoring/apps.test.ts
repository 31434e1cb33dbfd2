/**
 * The kit serves interfaces (MCP Apps, issue 61 item 5): `defineTool({ app })`
 * checked at definition time, the tool listed with `_meta.ui` and the flat
 * key, the `ui://` resource listed and read with its MIME type and `_meta.ui`
 * — over stdio (a real process) and HTTP, in both eras — and read by a client
 * through readApp (U2).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createToolServer, defaultAppUri, defineTool, type HttpToolService, serveHttp, type ToolApp } from '../../src/authoring/index.js';
import { connectMcp, type McpConnection } from '../../src/index.js';
import { readApp } from '../../src/mcp/apps/read.js';
import { MAX_APP_HTML_BYTES } from '../../src/bounds.js';
import { REPO_ROOT, tempDir, thrown } from '../support/index.js';
import { McpUiResourceMetaSchema, McpUiToolMetaSchema } from '@modelcontextprotocol/ext-apps';
import { getToolUiResourceUri, isToolVisibilityAppOnly } from '@modelcontextprotocol/ext-apps/app-bridge';
import { WEATHER_HTML } from './fixtures/apps-server.js';

const FIXTURE = path.join(REPO_ROOT, 'test/authoring/fixtures/apps-server.ts');
const PAGE = fs.readFileSync(WEATHER_HTML, 'utf8');
const stdio = (protocol: 'legacy' | '2026-07-28') => ({
  command: process.execPath,
  cwd: REPO_ROOT,
  args: ['--import', 'tsx', FIXTURE],
  protocol,
});
const tmp = tempDir('agt-apps-');
afterAll(() => tmp.cleanup());

const connections: McpConnection[] = [];
const services: HttpToolService[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
  for (const s of services.splice(0)) await s.close();
});

const withApp = (app: unknown) => () =>
  defineTool({ name: 'show', description: 'Shows.', input: v.object({}), app: app as ToolApp, handler: () => 'shown' });

describe('defineTool({ app }): checked at definition time', () => {
  it('both html and file, or neither, is invalid_input naming app.html', () => {
    const both = thrown(withApp({ html: '<p>x</p>', file: WEATHER_HTML }));
    expect(both).toMatchObject({ code: 'invalid_input', details: { field: 'app.html' } });
    expect(both.message).toBe('tool "show": app.html and app.file are both given: give exactly one (the HTML, or the file that holds it)');
    expect(thrown(withApp({ csp: {} }))).toMatchObject({ code: 'invalid_input', details: { field: 'app.html' } });
  });

  it('a missing file is invalid_input naming app.file', () => {
    const missing = thrown(withApp({ file: path.join(tmp.dir, 'nowhere.html') }));
    expect(missing).toMatchObject({ code: 'invalid_input', details: { field: 'app.file' } });
    expect(missing.message).toMatch(/^tool "show": app\.file ".*nowhere\.html" does not exist$/);
  });

  it('an over-broad CSP domain is invalid_input naming the entry', () => {
    const broad = thrown(withApp({ html: '<p>x</p>', csp: { connectDomains: ['https://api.example.com', 'https://*'] } }));
    expect(broad).toMatchObject({ code: 'invalid_input', details: { field: 'app.csp.connectDomains[1]' } });
    expect(broad.message).toMatch(/^tool "show": app\.csp\.connectDomains\[1\] /);
    expect(thrown(withApp({ html: '<p>x</p>', csp: { scriptDomains: [] } }))).toMatchObject({
      details: { field: 'app.csp.scriptDomains' },
    });
  });

  it('an unknown permission is invalid_input naming it', () => {
    const unknown = thrown(withApp({ html: '<p>x</p>', permissions: { usb: {} } }));
    expect(unknown).toMatchObject({ code: 'invalid_input', details: { field: 'app.permissions.usb' } });
    expect(unknown.message).toMatch(/^tool "show": app\.permissions\.usb is not a permission/);
  });

  it('an oversized page is invalid_input naming app.html (inline) or app.file', () => {
    const big = `<p>${'x'.repeat(MAX_APP_HTML_BYTES)}</p>`;
    expect(thrown(withApp({ html: big }))).toMatchObject({
      code: 'invalid_input',
      message: `tool "show": app.html is larger than ${MAX_APP_HTML_BYTES} bytes`,
      details: { field: 'app.html' },
    });
    const file = path.join(tmp.dir, 'big.html');
    fs.writeFileSync(file, big);
    expect(thrown(withApp({ file }))).toMatchObject({ code: 'invalid_input', details: { field: 'app.file' } });
  });

  it('a malformed uri, visibility, domain or unknown option is invalid_input naming it', () => {
    expect(thrown(withApp({ html: '<p>x</p>', uri: 'https://example.com/app' }))).toMatchObject({ details: { field: 'app.uri' } });
    expect(thrown(withApp({ html: '<p>x</p>', uri: 'ui://kit/a/../b' }))).toMatchObject({ details: { field: 'app.uri' } });
    expect(thrown(withApp({ html: '<p>x</p>', visibility: ['user'] }))).toMatchObject({ details: { field: 'app.visibility' } });
    expect(thrown(withApp({ html: '<p>x</p>', visibility: [] }))).toMatchObject({ details: { field: 'app.visibility' } });
    expect(thrown(withApp({ html: '<p>x</p>', domain: 'a b' }))).toMatchObject({ details: { field: 'app.domain' } });
    expect(thrown(withApp({ html: '<p>x</p>', height: 300 }))).toMatchObject({ details: { field: 'app.height' } });
  });

  it('two tools may share an interface URI only with the same page and metadata', () => {
    const tool = (name: string, html: string) =>
      defineTool({ name, description: 'x', input: v.object({}), app: { html, uri: 'ui://kit/shared' }, handler: () => 'x' });
    expect(createToolServer({ name: 'k', version: '1', tools: [tool('a', '<p>a</p>'), tool('b', '<p>a</p>')] }).tools).toEqual(['a', 'b']);
    const clash = thrown(() => createToolServer({ name: 'k', version: '1', tools: [tool('a', '<p>a</p>'), tool('b', '<p>b</p>')] }));
    expect(clash).toMatchObject({ code: 'invalid_input', details: { field: 'app.uri', tool: 'b' } });
  });

  it('the default URI is ui://<server name>/<tool name>, the name reduced to URI-safe characters, else kit', () => {
    expect(defaultAppUri('weather', 'show_weather')).toBe('ui://weather/show_weather');
    expect(defaultAppUri('My Weather!', 'show')).toBe('ui://My-Weather/show');
    expect(defaultAppUri('   ', 'show')).toBe('ui://kit/show');
  });
});

const URI = 'ui://weather/show_weather';
const UI = {
  csp: { connectDomains: ['https://api.weather.example'], resourceDomains: ['https://cdn.weather.example'] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true,
};

for (const protocol of ['legacy', '2026-07-28'] as const) {
  describe(`a kit server with an app tool, over stdio (${protocol})`, () => {
    it('tools/list names the interface in _meta.ui and the flat key; an app-only tool says so; a plain tool has no _meta', async () => {
      const connection = await connectMcp(stdio(protocol));
      connections.push(connection);
      const tools = Object.fromEntries((await connection.listTools()).map((t) => [t.name, t._meta]));
      expect(tools.show_weather).toEqual({ ui: { resourceUri: URI }, 'ui/resourceUri': URI });
      expect(tools.refresh_weather).toEqual({ ui: { resourceUri: URI, visibility: ['app'] }, 'ui/resourceUri': URI });
      expect(tools.add).toBeUndefined();
    });

    it("what it lists is what ext-apps' own host helpers and schemas read", async () => {
      const connection = await connectMcp(stdio(protocol));
      connections.push(connection);
      const listed = await connection.listTools();
      const tool = (name: string) => ({ _meta: listed.find((t) => t.name === name)!._meta }); // what the helpers read
      expect(getToolUiResourceUri(tool('show_weather'))).toBe(URI);
      expect(getToolUiResourceUri({ _meta: { 'ui/resourceUri': tool('show_weather')._meta?.['ui/resourceUri'] } })).toBe(URI);
      expect([isToolVisibilityAppOnly(tool('refresh_weather')), isToolVisibilityAppOnly(tool('show_weather'))]).toEqual([true, false]);
      expect(McpUiToolMetaSchema.safeParse(tool('refresh_weather')._meta?.ui).success).toBe(true);
      const resource = (await connection.listResources()).find((r) => r.uri === URI);
      expect(McpUiResourceMetaSchema.strict().safeParse(resource?._meta?.ui).success).toBe(true);
    });

    it('resources/list and resources/read serve the page with the MCP Apps MIME type and _meta.ui', async () => {
      const connection = await connectMcp(stdio(protocol));
      connections.push(connection);
      const listed = await connection.listResources();
      expect(listed.filter((r) => r.uri.startsWith('ui://'))).toEqual([
        expect.objectContaining({ uri: URI, name: 'show_weather', mimeType: 'text/html;profile=mcp-app', _meta: { ui: UI } }),
      ]);
      const read = await connection.readResource(URI);
      expect(read.contents).toEqual([{ uri: URI, mimeType: 'text/html;profile=mcp-app', text: PAGE, _meta: { ui: UI } }]);
    });

    it('U2: a client that declares the extension reads the interface through readApp: the page, its CSP and permissions, checked', async () => {
      const connection = await connectMcp(stdio(protocol), { apps: true });
      connections.push(connection);
      expect(await readApp(connection, URI)).toEqual({ uri: URI, html: PAGE, ...UI });
    });
  });
}

describe('a kit server with an app tool, over HTTP (serveHttp)', () => {
  const show = defineTool({
    name: 'show',
    description: 'Shows a card.',
    input: v.object({}),
    app: { html: '<!doctype html><p>card</p>', uri: 'ui://cards/show', csp: { frameDomains: ['https://player.example.com'] } },
    handler: () => 'shown',
  });

  for (const protocol of ['legacy', '2026-07-28'] as const) {
    it(`U2: tools/list names it and readApp reads it (${protocol})`, async () => {
      const service = await serveHttp(() => createToolServer({ name: 'cards', version: '1.0.0', tools: [show] }));
      services.push(service);
      const connection = await connectMcp({ url: service.url, protocol });
      connections.push(connection);
      expect(connection.protocolVersion).toBe(protocol === 'legacy' ? '2025-11-25' : '2026-07-28');
      const [tool] = await connection.listTools();
      expect(tool?._meta).toEqual({ ui: { resourceUri: 'ui://cards/show' }, 'ui/resourceUri': 'ui://cards/show' });
      expect(await readApp(connection, 'ui://cards/show')).toEqual({
        uri: 'ui://cards/show',
        html: '<!doctype html><p>card</p>',
        csp: { frameDomains: ['https://player.example.com'] },
      });
      // The tool works whether or not the client declares the extension (this one does not).
      expect((await connection.callTool('show', {})).content).toEqual([{ type: 'text', text: 'shown' }]);
    });
  }
});

describe('interfaces beside skills', () => {
  it('a kit server serving skills and an interface lists both; its resources may change (the skills may)', async () => {
    const folder = path.join(tmp.dir, 'skills');
    fs.mkdirSync(path.join(folder, 'greeting'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'greeting/SKILL.md'), '---\nname: greeting\ndescription: Greets.\n---\n# Greeting\n');
    const show = defineTool({
      name: 'show',
      description: 'Shows.',
      input: v.object({}),
      app: { html: '<p>hi</p>' },
      handler: () => 'shown',
    });
    const service = await serveHttp(() => createToolServer({ name: 'both', version: '1.0.0', tools: [show], skills: folder }));
    services.push(service);
    const connection = await connectMcp({ url: service.url, protocol: 'legacy' });
    connections.push(connection);
    expect((await connection.listResources()).map((r) => r.uri).sort()).toEqual(['skill://greeting/SKILL.md', 'ui://both/show']);
    expect(connection.capabilities.resources).toEqual({ listChanged: true });
    expect((await readApp(connection, 'ui://both/show')).html).toBe('<p>hi</p>');
  });

  it('without skills, a kit server says its resources never change', async () => {
    const show = defineTool({
      name: 'show',
      description: 'Shows.',
      input: v.object({}),
      app: { html: '<p>hi</p>' },
      handler: () => 'shown',
    });
    const service = await serveHttp(() => createToolServer({ name: 'only', version: '1.0.0', tools: [show] }));
    services.push(service);
    const connection = await connectMcp({ url: service.url, protocol: 'legacy' });
    connections.push(connection);
    expect(connection.capabilities.resources).toEqual({ listChanged: false });
  });
});
