/**
 * A server.json remote as a remote config: its URL, its `{variables}` filled
 * in (each an input of its own), and its headers. Streamable HTTP and SSE;
 * anything else is refused by name.
 */
import { setOwn } from '../../json.js';
import { outsideText } from '../../outside-text.js';
import { maskSecretText } from '../../secret-rule.js';
import {
  type InputScope,
  inputValue,
  KNOWN_KEYS,
  listField,
  unknownKeys,
  objectField,
  serverJsonError,
  stringField,
  urlValue,
} from './inputs.js';

/** A remote's config and what it was made from. */
export interface RemoteImport {
  config: { url: string; headers?: Record<string, string>; transport?: 'sse' };
  source: { kind: 'remote'; type: 'streamable-http' | 'sse'; url: string };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A remote's URL as shown (its source, the alternatives): one line, bounded, a password and secret-named parameters `***`. */
export function shownUrl(url: string): string {
  return outsideText(maskSecretText(url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, '$1:***@')), { max: 200 });
}

/** The remote config of one server.json remote; invalid_input for a transport agt does not speak or a malformed field. */
export function remoteConfig(entry: Record<string, unknown>, field: string, scope: InputScope): RemoteImport {
  const type = entry.type;
  if (type !== 'streamable-http' && type !== 'sse')
    throw serverJsonError(
      `${field}.type`,
      `"${outsideText(type, { max: 40 })}" is not a remote transport agt speaks (streamable-http, sse)`,
      'unsupported_transport',
    );
  unknownKeys(entry, KNOWN_KEYS.remote, field, scope);
  const written = stringField(entry.url, `${field}.url`);
  if (written === undefined) throw serverJsonError(`${field}.url`, 'is missing', 'missing_url');
  // The URL is a value whose `{name}`s are the remote's variables (schema 2025-12-11).
  const url = urlValue(written, entry.variables, field, scope);
  const headers: Record<string, string> = {};
  for (const [i, raw] of listField(entry.headers, `${field}.headers`).entries()) {
    const at = `${field}.headers[${i}]`;
    const header = objectField(raw, at);
    unknownKeys(header, KNOWN_KEYS.keyValue, at, scope);
    const name = stringField(header.name, `${at}.name`);
    if (name === undefined || !HEADER_NAME.test(name))
      throw serverJsonError(`${at}.name`, 'must be an HTTP header name', 'bad_header_name');
    const value = inputValue(header, name, at, scope);
    if (value !== undefined) setOwn(headers, name, value); // "__proto__" is a name like any other
  }
  return {
    config: { url, ...(Object.keys(headers).length > 0 ? { headers } : {}), ...(type === 'sse' ? { transport: 'sse' as const } : {}) },
    source: { kind: 'remote', type, url: shownUrl(written) },
  };
}
