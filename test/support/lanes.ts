/**
 * The unit lane (`npm run test:unit`, vitest.unit.config.ts): every test file that starts no process
 * and reads no build. A file is classed by the signs in its code (below), so a new file joins the lane
 * or stays out of it with no list to keep; `npm test` runs every file either way. What the signs cannot
 * see is named here with why: a file that starts a process through a fixture no sign names, and a file
 * that shows a sign but starts nothing. In the lane (test/support/unit-setup.ts) starting a process
 * throws, so a file classed wrongly fails there, and test/package/lanes.test.ts checks that both
 * lists are still needed. Not processes: an HTTP server on loopback in the test's own process (such
 * files stay in), and a PostgreSQL test, which skips in the lane (it runs in `npm test`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A sign, in a test file's code, that the file starts a process or needs the build. */
export interface LaneSign {
  why: string;
  shows(code: string): boolean;
}

const matches = (pattern: RegExp) => (code: string) => pattern.test(code);

/** The signs that class a file out of the unit lane. */
export const PROCESS_SIGNS: readonly LaneSign[] = [
  {
    why: 'starts a child process',
    shows: matches(/node:child_process|(?<!-)\b(spawn|spawnSync|execFile|execFileSync|fork)\(|\bspawn: true|'tsx'|\brunTs\(/),
  },
  {
    why: 'connects a stdio server (a process)',
    shows: matches(
      /\b(pythonConfig|PYTHON_SERVER|WRAPPER|referenceServer|fixtureServer|python3|startConformanceServer)\b|process\.execPath/,
    ),
  },
  // test/support/runs.ts: a registry or a run on the Python fixture server (a file's own `setup` is not that one).
  {
    why: 'runs on the Python fixture server',
    shows: (code) => /\brunFixture\(/.test(code) || (/\bsetup\(/.test(code) && !/function setup\(/.test(code)),
  },
  { why: 'reads the build (dist/)', shows: matches(/\bdist\/|\bBIN\b/) },
];

/** Files that start a process though no sign shows it, and why. */
export const STARTS_UNSEEN: Readonly<Record<string, string>> = {
  'test/config/variables.test.ts': "its run connects the VS Code host fixture's stdio server",
};

/** Files that show a sign but start no process and read no build, and why. */
export const STARTS_NOTHING: Readonly<Record<string, string>> = {
  'test/resources/registration.test.ts': 'it spies on child_process to prove that registering and testing a config start nothing',
  'test/mcp/settings/connect-settings.test.ts': 'its Python server configs are refused before anything starts',
  'test/resources/assembly.test.ts': 'its stdio configs are stored, never started',
  'test/package/lanes.test.ts': 'it calls spawn only under the lane guard, which throws',
};

/** Every test file of the suite (the include of vitest.config.ts), relative to the repository, sorted. */
export function testFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const file = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(file);
      return entry.name.endsWith('.test.ts') ? [file] : [];
    });
  return [...walk('test'), ...walk('examples')].sort();
}

/** A text without its comment lines (a comment that names `spawn` starts nothing). */
export function withoutComments(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');
}

/** Why code is out of the unit lane: the signs it shows (empty: none). */
export function signsIn(code: string): string[] {
  return PROCESS_SIGNS.filter((sign) => sign.shows(code)).map((sign) => sign.why);
}

/** The signs a test file's code shows (comments aside). */
export function signsOf(file: string): string[] {
  return signsIn(withoutComments(fs.readFileSync(path.join(ROOT, file), 'utf8')));
}

/** Whether a file runs in the unit lane. */
export function inUnitLane(file: string): boolean {
  if (file in STARTS_UNSEEN) return false;
  return file in STARTS_NOTHING || signsOf(file).length === 0;
}

/** The unit lane's files. */
export function unitLane(): string[] {
  return testFiles().filter(inUnitLane);
}
