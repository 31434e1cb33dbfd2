import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isAgtError } from '../../src/index.js';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { tempDir } from '../support/index.js';
import { pragma, rawSqlite } from '../support/sqlite.js';

describe('SqliteStore specifics', () => {
  let tmp: ReturnType<typeof tempDir>;
  afterEach(() => {
    tmp?.cleanup();
    vi.doUnmock('better-sqlite3');
    vi.resetModules();
  });

  it('uses WAL mode and records its schema version', async () => {
    tmp = tempDir();
    const file = path.join(tmp.dir, 'wal.db');
    const store = new SqliteStore({ path: file });
    await store.put({ kind: 'mcp', reference: 'a/b', data: { x: 1 } }, { expectedRevision: null });
    const raw = rawSqlite(file, { readonly: true });
    expect(pragma(raw, 'journal_mode')).toBe('wal');
    expect(pragma(raw, 'user_version')).toBe(2);
    raw.close();
    await store.close();
  });

  it('A4: migrate() creates the schema ahead of the first query, as PostgresStore.migrate() does; twice is harmless', async () => {
    tmp = tempDir();
    const file = path.join(tmp.dir, 'migrated.db');
    const store = new SqliteStore({ path: file });
    await store.migrate();
    await store.migrate();
    const raw = rawSqlite(file, { readonly: true });
    const tables = (raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
      (t) => t.name,
    );
    expect(tables).toContain('agt_resources');
    expect(pragma(raw, 'user_version')).toBe(2);
    raw.close();
    await store.close();
  });

  it('a missing better-sqlite3, asked for by name, gives store_unavailable with the install hint', async () => {
    vi.doMock('better-sqlite3', () => {
      throw new Error("Cannot find module 'better-sqlite3'");
    });
    vi.resetModules();
    const { SqliteStore: Fresh } = await import('../../src/storage/sqlite.js');
    const error = await new Fresh({ path: '/tmp/never.db', driver: 'better-sqlite3' }).get('mcp', 'a/b').catch((e: unknown) => e);
    expect(isAgtError(error) && error.code).toBe('store_unavailable');
    expect((error as Error).message).toMatch(/npm install better-sqlite3@12/);
  });

  it('an unusable file gives store_unavailable and nothing else is touched', async () => {
    tmp = tempDir();
    const notADb = path.join(tmp.dir, 'garbage.db');
    fs.writeFileSync(notADb, 'this is not a database'.repeat(100));
    const error = await new SqliteStore({ path: notADb }).list('agent').catch((e: unknown) => e);
    expect(isAgtError(error) && error.code).toBe('store_unavailable');
    expect(fs.readFileSync(notADb, 'utf8').startsWith('this is not a database')).toBe(true);
    const missingDir = await new SqliteStore({ path: path.join(tmp.dir, 'no/such/dir.db') }).list('agent').catch((e: unknown) => e);
    expect(isAgtError(missingDir) && missingDir.code).toBe('store_unavailable');
  });

  it('a closed store refuses further use', async () => {
    tmp = tempDir();
    const store = new SqliteStore({ path: path.join(tmp.dir, 'c.db') });
    await store.list('mcp');
    await store.close();
    await expect(store.list('mcp')).rejects.toMatchObject({ code: 'store_unavailable' });
  });
});
