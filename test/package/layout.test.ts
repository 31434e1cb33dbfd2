/**
 * The layout of test/: it mirrors src/, so the tests of a piece of code are found in the folder (or room) of
 * that code, and a test file is named by what it tests, never by the change that brought it (rule ids stay
 * in test titles, not in file names).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/index.js';

const TEST = path.join(REPO_ROOT, 'test');
const SRC = path.join(REPO_ROOT, 'src');

/** Folders of test/ that cut across src/, and why. */
const ACROSS: Readonly<Record<string, string>> = {
  hardening: 'hostile inputs across the library',
  package: 'the built package, its layout and its bounds',
  soak: 'long soak and heap tests (npm run test:soak)',
  support: 'helpers shared by every test folder',
};

/** Every folder under test/, relative to it, but the cross-cutting ones and fixtures (data and helper servers). */
function testFolders(dir = '', found: string[] = []): string[] {
  for (const entry of fs.readdirSync(path.join(TEST, dir), { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'fixtures' || (dir === '' && entry.name in ACROSS)) continue;
    const folder = path.join(dir, entry.name);
    found.push(folder);
    testFolders(folder, found);
  }
  return found;
}

const holdsCode = (folder: string) => fs.readdirSync(path.join(TEST, folder)).some((name) => name.endsWith('.ts'));

/** Every test file under test/, relative to it. */
function testFiles(dir = ''): string[] {
  return fs.readdirSync(path.join(TEST, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(file);
    return /\.(test|test-d|soak)\.ts$/.test(entry.name) ? [file] : [];
  });
}

describe('test/ mirrors src/', () => {
  it('every test folder names a src folder or room (hardening, package, soak, support and fixtures aside)', () => {
    const folders = testFolders();
    expect(folders).toContain(path.join('runtime', 'pipeline'));
    // A folder of data only (the conformance runs' expected-failure lists) holds no test code to place.
    const unmatched = folders
      .filter(holdsCode)
      .filter((folder) => !fs.statSync(path.join(SRC, folder), { throwIfNoEntry: false })?.isDirectory());
    expect(unmatched).toEqual([]);
  });

  it("a test file at the top of test/ tests one of the root's leaf files", () => {
    const top = fs.readdirSync(TEST).filter((name) => name.endsWith('.test.ts'));
    expect(top.length).toBeGreaterThan(0);
    expect(top.filter((name) => !fs.existsSync(path.join(SRC, name.replace(/\.test\.ts$/, '.ts'))))).toEqual([]);
  });

  it('every cross-cutting folder still exists', () => {
    expect(Object.keys(ACROSS).filter((folder) => !fs.existsSync(path.join(TEST, folder)))).toEqual([]);
  });
});

describe('test file names', () => {
  // A number in a name is an MCP era (2025, 2026) or a release (0.1); an issue, a review round or a rule id is not.
  const history = /^(issue|round|review|regression|bug|fix|pr)$/i;
  const allowedNumber = /^(2025|2026|\d+\.\d+)$/;
  const offending = (file: string) =>
    path
      .basename(file)
      .replace(/\.(test|test-d|soak)\.ts$/, '')
      .split(/[-_]/)
      .some((part) => history.test(part) || (/\d/.test(part) && !allowedNumber.test(part)));

  it('carry no issue number, review round or rule id: each file is named by its concept', () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter(offending)).toEqual([]);
  });

  it('the check sees a name that cites history', () => {
    expect(['issue-25.test.ts', 'round-two.test.ts', 's8-issues.test.ts', 'pipeline-42.test.ts'].filter(offending)).toHaveLength(4);
    expect(['conformance-2026.test.ts', 'stored-records-0.1.test.ts', 'issues.test.ts'].filter(offending)).toEqual([]);
  });
});
