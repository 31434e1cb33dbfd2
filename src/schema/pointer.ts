/**
 * JSON Pointer helpers (RFC 6901), and conversion from cfworker's URI-fragment
 * locations (`#/a%20b/~1x`) to plain pointers (`/a b//x` escaped as `/a b/~1x`).
 */

/** Escapes one reference token. */
export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Appends one token to a pointer. */
export function appendPointer(pointer: string, token: string): string {
  return `${pointer}/${escapeToken(token)}`;
}

/** Splits a plain JSON Pointer into its unescaped tokens. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Joins tokens into a plain JSON Pointer. */
export function tokensToPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${escapeToken(t)}`).join('');
}

/**
 * Unescaped tokens of a cfworker location: a `#`-prefixed URI fragment whose
 * tokens are pointer-escaped, then URI-encoded.
 */
export function fragmentTokens(location: string): string[] {
  const body = location.startsWith('#') ? location.slice(1) : location;
  if (body === '') return [];
  return body
    .slice(1)
    .split('/')
    .map((t) => safeDecode(t).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Converts a cfworker location into a plain JSON Pointer. */
export function fragmentToPointer(location: string): string {
  return tokensToPointer(fragmentTokens(location));
}

function safeDecode(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}
