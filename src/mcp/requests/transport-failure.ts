/**
 * A request that failed below MCP, said as such: the HTTP status a server
 * refused it with, or the connection itself broken — never "not a valid MCP
 * result" (which is for answers), so a reset socket is a connection error
 * wherever it happens (a call, a list).
 */
import { AgtError } from '../../errors.js';
import { httpStatus } from '../auth/auth.js';

// Socket-level failures (a reset, a refused or broken connection), as Node and undici name them.
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/**
 * A request that failed below MCP: the HTTP status a server refused it with (431: headers too large; 413: body too
 * large), or the connection itself broken (a reset socket) — never "not a valid MCP result", which is for answers.
 */
export function transportFailure(error: unknown, what: string): AgtError | undefined {
  const status = httpStatus(error);
  if (status === 431 || status === 413)
    return new AgtError(
      'protocol_error',
      `the server refused the ${what} as too large (HTTP ${status}: ${status === 431 ? 'its headers, such as the Mcp-Param headers of the arguments' : 'its body'}); send less`,
      { details: { reason: status === 431 ? 'headers_too_large' : 'body_too_large', status } },
    );
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code))
      return new AgtError(
        'connection_closed',
        `the connection to the server broke during the ${what} (${code}); whether the server acted on it is unknown`,
        { details: { reason: 'network', errno: code }, cause: error },
      );
  }
  return undefined;
}
