/**
 * What a remote MCP config may send (R7), checked when it is written and again
 * after its placeholders are expanded at connect: an http(s) URL, and headers
 * whose names are HTTP tokens and whose values cannot split a request.
 * Messages never contain a value.
 */
import { PLACEHOLDER } from './placeholders.js';
import { MAX_HEADER_VALUE } from '../bounds.js';

/**
 * A URL with placeholders, as it is checked before expansion: stand-ins (a default where one is written);
 * undefined when its origin is a bare variable (`${BASE}/mcp`): that one is checked after expansion, at connect.
 */
export function withPlaceholderStandIns(url: string): string | undefined {
  if (!url.includes('${')) return url;
  if (/^\$\{(?![^}]*:-)/.test(url)) return undefined;
  return url.replace(PLACEHOLDER, (_whole, expression: string) => {
    const at = expression.indexOf(':-');
    return at === -1 ? 'x' : expression.slice(at + 2);
  });
}

/** Why a URL cannot be used, or undefined when it is a well-formed http(s) URL. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a well-formed URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must use http or https';
  return undefined;
}

/** Longest header value a config may send (a bound before anything is sent). */
export { MAX_HEADER_VALUE };

/** What is wrong with a header of a remote config, if anything: a name that is no HTTP token, a value that could split the request or is too long. Never names the value. */
export function headerProblem(name: string, value: string): string | undefined {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,128}$/.test(name))
    return "the header name must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~)";
  if (/[\r\n\0]/.test(value)) return 'the header value must not contain a line break or NUL (it would split the request)';
  if (value.length > MAX_HEADER_VALUE) return `the header value is longer than ${MAX_HEADER_VALUE} characters`;
  // HTTP sends a header value as bytes (latin-1): fetch refuses anything else at connect, with no word of which header.
  if (/[^\t\x20-\x7e\x80-\xff]/.test(value))
    return 'the header value must be a byte string: tab, printable ASCII or latin-1 (U+0080–U+00FF) only; percent-encode or base64 other text';
  return undefined;
}
