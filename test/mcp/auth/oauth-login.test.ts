/**
 * OAuth login to a remote server against a real authorization server on loopback (the SDK's
 * auth router): loginMcp with a loopback redirect, storedOAuth for later connections, probes and runs,
 * refresh by itself, the state check, cancellation; the browser is driven by HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectMcp,
  McpProber,
  MemoryStore,
  MemoryTokenStore,
  NativeRun,
  policies,
  ResourceService,
  toolAlias,
} from '../../../src/index.js';
import { loginMcp } from '../../../src/mcp/auth/oauth-login.js';
import { storedOAuth } from '../../../src/mcp/auth/stored-oauth.js';
import { failure } from '../../support/index.js';
import { type OAuthServer, startOAuthServer } from '../fixtures/oauth-server.js';

let server: OAuthServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server.close());

const ref = { kind: 'mcp' as const, reference: 'remote/protected' };

/** A browser that follows the authorization URL to the loopback callback, as a user who consents. */
async function browse(url: URL, tamper?: (callback: URL) => void): Promise<number> {
  const consent = await fetch(url, { redirect: 'manual' });
  const callback = new URL(consent.headers.get('location') ?? '');
  tamper?.(callback);
  return (await fetch(callback)).status;
}

function login(tokens: MemoryTokenStore, onUrl: (url: URL) => void = (url) => void browse(url), signal?: AbortSignal) {
  return loginMcp(
    { mcpServers: { protected: { url: server.url } } },
    { server: ref, tokens, onAuthorizationUrl: onUrl, ...(signal ? { signal } : {}) },
  );
}

describe('loginMcp', () => {
  it('R7: authorization code with PKCE, dynamic registration and the resource indicator; only a completed login is stored', async () => {
    const tokens = new MemoryTokenStore();
    const state = await login(tokens);
    expect(state).toMatchObject({ loggedIn: true, refreshable: true, expired: false });
    expect(Date.parse(state.expiresAt ?? '')).toBeGreaterThan(Date.now());
    expect(await tokens.getClient(ref)).toMatchObject({ client_id: expect.any(String) });
    expect((await tokens.get(ref))?.resource).toBe(server.url);
    expect(server.provider.resources.at(-1)).toBe(server.url); // RFC 8707: the token is asked for this server
    // Later connections use the stored login: no browser, no new registration.
    const connection = await connectMcp({ url: server.url }, { auth: storedOAuth({ tokens })(ref) });
    expect(JSON.stringify((await connection.callTool('whoami', {})).content)).toContain('an authorized user');
    await connection.close();
  });

  it('R7: an expired access token is refreshed by itself, in probes and in runs (one storedOAuth setting)', async () => {
    const tokens = new MemoryTokenStore();
    await login(tokens);
    const before = (await tokens.get(ref))?.access_token;
    server.provider.expireAccessTokens();
    const refreshed = server.provider.refreshed;
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: ref.reference, create: true, data: { mcpServers: { protected: { url: server.url } } } });
    const report = await new McpProber({ service, auth: storedOAuth({ tokens }) }).probe(ref.reference);
    expect(report.tools.map((t) => t.name)).toEqual(['whoami']);
    expect(server.provider.refreshed).toBe(refreshed + 1);
    const after = await tokens.get(ref);
    expect(after?.access_token).not.toBe(before);
    expect(JSON.stringify(report)).not.toContain(after?.access_token);
    // A run with the same setting: its call goes through, refreshing the expired token first.
    server.provider.expireAccessTokens();
    await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: [ref.reference] } });
    const run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*'), auth: storedOAuth({ tokens }) });
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'b1',
      calls: [{ callId: 'w', name: toolAlias(ref.reference, 'whoami'), arguments: {} }],
    });
    expect(results[0]).toMatchObject({ status: 'ok', content: [{ type: 'text', text: 'an authorized user' }] });
    expect(server.provider.refreshed).toBe(refreshed + 2);
    await run.close();
  });

  it('R7: tokens are never sent to another URL: a changed config needs a new login', async () => {
    const tokens = new MemoryTokenStore();
    await login(tokens);
    let told = 0;
    const moved = `${server.url}?moved=1`;
    const f = await failure(connectMcp({ url: moved }, { auth: storedOAuth({ tokens, onLoginRequired: () => (told += 1) })(ref) }));
    expect(f).toMatchObject({ code: 'auth_required', details: { reason: 'authorization_pending' } });
    expect(told).toBe(1);
  });

  it('R7: a callback with a wrong state is refused and nothing is stored', async () => {
    const tokens = new MemoryTokenStore();
    let browsed: Promise<number> | undefined;
    const f = await failure(
      login(tokens, (url) => {
        browsed = browse(url, (callback) => callback.searchParams.set('state', 'forged'));
      }),
    );
    expect(f).toMatchObject({ code: 'auth_required', details: { reason: 'state_mismatch' } });
    expect(await browsed).toBe(400);
    expect(await tokens.get(ref)).toBeUndefined();
    expect(await tokens.getClient(ref)).toBeUndefined();
  });

  it('R7: a cancelled login (Ctrl-C) stores nothing and leaves no listener', async () => {
    const tokens = new MemoryTokenStore();
    const controller = new AbortController();
    let callback: URL | undefined;
    const f = await failure(
      login(
        tokens,
        (url) => {
          callback = url;
          controller.abort();
        },
        controller.signal,
      ),
    );
    expect(f.code).toBe('cancelled');
    expect(await tokens.get(ref)).toBeUndefined();
    const redirect = new URL(callback?.searchParams.get('redirect_uri') ?? '');
    await expect(fetch(new URL('/callback', redirect))).rejects.toThrow(); // the loopback listener is closed
  });

  it('R7: login is for remote servers', async () => {
    const f = await failure(
      loginMcp(
        { mcpServers: { local: { command: 'node', cwd: '/' } } },
        { server: ref, tokens: new MemoryTokenStore(), onAuthorizationUrl: () => undefined },
      ),
    );
    expect(f).toMatchObject({ code: 'invalid_input', details: { reason: 'not_remote' } });
  });
});

describe('storedOAuth', () => {
  it('R7: a refused refresh deletes only the login it read: one another process refreshed meanwhile stays', async () => {
    const tokens = new MemoryTokenStore();
    await tokens.put(ref, { access_token: 'at-old', token_type: 'bearer', refresh_token: 'rt-old' });
    const provider = storedOAuth({ tokens })(ref);
    expect((await provider.tokens())?.access_token).toBe('at-old');
    await tokens.put(ref, { access_token: 'at-new', token_type: 'bearer', refresh_token: 'rt-new' }); // the other process
    await provider.invalidateCredentials?.('tokens');
    expect((await tokens.get(ref))?.access_token).toBe('at-new');
    // With nothing newer stored, the dead login is forgotten.
    expect((await provider.tokens())?.access_token).toBe('at-new');
    await provider.invalidateCredentials?.('tokens');
    expect(await tokens.get(ref)).toBeUndefined();
  });
});
