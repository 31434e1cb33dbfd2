/**
 * An interface's security metadata (U2): each CSP domain and permission is
 * checked, a malformed or over-broad entry is an error naming its field, and
 * the frame's CSP allows exactly what was declared and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { appAllowAttribute, appCspHeader, checkAppCsp, checkAppPermissions, domainProblem } from '../../../src/mcp/apps/csp.js';
import { appResourceOf } from '../../../src/mcp/apps/app-resource.js';
import { readToolUi } from '../../../src/mcp/apps/ui-meta.js';
import { thrown } from '../../support/index.js';

const fieldOf = (fn: () => unknown) => (thrown(fn) as { code: string; details?: { field?: string } }).details?.field;

describe('U2: CSP domains', () => {
  it.each(['https://api.example.com', 'https://*.example.com', 'wss://live.example.com:8443', 'http://localhost:3000', 'http://127.0.0.1'])(
    'U2: %s is a source an interface may ask for',
    (domain) => {
      expect(domainProblem(domain)).toBeUndefined();
    },
  );

  it.each([
    ['*', 'must be an origin'],
    ['https://*', 'too broad'],
    ['https://*.com', 'too broad'],
    ['https:', 'must be an origin'],
    ['http://api.example.com', 'only on loopback'],
    ['https://api.example.com/path', 'must be an origin'],
    ["https://a.example.com; script-src 'unsafe-eval'", 'must be an origin'],
    ["'unsafe-eval'", 'must be an origin'],
    ['https://exa mple.com', 'must be an origin'],
    ['data:', 'must be an origin'],
    ['https://a.example.com:99999', 'port out of range'],
    ['https://-bad-.example.com', 'malformed host'],
  ])('U2: %s is refused (%s)', (domain, words) => {
    expect(domainProblem(domain)).toContain(words);
  });

  it('U2: a bad entry names its field; unknown CSP fields and non-lists are refused; over 32 domains is refused', () => {
    expect(fieldOf(() => checkAppCsp({ connectDomains: ['https://ok.example.com', '*'] }))).toBe('_meta.ui.csp.connectDomains[1]');
    expect(fieldOf(() => checkAppCsp({ scriptDomains: [] }))).toBe('_meta.ui.csp.scriptDomains');
    expect(fieldOf(() => checkAppCsp({ frameDomains: 'https://x.example.com' }))).toBe('_meta.ui.csp.frameDomains');
    const many = Array.from({ length: 33 }, (_, i) => `https://h${i}.example.com`);
    expect(fieldOf(() => checkAppCsp({ resourceDomains: many }))).toBe('_meta.ui.csp.resourceDomains');
    expect(fieldOf(() => checkAppCsp('default-src *'))).toBe('_meta.ui.csp');
  });

  it('U2: each entry is read once: an entry whose getter answers a good origin to the check and a bad one after is kept as checked', () => {
    let reads = 0;
    const list: string[] = [];
    Object.defineProperty(list, 0, { enumerable: true, get: () => (reads++ === 0 ? 'https://ok.example.com' : "* 'unsafe-eval'") });
    expect(checkAppCsp({ connectDomains: list })).toEqual({ connectDomains: ['https://ok.example.com'] });
    expect(reads).toBe(1);
  });

  it('U2: the frame CSP allows the declared domains in their directives and nothing else; none declared: connect-src and frame-src none', () => {
    expect(appCspHeader(undefined)).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
        "font-src 'self'; media-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; object-src 'none'; form-action 'none'",
    );
    const header = appCspHeader({ connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] });
    expect(header).toContain('connect-src https://api.example.com;');
    expect(header).toContain("script-src 'self' 'unsafe-inline' https://cdn.example.com;");
    expect(header).toContain("frame-src 'none'");
    expect(thrown(() => appCspHeader({ connectDomains: ['https://x.example.com; img-src *'] }))).toMatchObject({ code: 'protocol_error' });
  });
});

describe('U2: permissions', () => {
  it('U2: only camera, microphone, geolocation and clipboardWrite, each {}; the allow attribute holds exactly those asked for', () => {
    expect(checkAppPermissions({ camera: {}, clipboardWrite: {} })).toEqual({ camera: {}, clipboardWrite: {} });
    expect(appAllowAttribute({ camera: {}, clipboardWrite: {} })).toBe('camera; clipboard-write');
    expect(appAllowAttribute(undefined)).toBe('');
    expect(fieldOf(() => checkAppPermissions({ usb: {} }))).toBe('_meta.ui.permissions.usb');
    expect(fieldOf(() => checkAppPermissions({ camera: true }))).toBe('_meta.ui.permissions.camera');
    expect(fieldOf(() => checkAppPermissions({ camera: { all: true } }))).toBe('_meta.ui.permissions.camera');
  });
});

describe('U2: the resource', () => {
  const html = '<!doctype html><p>hi</p>';
  const item = (extra: Record<string, unknown> = {}) => ({ uri: 'ui://a/b', mimeType: 'text/html;profile=mcp-app', text: html, ...extra });

  it('U2: the item answering the URI, its mime type, the content-level _meta.ui over the listing, a base64 blob decoded', () => {
    const read = appResourceOf(
      'ui://a/b',
      { contents: [item({ _meta: { ui: { csp: { connectDomains: ['https://x.example.com'] }, prefersBorder: false } } })] },
      {
        listed: { ui: { csp: { connectDomains: ['https://listed.example.com'] } } },
      },
    );
    expect(read).toEqual({ uri: 'ui://a/b', html, csp: { connectDomains: ['https://x.example.com'] }, prefersBorder: false });
    expect(appResourceOf('ui://a/b', { contents: [item()] }, { listed: { ui: { permissions: { camera: {} } } } }).permissions).toEqual({
      camera: {},
    });
    const blob = { uri: 'ui://a/b', mimeType: 'text/html; profile=mcp-app', blob: Buffer.from(html).toString('base64') };
    expect(appResourceOf('ui://a/b', { contents: [blob] }).html).toBe(html);
  });

  it('U2: another URI, a wrong mime type, an oversized text or blob, a malformed _meta.ui: each refused by field, with its reason', () => {
    const refused = (answer: unknown, maxBytes?: number) =>
      thrown(() => appResourceOf('ui://a/b', answer as never, maxBytes === undefined ? {} : { maxBytes })) as {
        code: string;
        details: Record<string, unknown>;
      };
    expect(refused({ contents: [item({ uri: 'ui://other/b' })] }).details).toMatchObject({ field: 'contents' });
    expect(refused({ contents: [item({ mimeType: 'text/html' })] }).details).toMatchObject({ field: 'mimeType', reason: 'app_type' });
    expect(refused({ contents: [item()] }, 10).details).toMatchObject({ reason: 'app_too_large' });
    expect(
      refused({ contents: [{ uri: 'ui://a/b', mimeType: 'text/html;profile=mcp-app', blob: 'A'.repeat(100) }] }, 10).details,
    ).toMatchObject({
      reason: 'app_too_large',
    });
    expect(refused({ contents: [item({ _meta: { ui: 'x' } })] }).details).toMatchObject({ field: 'contents[]._meta.ui' });
    expect(refused({ contents: [item({ _meta: { ui: { prefersBorder: 'yes' } } })] }).details).toMatchObject({
      field: 'contents[]._meta.ui.prefersBorder',
    });
    expect(refused({ contents: 'x' }).code).toBe('protocol_error');
  });
});

describe("U1: a tool's _meta.ui", () => {
  it('U1: the current form and the deprecated flat key; visibility defaults to both; malformed entries are refused by field', () => {
    expect(readToolUi({ ui: { resourceUri: 'ui://a/b' } })).toEqual({
      ok: true,
      ui: { resourceUri: 'ui://a/b', visibility: ['model', 'app'] },
    });
    expect(readToolUi({ 'ui/resourceUri': 'ui://a/b' })).toEqual({
      ok: true,
      ui: { resourceUri: 'ui://a/b', visibility: ['model', 'app'] },
    });
    expect(readToolUi({ ui: { visibility: ['app'] } })).toEqual({ ok: true, ui: { visibility: ['app'] } });
    expect(readToolUi({ other: 1 })).toEqual({ ok: true, ui: undefined });
    expect(readToolUi({ ui: { visibility: 'app' } })).toMatchObject({ ok: false, field: '_meta.ui.visibility' });
    expect(readToolUi({ ui: { visibility: [] } })).toMatchObject({ ok: false, field: '_meta.ui.visibility' });
    expect(readToolUi({ ui: { visibility: ['model', 'user'] } })).toMatchObject({ ok: false, field: '_meta.ui.visibility' });
    expect(readToolUi({ ui: { resourceUri: 'https://x.example.com' } })).toMatchObject({ ok: false, field: '_meta.ui.resourceUri' });
    expect(readToolUi({ ui: { resourceUri: 'ui://a b' } })).toMatchObject({ ok: false, field: '_meta.ui.resourceUri' });
    expect(readToolUi({ 'ui/resourceUri': 7 })).toMatchObject({ ok: false, field: '_meta["ui/resourceUri"]' });
    expect(readToolUi({ ui: [] })).toMatchObject({ ok: false, field: '_meta.ui' });
  });
});
