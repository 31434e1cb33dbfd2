/**
 * The rules live in the repository: docs/rules.md defines
 * every rule id that a comment or a test cites, so a reader of the code can
 * look any of them up. An id is cited where it stands in a comment or in the
 * title of a test (`it('B4: …')`, `describe('E7: …')`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/index.js';

const ID = /(?<![A-Za-z0-9_-])([CRPAGSBFHEKU][0-9]{1,2})(?![0-9A-Za-z_])/g;
// Where a line cites: a comment, or the title of a test or a suite.
const CITING = /^\s*(\/\/|\/\*|\*)|\b(it|describe|test)(\.\w+)*\(/;
// A test or suite title: on the line of `it(` (or `it.skipIf(…)(`), or the string that opens the next line.
const TITLE = /\b(it|describe|test)(\.\w+)*\(|^\s*['`"][A-Z][0-9]{1,2}\b/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : sources(full);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [full] : [];
  });
}

const defined = (): Set<string> =>
  new Set(
    [...fs.readFileSync(path.join(REPO_ROOT, 'docs/rules.md'), 'utf8').matchAll(/^\| \*\*([A-Z][0-9]+)\*\* \|/gm)].map(
      (m) => m[1] as string,
    ),
  );

describe('the rule ids cited in code are defined in docs/rules.md', () => {
  it('every id a comment or a test title cites in src, test and examples has its line in docs/rules.md', () => {
    const known = defined();
    const undefinedCitations: string[] = [];
    for (const file of ['src', 'test', 'examples'].flatMap((d) => sources(path.join(REPO_ROOT, d)))) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!CITING.test(line)) return;
          for (const [, id] of line.matchAll(ID))
            if (!known.has(id as string)) undefinedCitations.push(`${path.relative(REPO_ROOT, file)}:${i + 1} ${id}`);
        });
    }
    expect(undefinedCitations).toEqual([]);
  });

  it('each rule\'s "tested in" files exist and name the rule in a test title; a rule a test names says where', () => {
    const rows = [...fs.readFileSync(path.join(REPO_ROOT, 'docs/rules.md'), 'utf8').matchAll(/^\| \*\*([A-Z][0-9]+)\*\* \|.*\|(.*)\|$/gm)];
    const titles = (file: string) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => TITLE.test(line));
    const namedBy = (id: string, lines: string[]) => lines.some((line) => [...line.matchAll(ID)].some((m) => m[1] === id));
    const allTitles = new Map(sources(path.join(REPO_ROOT, 'test')).map((file) => [file, titles(file)]));
    const problems: string[] = [];
    for (const [, id, testedIn] of rows) {
      const files = [...(testedIn as string).matchAll(/`([^`]+)`/g)].map((m) => path.join(REPO_ROOT, m[1] as string));
      if (files.length === 0) {
        // A rule without tests yet: once a test names it, its row must say where.
        const naming = [...allTitles].filter(([, lines]) => namedBy(id as string, lines)).map(([file]) => path.relative(REPO_ROOT, file));
        if (naming.length > 0)
          problems.push(`${id}: says "${(testedIn as string).trim()}" but ${naming.join(', ')} name${naming.length === 1 ? 's' : ''} it`);
      }
      for (const file of files)
        if (!fs.existsSync(file)) problems.push(`${id}: ${path.relative(REPO_ROOT, file)} does not exist`);
        else if (!namedBy(id as string, titles(file))) problems.push(`${id}: no test title of ${path.relative(REPO_ROOT, file)} names it`);
    }
    expect(problems).toEqual([]);
  });

  it('docs/rules.md defines each id once, and the check sees an id it does not define', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'docs/rules.md'), 'utf8');
    const ids = [...text.matchAll(/^\| \*\*([A-Z][0-9]+)\*\* \|/gm)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(66);
    const known = defined();
    const made = ['B', '99'].join(''); // written apart, so this file cites nothing undefined itself
    const line = `  it('${made}: a rule nobody defined', () => {`;
    expect(CITING.test(line)).toBe(true);
    expect([...line.matchAll(ID)].map((m) => m[1]).filter((id) => !known.has(id as string))).toEqual([made]);
  });
});
