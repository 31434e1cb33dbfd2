/**
 * A kit tool's interface (MCP Apps, extension `io.modelcontextprotocol/ui`):
 * what `defineTool({ app })` takes, checked at definition time. The HTML is
 * given inline (`html`) or read once from a file (`file`, relative to the
 * working directory), at most MAX_APP_HTML_BYTES; the CSP domains and
 * permissions are checked entry by entry as a host checks them (U2), so a
 * server never publishes an interface a careful host would refuse. Every
 * problem is invalid_input naming its field (`app.file`, `app.csp.…`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { AgtError, isAgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { outsideText } from '../outside-text.js';
import { MAX_APP_HTML_BYTES } from '../bounds.js';
import { type AppCsp, type AppPermissions, checkAppCsp, checkAppPermissions } from '../mcp/apps/csp.js';
import { type AppVisibility, uriProblem } from '../mcp/apps/ui-meta.js';

/** A tool's interface as its definition gives it: exactly one of `html` and `file`, and what its frame may do. */
export interface ToolApp {
  /** The interface's HTML (one self-contained page: the host renders it in a sandboxed frame). */
  html?: string;
  /** A file holding the HTML, read once at definition time (relative to the working directory, or absolute). */
  file?: string;
  /** The origins the page may reach (fetch, scripts, frames …); nothing else is allowed. */
  csp?: AppCsp;
  /** The browser permissions the page asks for (camera, microphone, geolocation, clipboardWrite). */
  permissions?: AppPermissions;
  /** Who may call the tool: the model, the app (its own or another tool's), or both (default). */
  visibility?: AppVisibility[];
  /** The interface's `ui://` URI. Default `ui://<server name>/<tool name>` (see {@link defaultAppUri}). */
  uri?: string;
  /** Asks the host for a visible border around the frame. */
  prefersBorder?: boolean;
  /** A dedicated origin the server asks the host to render the page on (the host decides). */
  domain?: string;
}

/** A tool's interface once defined: the HTML read, everything checked. */
export interface DefinedApp {
  readonly html: string;
  readonly csp?: Readonly<AppCsp>;
  readonly permissions?: Readonly<AppPermissions>;
  readonly visibility?: readonly AppVisibility[];
  /** As given; absent: the server's default ({@link defaultAppUri}). */
  readonly uri?: string;
  readonly prefersBorder?: boolean;
  readonly domain?: string;
}

const FIELDS = new Set(['html', 'file', 'csp', 'permissions', 'visibility', 'uri', 'prefersBorder', 'domain']);

/** The URI a tool's interface has when its definition names none: `ui://<server name>/<tool name>` (the name's other characters as `-`; `kit` when none is left). */
export function defaultAppUri(serverName: string, tool: string): string {
  const host = serverName
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 64);
  return `ui://${host === '' ? 'kit' : host}/${tool}`;
}

/** Why `uri` cannot name a served interface; undefined: it can (a ui:// URI the SDK finds again as given). */
export function servedUriProblem(uri: unknown): string | undefined {
  const problem = uriProblem(uri);
  if (problem !== undefined) return problem;
  try {
    if (new URL(uri as string).toString() !== uri) return 'must be a URI in normal form (no "..", "." or escapes the URL parser rewrites)';
  } catch {
    return 'must be a valid URI';
  }
  return undefined;
}

