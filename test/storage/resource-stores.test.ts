import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { storeConformanceSuite } from '../../src/testing/index.js';

describe('MemoryStore', () => {
  storeConformanceSuite(() => new MemoryStore(), { test: it, label: 'MemoryStore' });
});

describe('SqliteStore (a real SQLite file)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-sqlite-'));
  let n = 0;
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  storeConformanceSuite(() => new SqliteStore({ path: path.join(dir, `store-${n++}.db`) }), { test: it, label: 'SqliteStore' });
});
