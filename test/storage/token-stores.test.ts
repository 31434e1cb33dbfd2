/** TokenStore: the shared contract on every adapter (memory, SQLite, PostgreSQL), subjects kept apart (R7 logins). */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../src/index.js';
import { loginState } from '../../src/adapters.js';
import { PostgresTokenStore } from '../../src/storage/postgres.js';
import { SqliteTokenStore } from '../../src/storage/sqlite.js';
import { tokenStoreConformanceSuite } from '../../src/testing/index.js';
import { FileTokenStore } from '../../src/cli/store-files/token-file.js';
import { tempDir } from '../support/index.js';

const tmp = tempDir('agt-tokens-');
afterAll(() => tmp.cleanup());
let files = 0;
const file = () => path.join(tmp.dir, `tokens-${files++}.db`);

tokenStoreConformanceSuite(() => new MemoryTokenStore(), { test: it, label: 'MemoryTokenStore' });
tokenStoreConformanceSuite(() => new SqliteTokenStore({ path: file() }), { test: it, label: 'SqliteTokenStore' });
tokenStoreConformanceSuite(() => new FileTokenStore(`${file()}.tokens.json`), { test: it, label: 'FileTokenStore (the CLI)' });

const url = process.env.AGT_TEST_PG_URL;
const why = url ? '' : ' (skipped: AGT_TEST_PG_URL is not set; .ci/run starts a throwaway PostgreSQL)';
let tables = 0;
describe.skipIf(!url)(`PostgresTokenStore${why}`, () => {
  tokenStoreConformanceSuite(
    async () => {
      const store = new PostgresTokenStore({ connectionString: url as string, table: `agt_tokens_t${process.pid}_${tables++}` });
      await store.migrate();
      return store;
    },
    { test: it, label: 'PostgresTokenStore' },
  );
});

describe('TokenStore subjects and login state', () => {
  it("R7: two subjects in one SQLite file never see each other's logins", async () => {
    const shared = file();
    const alice = new SqliteTokenStore({ path: shared, subject: 'alice' });
    const bob = new SqliteTokenStore({ path: shared, subject: 'bob' });
    const server = { kind: 'mcp' as const, reference: 'remote/x' };
    await alice.put(server, { access_token: 'at-alice', token_type: 'bearer' });
    expect(await bob.get(server)).toBeUndefined();
    expect(await bob.delete(server)).toBe(false);
    expect((await alice.get(server))?.access_token).toBe('at-alice');
    await alice.close();
    await bob.close();
  });

  it('R7: loginState says until when, never the token', () => {
    const state = loginState(
      { access_token: 'at-secret', token_type: 'bearer', expires_in: 60, saved_at: 0, refresh_token: 'rt-secret' },
      120_000,
    );
    expect(state).toEqual({ loggedIn: true, expiresAt: new Date(60_000).toISOString(), expired: true, refreshable: true });
    expect(JSON.stringify(state)).not.toContain('secret');
    expect(loginState(undefined)).toEqual({ loggedIn: false });
  });
});
