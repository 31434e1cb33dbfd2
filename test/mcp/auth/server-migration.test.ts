/**
 * SEP-2352 (2026-07-28 authorization): when the protected resource moves to
 * another authorization server, a 401 from the server to a request that
 * carried a token drops the OAuth provider's cached discovery, so the SDK's
 * flow reads the resource metadata again and registers at the new server.
 * The whole flow is proven by the conformance scenario
 * auth/authorization-server-migration (conformance-2026.test.ts); this is the
 * rule on a real loopback server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authTransportOptions, type McpOAuthProvider } from '../../../src/mcp/auth/auth.js';

let base = '';
const server = createServer((req, res) => {
  const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
  res.writeHead(status).end();
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function provider(dropped: string[]): McpOAuthProvider {
  return {
    get redirectUrl() {
      return 'http://127.0.0.1/callback';
    },
    get clientMetadata() {
      return { redirect_uris: ['http://127.0.0.1/callback'] };
    },
    clientInformation: () => undefined,
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: () => undefined,
    saveCodeVerifier: () => undefined,
    codeVerifier: () => '',
    invalidateCredentials: (scope) => void dropped.push(scope),
  };
}

describe('SEP-2352: a 401 after a token was sent makes the next authorization discover the resource again', () => {
  it('R7: only a 401 of the server itself, to a request that carried a token, drops the cached discovery', async () => {
    const dropped: string[] = [];
    const serverUrl = new URL(`${base}/mcp?status=401`);
    const { fetch: wrapped } = authTransportOptions(provider(dropped), undefined, serverUrl);
    const withToken = { headers: { Authorization: 'Bearer old-token' } };
    await wrapped!(`${base}/mcp?status=401`, {}); // no token sent: a first authorization, nothing cached to doubt
    await wrapped!(`${base}/mcp?status=403`, withToken); // a step-up at the same server
    await wrapped!(`${base}/token?status=401`, withToken); // not the resource server
    expect(dropped).toEqual([]);
    const response = await wrapped!(serverUrl, withToken);
    expect(response.status).toBe(401); // handed on unchanged: the SDK's transport runs the flow
    expect(dropped).toEqual(['discovery']);
  });
});
