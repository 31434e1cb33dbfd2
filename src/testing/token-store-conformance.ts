/**
 * tokenStoreConformanceSuite: one contract test for every TokenStore adapter,
 * ours and a host's own. Registers cases through your test function and
 * asserts with node:assert.
 *
 * ```ts
 * tokenStoreConformanceSuite(() => new MyTokenStore(), { test: it });
 * ```
 */
import assert from 'node:assert/strict';
import type { StoredTokens, TokenStore } from '../mcp/auth/token-store.js';
import type { RunStoreConformanceOptions } from './run-store-conformance.js';
import { caseRegistrar } from './store-conformance.js';

const a = { kind: 'mcp' as const, reference: 'remote/a' };
const b = { kind: 'mcp' as const, reference: 'remote/b' };
const tokens = (n: number): StoredTokens => ({
  access_token: `at-${n}`,
  token_type: 'bearer',
  expires_in: 3600,
  refresh_token: `rt-${n}`,
  saved_at: 1_700_000_000_000 + n,
  resource: 'https://mcp.example.test/mcp',
});

/** Registers the TokenStore contract cases for stores made by `factory` (a fresh, empty store per case). */
export function tokenStoreConformanceSuite(
  factory: () => TokenStore | Promise<TokenStore>,
  options: Omit<RunStoreConformanceOptions, 'contenders'>,
): void {
  const run = caseRegistrar(factory as () => TokenStore & { close?(): Promise<void> }, options, options.label ?? 'TokenStore');

  run('get of a server never logged in is undefined; delete of it is false', async (store) => {
    assert.equal(await store.get(a), undefined);
    assert.equal(await store.getClient(a), undefined);
    assert.equal(await store.delete(a), false);
  });

  run('put then get gives the tokens back with every field; a put replaces them (a refresh)', async (store) => {
    await store.put(a, tokens(1));
    assert.deepEqual(await store.get(a), tokens(1));
    await store.put(a, tokens(2));
    assert.deepEqual(await store.get(a), tokens(2));
    assert.equal(await store.get(b), undefined);
  });

  run('the client registration is kept beside the tokens, and delete forgets both', async (store) => {
    await store.putClient(a, { client_id: 'c-1', redirect_uris: ['http://127.0.0.1:1/callback'] });
    await store.put(a, tokens(1));
    assert.deepEqual(await store.getClient(a), { client_id: 'c-1', redirect_uris: ['http://127.0.0.1:1/callback'] });
    assert.deepEqual(await store.get(a), tokens(1)); // storing the client did not touch the tokens, nor the reverse
    assert.equal(await store.delete(a), true);
    assert.equal(await store.get(a), undefined);
    assert.equal(await store.getClient(a), undefined);
  });

  run('the authorization server a login and a registration were issued by (their issuer stamp) is kept (SEP-2352)', async (store) => {
    // The SDK stamps both with the issuer and discards them when the server names another authorization server.
    const issued = { ...tokens(3), issuer: 'https://auth.example.test' } as StoredTokens;
    await store.put(a, issued);
    // The SDK's client type leaves out the issuer it stamps: a client with one is still one.
    const stamped = { client_id: 'c-9', redirect_uris: ['http://127.0.0.1:1/callback'], issuer: 'https://auth.example.test' };
    await store.putClient(a, stamped);
    assert.equal(((await store.get(a)) as { issuer?: unknown } | undefined)?.issuer, 'https://auth.example.test');
    assert.equal(((await store.getClient(a)) as { issuer?: unknown } | undefined)?.issuer, 'https://auth.example.test');
  });

  run('what get returns is a copy: changing it changes nothing stored', async (store) => {
    await store.put(a, tokens(1));
    const got = await store.get(a);
    if (got !== undefined) got.access_token = 'changed';
    assert.equal((await store.get(a))?.access_token, 'at-1');
  });
}
