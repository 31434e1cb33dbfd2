/**
 * MCP Apps: an interface as read from its server (`resources/read` of a
 * `ui://` URI), checked before a host renders it (U2): the item answering the
 * URI asked for, the MIME type `text/html;profile=mcp-app`, the size bounded,
 * and its security metadata (content-level `_meta.ui`, else the listing's)
 * checked entry by entry.
 */
import { isPlainObject } from '../../json.js';
import { MAX_APP_HTML_BYTES } from '../../bounds.js';
import type { ResourceContents } from '../connection-types.js';
import { type AppCsp, type AppPermissions, appMetaError, checkAppCsp, checkAppPermissions } from './csp.js';
import { APP_MIME_TYPE } from './ui-meta.js';

/** An interface, read and checked: its HTML and what its frame may do. */
export interface AppResource {
  uri: string;
  html: string;
  /** The CSP domains it asked for (checked; nothing else is ever allowed). */
  csp?: AppCsp;
  /** The browser permissions it asked for (checked). */
  permissions?: AppPermissions;
  /** A dedicated origin the server asks the host to render it on (the host decides). */
  domain?: string;
  /** Whether it asks for a visible border. */
  prefersBorder?: boolean;
}

/** True for the MCP Apps MIME type, in any case and spacing of its parameter. */
export function isAppMimeType(mime: unknown): boolean {
  return typeof mime === 'string' && mime.toLowerCase().replace(/\s+/g, '') === APP_MIME_TYPE;
}

/**
 * The interface `uri` from a server's answer to `resources/read`: protocol_error naming the field (reason
 * `app_invalid`, `app_type` or `app_too_large`) when the answer is not one. `listed`: the `_meta` of its
 * resources/list entry, used where the content item has no `_meta.ui`.
 */
export function appResourceOf(uri: string, answer: ResourceContents, options: { maxBytes?: number; listed?: unknown } = {}): AppResource {
  const maxBytes = options.maxBytes ?? MAX_APP_HTML_BYTES;
  const contents: unknown = (answer as { contents?: unknown } | undefined)?.contents;
  if (!Array.isArray(contents)) throw appMetaError('contents', 'must be a list');
  const item: unknown = contents.find((c) => isPlainObject(c) && c.uri === uri);
  if (!isPlainObject(item)) throw appMetaError('contents', 'hold no item for the URI asked for');
  if (!isAppMimeType(item.mimeType)) throw appMetaError('mimeType', `must be ${APP_MIME_TYPE}`, 'app_type');
  const html = htmlOf(item, maxBytes);
  const ui = uiOf(item._meta, 'contents[]._meta.ui') ?? uiOf(options.listed, 'resources/list _meta.ui') ?? { value: {}, field: '' };
  const meta = ui.value;
  const csp = checkAppCsp(meta.csp, `${ui.field}.csp`);
  const permissions = checkAppPermissions(meta.permissions, `${ui.field}.permissions`);
  if (meta.domain !== undefined && (typeof meta.domain !== 'string' || !/^[A-Za-z0-9.:/[\]*-]{1,300}$/.test(meta.domain)))
    throw appMetaError(`${ui.field}.domain`, 'must be a host name or origin');
  if (meta.prefersBorder !== undefined && typeof meta.prefersBorder !== 'boolean')
    throw appMetaError(`${ui.field}.prefersBorder`, 'must be true or false');
  return {
    uri,
    html,
    ...(csp === undefined ? {} : { csp }),
    ...(permissions === undefined ? {} : { permissions }),
    ...(meta.domain === undefined ? {} : { domain: meta.domain as string }),
    ...(meta.prefersBorder === undefined ? {} : { prefersBorder: meta.prefersBorder as boolean }),
  };
}

// The item's HTML: its text, or its blob decoded from base64 (UTF-8 only), at most maxBytes; never both (which is it?).
function htmlOf(item: Record<string, unknown>, maxBytes: number): string {
  const tooLarge = () => appMetaError('text', `is larger than ${maxBytes} bytes`, 'app_too_large');
  if (item.text !== undefined && item.blob !== undefined)
    throw appMetaError('blob', 'may not come with text (the HTML is one or the other)');
  if (typeof item.text === 'string') {
    if (item.text.length > maxBytes || Buffer.byteLength(item.text, 'utf8') > maxBytes) throw tooLarge();
    return item.text;
  }
  if (typeof item.blob === 'string') {
    if (item.blob.length > Math.ceil(maxBytes / 3) * 4 + 4) throw tooLarge();
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(item.blob)) throw appMetaError('blob', 'must be base64');
    const bytes = Buffer.from(item.blob, 'base64');
    if (bytes.length > maxBytes) throw tooLarge();
    try {
      return UTF8.decode(bytes); // not a guess: bytes that are no UTF-8 are refused, not shown as U+FFFD
    } catch {
      throw appMetaError('blob', 'must be UTF-8 HTML');
    }
  }
  throw appMetaError('text', 'must be the HTML (text, or a base64 blob)');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

// A `_meta.ui` object where `meta` has one; undefined when it has none; an error when it is no object.
function uiOf(meta: unknown, field: string): { value: Record<string, unknown>; field: string } | undefined {
  if (!isPlainObject(meta) || meta.ui === undefined) return undefined;
  if (!isPlainObject(meta.ui)) throw appMetaError(field, 'must be an object');
  return { value: meta.ui, field };
}
