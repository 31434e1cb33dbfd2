/**
 * The unit lane stays true as files come and go: `npm run test:unit` runs the files that start no
 * process and read no build (test/support/lanes.ts classes them by the signs in their code), with
 * starting a process made to fail; `npm test` still runs every file.
 */
import childProcess, { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import unitConfig from '../../vitest.unit.config.js';
import { blockProcesses } from '../support/process-guard.js';
import { signsIn, signsOf, STARTS_NOTHING, STARTS_UNSEEN, testFiles, unitLane, withoutComments } from '../support/lanes.js';
import { REPO_ROOT } from '../support/index.js';

describe('the unit lane', () => {
  it('runs the files lanes.ts classes in, with the process guard, and npm runs no build before it', () => {
    expect(unitConfig.test?.include).toEqual(unitLane());
    expect(unitConfig.test?.setupFiles).toEqual(['test/support/unit-setup.ts']);
    const scripts = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts;
    expect(scripts['test:unit']).toBe('vitest run --config vitest.unit.config.ts');
    expect(scripts['pretest:unit']).toBeUndefined(); // npm would run it first (`pretest`, the build, is for `npm test` only)
  });

  it('holds no file whose code shows a process or the build, except the ones named with why; the lane is most of the pure files', () => {
    const lane = unitLane();
    const showing = lane.filter((file) => !(file in STARTS_NOTHING) && signsOf(file).length > 0);
    expect(showing).toEqual([]);
    expect(lane).toContain('test/package/rules.test.ts');
    expect(lane).not.toContain('test/package/exports.test.ts'); // reads dist/
    expect(lane).not.toContain('test/storage/postgres-store.test.ts'); // runs a TypeScript child
    expect(lane.length).toBeGreaterThan(40);
  });

  it('names only files that still need naming: each exists, and the signs alone would class it the other way', () => {
    const files = new Set(testFiles());
    for (const file of Object.keys(STARTS_UNSEEN)) {
      expect(files.has(file), file).toBe(true);
      expect(signsOf(file), `${file} shows a sign now: drop it from STARTS_UNSEEN`).toEqual([]);
    }
    for (const file of Object.keys(STARTS_NOTHING)) {
      expect(files.has(file), file).toBe(true);
      expect(signsOf(file).length, `${file} shows no sign now: drop it from STARTS_NOTHING`).toBeGreaterThan(0);
    }
  });

  it('reads the signs in code, not in comments', () => {
    expect(signsIn("import { execFile } from 'node:child_process';")).toEqual(['starts a child process']);
    expect(signsIn('const config = pythonConfig({ mode: "slow" });')).toEqual(['connects a stdio server (a process)']);
    expect(signsIn('const run = runFixture();')).toEqual(['runs on the Python fixture server']);
    expect(signsIn("await runAgt(['mcp', 'list'], { home, db, spawn: true });")).toEqual(['starts a child process']); // the built bin
    expect(signsIn('async function setup() {}\nawait setup();')).toEqual([]); // a file's own setup
    expect(signsIn("const bin = path.join(REPO_ROOT, 'dist/cli.js');")).toEqual(['reads the build (dist/)']);
    expect(signsIn("const parse = require('cross-spawn/lib/parse.js');")).toEqual([]); // a module's name, not a call
    expect(signsIn(withoutComments('// no spawn here\n/**\n * nor a fork\n */\nconst n = 1;'))).toEqual([]);
  });

  it('guard: every way to start a process throws and is reported, until undone', () => {
    const tried: string[] = [];
    const before = childProcess.spawnSync;
    const undo = blockProcesses((what) => tried.push(what));
    try {
      expect(() => spawn('true')).toThrow(/the unit lane starts no process/); // the ESM named export
      expect(() => childProcess.execFile('true')).toThrow(/the unit lane starts no process/); // the module object
      expect(() => createRequire(import.meta.url)('node:child_process').fork('x.js')).toThrow(/the unit lane starts no process/); // require()
    } finally {
      undo();
    }
    expect(tried).toEqual(['child_process.spawn("true")', 'child_process.execFile("true")', 'child_process.fork("x.js")']);
    expect([childProcess.spawnSync, spawnSync]).toEqual([before, before]); // undone, for both kinds of import
  });
});
