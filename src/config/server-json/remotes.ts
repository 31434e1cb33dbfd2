/**
 * A server.json remote as a remote config: its URL, its `{variables}` filled
 * in (each an input of its own), and its headers. Streamable HTTP and SSE;
 * anything else is refused by name.
 */
import { outsideText } from '../../outside-text.js';
import { type InputScope, inputValue, KNOWN_KEYS, listField, unknownKeys, objectField, serverJsonError, stringField } from './inputs.js';

/** A remote's config and what it was made from. */
export interface RemoteImport {
  config: { url: string; headers?: Record<string, string>; transport?: 'sse' };
  source: { kind: 'remote'; type: 'streamable-http' | 'sse'; url: string };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

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
  const url = inputValue({ value: written, variables: entry.variables }, 'url', field, scope) as string;
  const headers: Record<string, string> = {};
  for (const [i, raw] of listField(entry.headers, `${field}.headers`).entries()) {
    const at = `${field}.headers[${i}]`;
    const header = objectField(raw, at);
    unknownKeys(header, KNOWN_KEYS.keyValue, at, scope);
    const name = stringField(header.name, `${at}.name`);
    if (name === undefined || !HEADER_NAME.test(name))
      throw serverJsonError(`${at}.name`, 'must be an HTTP header name', 'bad_header_name');
    const value = inputValue(header, name, at, scope);
    if (value !== undefined) headers[name] = value;
  }
  return {
    config: { url, ...(Object.keys(headers).length > 0 ? { headers } : {}), ...(type === 'sse' ? { transport: 'sse' as const } : {}) },
    source: { kind: 'remote', type, url: outsideText(written, { max: 200 }) },
  };
}
