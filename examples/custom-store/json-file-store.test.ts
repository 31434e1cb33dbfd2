// The custom adapter passes the same contract suite as the built-in stores.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { storeConformanceSuite } from 'agt-mcp/testing';
import { JsonFileStore } from './json-file-store.js';

describe('JsonFileStore (custom adapter example)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-jsonstore-'));
  let n = 0;
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  storeConformanceSuite(() => new JsonFileStore(path.join(dir, `store-${n++}.json`)), { test: it, label: 'JsonFileStore' });
});
