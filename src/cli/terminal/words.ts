/**
 * The CLI's own words for errors whose library message names library options
 * (connectMcp, `auth`): what to type instead. Everything else is said as the
 * library says it.
 */
import type { AgtError } from '../../errors.js';

/** The message the CLI prints for `error`. */
export function cliMessage(error: AgtError): string {
  if (error.code !== 'auth_required') return error.message;
  const http = typeof error.details?.status === 'number' ? ` (HTTP ${error.details.status})` : '';
  const update = 'agt mcp update REF --header "Authorization: Bearer ${TOKEN}" (the token then comes from the environment variable TOKEN)';
  switch (error.details?.credentials) {
    case 'none':
      return `the server requires authorization${http}: log in with agt mcp login REF (OAuth), or store an Authorization header with it: ${update}`;
    case 'oauth':
      return error.details?.reason === 'authorization_pending'
        ? `the server needs a login${http}: the stored one is missing, expired beyond refresh, or for another URL; run agt mcp login REF`
        : error.message;
    case 'header':
      return `the server rejected the Authorization header stored with it${http}: check the token (expired, wrong audience or scope) and replace it: ${update}`;
    default:
      return error.message;
  }
}
