/**
 * The unit lane's setup file (vitest.unit.config.ts): starting a process throws, and a test that
 * tried fails even where it caught the error, so a file that starts one cannot stay in the lane.
 */
import { afterEach } from 'vitest';
import { blockProcesses } from './process-guard.js';

// A PostgreSQL server is a process too: the PostgreSQL tests skip here (each skips without the URL) and run in `npm test`.
delete process.env.AGT_TEST_PG_URL;

const tried: string[] = [];
blockProcesses((what) => tried.push(what));

afterEach(() => {
  if (tried.length > 0) throw new Error(`the unit lane starts no process, and this test tried ${tried.splice(0).join(', ')}`);
});
