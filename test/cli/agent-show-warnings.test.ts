/** `agt agent show` shows the unknown keys an agent was stored with (A6): a warning each, escaped, in text and JSON. */
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { runAgt, tempDir } from '../support/index.js';

let tmp: ReturnType<typeof tempDir>;
let db: string;
beforeEach(() => {
  tmp = tempDir('agt-cli-');
  db = path.join(tmp.dir, 'agt.db');
});
afterEach(() => tmp.cleanup());

it('A6: agt agent show warns of each stored unknown key, with the closest known one and how to remove it', async () => {
  const store = new SqliteStore({ path: db });
  await store.put(
    { kind: 'agent', reference: 'team/old', data: { mcps: [], mcp: ['tools/b'], 'x\u001b[2J': 1 } },
    { expectedRevision: null },
  );
  await store.close?.();
  const shown = await runAgt(['agent', 'show', 'team/old'], { home: tmp.dir, db });
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain(
    'warning: stored agent data: unknown key "mcp"; did you mean "mcps"? (ignored; remove it by writing it as null)',
  );
  expect(shown.stdout).toContain('unknown key "x\\x1b[2J"');
  expect(shown.stdout).not.toContain('\u001b');
  const json = JSON.parse((await runAgt(['agent', 'show', 'team/old', '--json'], { home: tmp.dir, db })).stdout);
  expect(json.warnings).toHaveLength(2);
});
