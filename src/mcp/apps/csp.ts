/**
 * MCP Apps: an interface's security metadata — the CSP domains it asks for and
 * the browser permissions — checked entry by entry (U2). A malformed or
 * over-broad entry (`*`, `https://*`, `*.com`, a path, a quote or `;` that
 * would end the directive) is an error naming its field; nothing undeclared is
 * ever added. And the two things a web host builds from them: the CSP header
 * of the sandbox frame and its `allow` attribute.
 */
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { MAX_APP_CSP_DOMAINS } from '../../bounds.js';
import { outsideText } from '../../outside-text.js';

/** The CSP domains an interface asks for, by directive. */
export interface AppCsp {
  /** fetch, XHR and WebSocket targets (connect-src). */
  connectDomains?: string[];
  /** scripts, styles, images, fonts and media (script-src, style-src, img-src, font-src, media-src). */
  resourceDomains?: string[];
  /** nested frames (frame-src). */
  frameDomains?: string[];
  /** the document's base URI (base-uri). */
  baseUriDomains?: string[];
}

/** The browser permissions an interface asks for (each `{}` when asked). */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS: Readonly<Record<keyof AppPermissions, string>> = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write',
};
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
// A server's key in a field name (an unknown CSP field or permission): one line, escaped, bounded.
const keyWords = (key: string) => outsideText(key, { max: 64 });
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** An interface's metadata was refused: `field` names the entry. */
export function appMetaError(field: string, message: string, reason = 'app_invalid'): AgtError {
  return new AgtError('protocol_error', `the interface's ${field} ${message}`, { details: { reason, field } });
}

/** Why `domain` is no CSP source an interface may ask for; undefined: it is one (an https or wss origin, http or ws on loopback). */
export function domainProblem(domain: unknown): string | undefined {
  if (typeof domain !== 'string') return 'must be a string';
  if (domain.length > 300) return 'is too long';
  const m = /^(https|wss|http|ws):\/\/(\[::1\]|[^/:?#\s[\]]+)(?::(\d{1,5}))?$/.exec(domain);
  if (m === null) return 'must be an origin like https://api.example.com (a scheme and a host, no path)';
  const [, scheme, host = '', port] = m;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return 'has a port out of range';
  const secure = scheme === 'https' || scheme === 'wss';
  if (LOOPBACK.has(host)) return undefined;
  if (!secure) return 'may use http or ws only on loopback (localhost, 127.0.0.1)';
  const labels = host.split('.');
  const wild = labels[0] === '*';
  const named = wild ? labels.slice(1) : labels;
  if (!named.every((l) => LABEL.test(l))) return 'has a malformed host';
  if (named.length < 2)
    return wild ? 'is too broad (a wildcard needs a registered domain: https://*.example.com)' : 'must name a full host';
  return undefined;
}

/** Checks an interface's `csp` (`field`: where it was read); the checked copy, or an error naming the bad entry. */
export function checkAppCsp(value: unknown, field = '_meta.ui.csp'): AppCsp | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw appMetaError(field, 'must be an object');
  const out: AppCsp = {};
  for (const key of Object.keys(value)) {
    if (!(CSP_FIELDS as readonly string[]).includes(key))
      throw appMetaError(`${field}.${keyWords(key)}`, `is not a CSP field (${CSP_FIELDS.join(', ')})`);
    const list = value[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw appMetaError(`${field}.${key}`, 'must be a list of origins');
    if (list.length > MAX_APP_CSP_DOMAINS) throw appMetaError(`${field}.${key}`, `may list at most ${MAX_APP_CSP_DOMAINS} origins`);
    const entries: unknown[] = Array.from(list); // each entry read once: what is checked is what is kept
    entries.forEach((domain, i) => {
      const problem = domainProblem(domain);
      if (problem !== undefined) throw appMetaError(`${field}.${key}[${i}]`, problem);
    });
    out[key as (typeof CSP_FIELDS)[number]] = [...new Set(entries as string[])];
  }
  return out;
}

/** Checks an interface's `permissions`; the checked copy, or an error naming the bad entry. */
export function checkAppPermissions(value: unknown, field = '_meta.ui.permissions'): AppPermissions | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw appMetaError(field, 'must be an object');
  const out: AppPermissions = {};
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(PERMISSIONS, key))
      throw appMetaError(`${field}.${keyWords(key)}`, `is not a permission (${Object.keys(PERMISSIONS).join(', ')})`);
    const asked = value[key];
    if (asked === undefined) continue;
    if (!isPlainObject(asked) || Object.keys(asked).length > 0) throw appMetaError(`${field}.${key}`, 'must be {} when asked for');
    out[key as keyof AppPermissions] = {};
  }
  return out;
}

/**
 * The Content-Security-Policy of an interface's frame: nothing but the page itself (inline script and style, data
 * images), plus exactly the declared domains. Give it as an HTTP header of the sandbox page, not a meta tag.
 */
export function appCspHeader(csp: AppCsp | undefined): string {
  const checked = checkAppCsp(csp, 'csp') ?? {};
  const resources = (checked.resourceDomains ?? []).join(' ');
  const withRes = (base: string) => (resources ? `${base} ${resources}` : base);
  const listOr = (list: string[] | undefined, none: string) => (list && list.length > 0 ? list.join(' ') : none);
  return [
    "default-src 'none'",
    `script-src ${withRes("'self' 'unsafe-inline'")}`,
    `style-src ${withRes("'self' 'unsafe-inline'")}`,
    `img-src ${withRes("'self' data:")}`,
    `font-src ${withRes("'self'")}`,
    `media-src ${withRes("'self' data:")}`,
    `connect-src ${listOr(checked.connectDomains, "'none'")}`,
    `frame-src ${listOr(checked.frameDomains, "'none'")}`,
    `base-uri ${listOr(checked.baseUriDomains, "'self'")}`,
    "object-src 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The `allow` attribute of an interface's frame: only the permissions it asked for ('' when none). */
export function appAllowAttribute(permissions: AppPermissions | undefined): string {
  const checked = checkAppPermissions(permissions, 'permissions') ?? {};
  return Object.keys(checked)
    .map((key) => PERMISSIONS[key as keyof AppPermissions])
    .join('; ');
}
