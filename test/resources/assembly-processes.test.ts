/**
 * SPEC §11 service/assembly across processes: concurrent adds from four
 * processes on one SQLite file never lose each other (the rest of assembly:
 * assembly.test.ts).
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResourceService } from '../../src/index.js';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { runTs, tempDir } from '../support/index.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe('A3: single-item add/remove, never losing each other', () => {
  it('A3: 4 processes × 25 concurrent adds on one SQLite file land 100 mounts; stale expectedRevision writes are all rejected', async () => {
    const file = path.join(tmp.dir, 'shared.db');
    const sqlite = new SqliteStore({ path: file });
    const svc = new ResourceService({ store: sqlite });
    await svc.write({ kind: 'agent', reference: 'team/shared', create: true, data: { name: 'Shared' } });
    const outputs = await Promise.all([0, 1, 2, 3].map((p) => runTs('test/resources/fixtures/add-mounts.ts', [file, String(p), '25'])));
    const reports = outputs.map((o) => JSON.parse(o.trim()) as { added: number; failed: string[] });
    expect(reports.map((r) => r.failed)).toEqual([[], [], [], []]);
    const record = await svc.read({ kind: 'agent', reference: 'team/shared' });
    const mounts = (record.data as { mcps: string[] }).mcps;
    expect(new Set(mounts).size).toBe(100);
    expect(record.revision).toBe(101);
    const stale = await Promise.allSettled(
      [1, 2, 50, 100].map((rev) => svc.write({ kind: 'agent', reference: 'team/shared', expectedRevision: rev, data: { name: 'Stale' } })),
    );
    expect(stale.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(((await svc.read({ kind: 'agent', reference: 'team/shared' })).data as { name: string }).name).toBe('Shared');
    await sqlite.close();
  });
});
