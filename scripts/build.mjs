#!/usr/bin/env node
// The build of dist/: `tsup`, then scripts/share-types.mjs (one set of declarations).
//   node scripts/build.mjs              build (`npm run build`)
//   node scripts/build.mjs --if-stale   build unless dist/ is what a build of the current sources gives (`prepack`,
//                                        `pretest`): so `npm run build && npm pack` (or `npm test`) builds once.
//   --silent                            tsup prints nothing
// One build at a time in the tree (a lock beside the stamp): a second `npm test` started meanwhile waits, then finds
// dist/ fresh.
// Fresh means: the stamp the last build wrote (node_modules/.cache/agt-mcp/build-stamp.json, outside dist/ so it never
// ships) holds the hash of every input as it was when that build started — each file of src/, package.json,
// package-lock.json, tsconfig.json, tsup.config.ts, this script and share-types.mjs, and the versions of tsup,
// esbuild and typescript installed — and the hash of every file of dist/ as that build left it. Any change to an
// input, a file of dist/ changed, added or removed, a build that stopped half-way (the stamp goes first) or no stamp
// at all means a build: a stale dist/ is never packed or tested.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stamp = path.join(root, 'node_modules', '.cache', 'agt-mcp', 'build-stamp.json');
const args = new Set(process.argv.slice(2));
const INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsup.config.ts', 'scripts/build.mjs', 'scripts/share-types.mjs'];
const TOOLS = ['tsup', 'esbuild', 'typescript'];

/** Every file under `dir` (relative to root, sorted); none when it does not exist. */
function filesUnder(dir) {
  if (!fs.existsSync(path.join(root, dir))) return [];
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) =>
      path
        .relative(root, path.join(e.parentPath ?? e.path, e.name))
        .split(path.sep)
        .join('/'),
    )
    .sort();
}

/** One hash of the names and contents of `files` (a missing one counts as missing), and of `extra`. */
function hashOf(files, extra = '') {
  const h = createHash('sha256').update(extra);
  for (const file of files) {
    const full = path.join(root, file);
    h.update(`\0${file}\0`);
    h.update(fs.existsSync(full) ? fs.readFileSync(full) : '\0missing\0');
  }
  return h.digest('hex');
}

/** The hash of everything a build reads. */
function inputsHash() {
  const versions = TOOLS.map((t) => {
    const manifest = path.join(root, 'node_modules', t, 'package.json');
    return `${t}@${fs.existsSync(manifest) ? JSON.parse(fs.readFileSync(manifest, 'utf8')).version : 'missing'}`;
  }).join(' ');
  return hashOf([...INPUTS, ...filesUnder('src')], versions);
}

/** The hash of dist/ as it is. */
const outputsHash = () => hashOf(filesUnder('dist'));

/** The stamp of the last whole build, or undefined. */
function readStamp() {
  try {
    return JSON.parse(fs.readFileSync(stamp, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Holds the build lock (one build at a time in this tree: a second waits, then finds dist/ fresh), taking over a dead holder's. */
function lock() {
  const file = `${stamp}.lock`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (;;) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      process.on('exit', () => fs.rmSync(file, { force: true }));
      return;
    } catch {
      const holder = Number(fs.readFileSync(file, 'utf8') || 0);
      let alive = holder > 0;
      try {
        if (alive) process.kill(holder, 0);
      } catch {
        alive = false;
      }
      if (!alive) fs.rmSync(file, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

lock();
const inputs = inputsHash();
if (args.has('--if-stale')) {
  const last = readStamp();
  if (last?.inputs === inputs && fs.existsSync(dist) && last.outputs === outputsHash()) {
    // stderr: `npm pack --json` prints its report on stdout.
    console.error('dist/ is up to date with the sources (scripts/build.mjs): no build');
    process.exit(0);
  }
}
fs.rmSync(stamp, { force: true });
// tsup's own script run by this Node (no shell, no .bin shim); what it prints goes to stderr, as above.
const tsup = path.join(
  root,
  'node_modules',
  'tsup',
  JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'tsup', 'package.json'), 'utf8')).bin.tsup,
);
const run = (script, rest) => {
  try {
    execFileSync(process.execPath, [script, ...rest], { cwd: root, stdio: ['ignore', 2, 2] });
  } catch (error) {
    process.exit(typeof error.status === 'number' && error.status !== 0 ? error.status : 1); // it said why
  }
};
run(tsup, args.has('--silent') ? ['--silent'] : []);
run(path.join(root, 'scripts', 'share-types.mjs'), []);
fs.mkdirSync(path.dirname(stamp), { recursive: true });
const temp = `${stamp}.${process.pid}`;
fs.writeFileSync(temp, JSON.stringify({ inputs, outputs: outputsHash() }) + '\n');
fs.renameSync(temp, stamp);
