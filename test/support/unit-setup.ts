/**
 * The unit lane's setup file (vitest.unit.config.ts): starting a process throws, and a test that
 * tried fails even where it caught the error, so a file that starts one cannot stay in the lane.
 */
import { afterEach } from 'vitest';
import { blockProcesses } from './process-guard.js';

const tried: string[] = [];
blockProcesses((what) => tried.push(what));

afterEach(() => {
  if (tried.length > 0) throw new Error(`the unit lane starts no process, and this test tried ${tried.splice(0).join(', ')}`);
});
