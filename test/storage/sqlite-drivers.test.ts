/**
 * The SQLite driver seam: every SQLite store passes the exported
 * conformance suites on each driver this runtime has — node:sqlite (Node ≥
 * 22.13, nothing native), better-sqlite3 (the optional peer) — and the file
 * format is one: a file written through one driver opens through the other,
 * both ways, while the other still has it open. CI runs this file on Node 20
 * (better-sqlite3) and on Node 24 (node:sqlite, and better-sqlite3 built for
 * it), so each driver and the cross-driver test run somewhere.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAgtError } from '../../src/index.js';
import { SqliteAuditStore, SqliteRunStore, SqliteStore, SqliteTokenStore } from '../../src/storage/sqlite.js';
import { type SqliteDriver, sqliteDriver } from '../../src/storage/sqlite-driver.js';
import {
  auditStoreConformanceSuite,
  runStoreConformanceSuite,
  storeConformanceSuite,
  tokenStoreConformanceSuite,
} from '../../src/testing/index.js';
import { tempDir } from '../support/index.js';
import { availableDrivers, pragma, rawDriver, rawSqlite } from '../support/sqlite.js';

const tmp = tempDir('agt-drivers-');
afterAll(() => tmp.cleanup());
let files = 0;
const file = () => path.join(tmp.dir, `d-${files++}.db`);
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const hasNodeSqlite = major > 22 || (major === 22 && minor >= 13);

for (const driver of ['node:sqlite', 'better-sqlite3'] as const) {
  const here = availableDrivers.includes(driver);
  const why = here
    ? ''
    : driver === 'node:sqlite'
      ? ` (skipped: Node ${process.version} has no node:sqlite; CI's Node 24 run covers it)`
      : ` (skipped: better-sqlite3 is not built for Node ${process.version} here; CI builds it for Node 24 too)`;
  describe.skipIf(!here)(`the SQLite stores on ${driver}${why}`, () => {
    storeConformanceSuite(() => new SqliteStore({ path: file(), driver }), { test: it, label: `SqliteStore on ${driver}` });
    runStoreConformanceSuite(() => new SqliteRunStore({ path: file(), driver }), { test: it, label: `SqliteRunStore on ${driver}` });
    auditStoreConformanceSuite(() => new SqliteAuditStore({ path: file(), driver }), { test: it, label: `SqliteAuditStore on ${driver}` });
    tokenStoreConformanceSuite(() => new SqliteTokenStore({ path: file(), driver }), { test: it, label: `SqliteTokenStore on ${driver}` });
  });
}

const both = availableDrivers.includes('node:sqlite') && availableDrivers.includes('better-sqlite3');
describe('one file format', () => {
  it.skipIf(!both)(
    `a file written through one driver opens through the other, both ways, while the first has it open${both ? '' : " (skipped: needs node:sqlite and better-sqlite3 in one runtime: CI's Node 24 run)"}`,
    async () => {
      const shared = file();
      const a = new SqliteStore({ path: shared, driver: 'better-sqlite3' });
      const b = new SqliteStore({ path: shared, driver: 'node:sqlite' });
      const first = await a.put({ kind: 'mcp', reference: 'x/one', data: { url: 'http://127.0.0.1:1/mcp' } }, { expectedRevision: null });
      expect(await b.get('mcp', 'x/one')).toEqual(first);
      const second = await b.put({ kind: 'mcp', reference: 'x/one', data: { url: 'http://127.0.0.1:2/mcp' } }, { expectedRevision: 1 });
      expect(await a.get('mcp', 'x/one')).toEqual(second);
      // A stale compare-and-set through either driver is refused: one lock, one revision.
      await expect(a.put({ kind: 'mcp', reference: 'x/one', data: {} }, { expectedRevision: 1 })).rejects.toMatchObject({
        code: 'revision_conflict',
      });
      const runsA = new SqliteRunStore({ path: shared, driver: 'node:sqlite' });
      const runsB = new SqliteRunStore({ path: shared, driver: 'better-sqlite3' });
      const state = {
        version: 1 as const,
        runId: 'r1',
        agent: 'x/agent',
        fingerprint: 'f'.repeat(64),
        settingsHash: 's'.repeat(64),
        mountsHash: 'm'.repeat(64),
        seenBatchIds: ['b1', 'ünïcode ✓'],
      };
      const stored = await runsA.put({ runId: 'r1', agent: 'x/agent', state }, { expectedRevision: null });
      expect(await runsB.get('r1')).toEqual(stored);
      for (const s of [a, b, runsA, runsB]) await s.close();
      const raw = rawSqlite(shared, { readonly: true });
      expect(pragma(raw, 'integrity_check')).toBe('ok');
      raw.close();
    },
  );

  it(`the default driver is the runtime's own where it has one: ${hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3'} on Node ${process.version}`, async () => {
    expect(rawDriver.name).toBe(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
    const store = new SqliteStore({ path: file() });
    await store.migrate();
    await store.close();
  });

  it('a driver of your own goes through the same seam; a driver this runtime lacks is store_unavailable saying which runtime has it', async () => {
    const opened: string[] = [];
    const mine: SqliteDriver = {
      name: 'counting',
      open(f, options) {
        opened.push(path.basename(f));
        return rawDriver.open(f, options);
      },
    };
    const target = file();
    const store = new SqliteStore({ path: target, driver: mine });
    await store.put({ kind: 'agent', reference: 'x/a', data: { mcps: [] } }, { expectedRevision: null });
    await store.close();
    expect(opened).toEqual([path.basename(target)]);
    const bun = await new SqliteStore({ path: file(), driver: 'bun:sqlite' }).list('mcp').catch((e: unknown) => e);
    expect(bun).toMatchObject({ code: 'store_unavailable', message: expect.stringContaining('bun:sqlite is only in Bun') });
    const unknown = await sqliteDriver('sqlite3' as never, 'SqliteStore').catch((e: unknown) => e);
    expect(isAgtError(unknown) && unknown.code).toBe('invalid_input');
    if (!hasNodeSqlite) {
      const missing = await new SqliteStore({ path: file(), driver: 'node:sqlite' }).list('mcp').catch((e: unknown) => e);
      expect(missing).toMatchObject({ code: 'store_unavailable', message: expect.stringContaining('built into Node 22.13 and later') });
    }
  });
});