/** Checks `app` of the tool `tool` (see the module comment); the defined interface, frozen. */
export function defineApp(tool: string, given: unknown): DefinedApp {
  const fail: Fail = (field, message) => {
    const named = field === '' ? 'app' : `app.${field}`;
    return new AgtError('invalid_input', `tool "${outsideText(tool, { max: 128 })}": ${named} ${message}`, { details: { field: named } });
  };
  if (!isPlainObject(given)) throw fail('', 'must be an object');
  const app = plainCopy(given, fail); // read once: what is checked is what is kept (a getter or a Proxy answers once)
  for (const key of Object.keys(app))
    if (!FIELDS.has(key)) throw fail(outsideText(key, { max: 64 }), `is not an app option (${[...FIELDS].join(', ')})`);
  if (app.html !== undefined && app.file !== undefined)
    throw fail('html', 'and app.file are both given: give exactly one (the HTML, or the file that holds it)');
  if (app.html === undefined && app.file === undefined) throw fail('html', 'or app.file is needed (the HTML, or the file that holds it)');
  const html = app.html !== undefined ? inlineHtml(app.html, fail) : fileHtml(app.file, fail);
  const csp = checked(() => checkAppCsp(app.csp, 'app.csp'), tool);
  const permissions = checked(() => checkAppPermissions(app.permissions, 'app.permissions'), tool);
  const visibility = app.visibility;
  if (
    visibility !== undefined &&
    (!Array.isArray(visibility) || visibility.length === 0 || !visibility.every((v) => v === 'model' || v === 'app'))
  )
    throw fail('visibility', 'must be a non-empty list of "model" and/or "app"');
  const uriIssue = app.uri === undefined ? undefined : servedUriProblem(app.uri);
  if (uriIssue !== undefined) throw fail('uri', uriIssue);
  if (app.prefersBorder !== undefined && typeof app.prefersBorder !== 'boolean') throw fail('prefersBorder', 'must be true or false');
  if (app.domain !== undefined && (typeof app.domain !== 'string' || !/^[A-Za-z0-9.:/[\]*-]{1,300}$/.test(app.domain)))
    throw fail('domain', 'must be a host name or origin');
  return Object.freeze({
    html,
    ...(csp === undefined ? {} : { csp: Object.freeze(csp) }),
    ...(permissions === undefined ? {} : { permissions: Object.freeze(permissions) }),
    ...(visibility === undefined ? {} : { visibility: Object.freeze([...new Set(visibility as AppVisibility[])]) }),
    ...(app.uri === undefined ? {} : { uri: app.uri as string }),
    ...(app.prefersBorder === undefined ? {} : { prefersBorder: app.prefersBorder }),
    ...(app.domain === undefined ? {} : { domain: app.domain as string }),
  });
}

type Fail = (field: string, message: string) => AgtError;

// A data copy of the definition (own enumerable keys, getters read once); a function, a Proxy or a symbol is no data.
function plainCopy(app: Record<string, unknown>, fail: Fail): Record<string, unknown> {
  try {
    return structuredClone(app);
  } catch {
    throw fail('', 'must be plain data (no functions or proxies)');
  }
}

function inlineHtml(html: unknown, fail: Fail): string {
  if (typeof html !== 'string' || html.trim() === '') throw fail('html', 'must be the page (a non-empty string)');
  if (Buffer.byteLength(html, 'utf8') > MAX_APP_HTML_BYTES) throw fail('html', `is larger than ${MAX_APP_HTML_BYTES} bytes`);
  return html;
}

// The file's HTML: bounded before it is read whole, and UTF-8.
function fileHtml(file: unknown, fail: Fail): string {
  if (typeof file !== 'string' || file === '') throw fail('file', 'must be a path');
  const where = outsideText(file, { max: 200 });
  let fd: number;
  try {
    // Non-blocking: a FIFO (or a device) given as the file is refused below instead of waiting for a writer forever.
    fd = fs.openSync(path.resolve(file), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fail('file', code === 'ENOENT' ? `"${where}" does not exist` : `"${where}" cannot be read (${code ?? 'error'})`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw fail('file', `"${where}" is not a file`);
    if (stat.size > MAX_APP_HTML_BYTES) throw fail('file', `"${where}" is larger than ${MAX_APP_HTML_BYTES} bytes`);
    const bytes = Buffer.alloc(stat.size);
    const read = fs.readSync(fd, bytes, 0, stat.size, 0);
    let html: string;
    try {
      html = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, read));
    } catch {
      throw fail('file', `"${where}" is not UTF-8`); // a host reads the page as UTF-8: replaced bytes would be another page
    }
    if (html.trim() === '') throw fail('file', `"${where}" is empty`);
    return html;
  } finally {
    fs.closeSync(fd);
  }
}

// A check of csp.ts (protocol_error, as a host reports a server's metadata) as a definition error: invalid_input, the same field.
function checked<T>(check: () => T, tool: string): T {
  try {
    return check();
  } catch (error) {
    if (!isAgtError(error)) throw error;
    const field = typeof error.details?.field === 'string' ? error.details.field : 'app';
    throw new AgtError('invalid_input', `tool "${outsideText(tool, { max: 128 })}": ${error.message.replace(/^the interface's /, '')}`, {
      details: { field },
    });
  }
}
