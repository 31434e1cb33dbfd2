/**
 * The test run's own AGT_HOME: whatever a test starts without one of its own
 * (a kit server keeping its request-state key, the CLI's default store) writes
 * into a temporary folder, never into the home of the user running the tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let made: string | undefined;

export function setup(): void {
  if (process.env.AGT_HOME !== undefined) return;
  made = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-test-home-'));
  process.env.AGT_HOME = made;
}

export function teardown(): void {
  if (made !== undefined) fs.rmSync(made, { recursive: true, force: true });
}
