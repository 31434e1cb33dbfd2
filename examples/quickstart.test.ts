// Runs examples/quickstart.ts (the README's host example) as a user would.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

it('R2, P2, B3: the quickstart registers, probes, runs a step and closes; run again on the same store, it still works', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-qs-'));
  try {
    const run = () =>
      execFileSync(process.execPath, ['--import', 'tsx', path.join(here, 'quickstart.ts'), path.join(dir, 'q.db')], {
        encoding: 'utf8',
        cwd: path.join(here, '..'),
      });
    expect(run()).toBe('probe: ok, 5 tools\nrun: completed in 2 steps; ok\n');
    expect(run()).toBe('probe: ok, 5 tools\nrun: completed in 2 steps; ok\n'); // the records are there: updated, not created twice
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000); // two quickstarts, each a tsx start, a probe and a run of a stdio server: over 30 s on a loaded CI machine
