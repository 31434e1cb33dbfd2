/**
 * RunStore and AuditStore: the shared contract on every adapter (memory,
 * SQLite, PostgreSQL); suspend/resume through a store: test/runtime/store/resume.test.ts.
 */
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { MemoryAuditStore, MemoryRunStore } from '../../src/index.js';
import { PostgresAuditStore, PostgresRunStore } from '../../src/storage/postgres.js';
import { SqliteAuditStore, SqliteRunStore } from '../../src/storage/sqlite.js';
import { auditStoreConformanceSuite, runStoreConformanceSuite } from '../../src/testing/index.js';
import { tempDir } from '../support/index.js';

const tmp = tempDir('agt-runstore-');
afterAll(() => tmp.cleanup());
let files = 0;
const file = () => path.join(tmp.dir, `runs-${files++}.db`);

runStoreConformanceSuite(() => new MemoryRunStore(), { test: it, label: 'MemoryRunStore' });
runStoreConformanceSuite(() => new SqliteRunStore({ path: file() }), { test: it, label: 'SqliteRunStore' });
auditStoreConformanceSuite(() => new MemoryAuditStore(), { test: it, label: 'MemoryAuditStore' });
auditStoreConformanceSuite(() => new SqliteAuditStore({ path: file() }), { test: it, label: 'SqliteAuditStore' });

const url = process.env.AGT_TEST_PG_URL;
const why = url ? '' : ' (skipped: AGT_TEST_PG_URL is not set; .ci/run starts a throwaway PostgreSQL)';
let tables = 0;
describe.skipIf(!url)(`PostgreSQL run and audit stores${why}`, () => {
  runStoreConformanceSuite(
    async () => {
      const store = new PostgresRunStore({ connectionString: url as string, table: `agt_runs_t${process.pid}_${tables++}` });
      await store.migrate();
      return store;
    },
    { test: it, label: 'PostgresRunStore' },
  );
  auditStoreConformanceSuite(
    async () => {
      const store = new PostgresAuditStore({ connectionString: url as string, table: `agt_audit_t${process.pid}_${tables++}` });
      await store.migrate();
      return store;
    },
    { test: it, label: 'PostgresAuditStore' },
  );
});
