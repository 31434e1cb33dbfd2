/**
 * Casts at the boundary only: src types its values, and the few `as never` /
 * `as unknown as` left are where an SDK (`@modelcontextprotocol/*`) or
 * ext-tasks types a value otherwise than the code holds it, each with the
 * reason on its line or the line above.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/index.js';

const SRC = path.join(REPO_ROOT, 'src');
const MOST_CASTS = 20;
const CAST = /\bas never\b|\bas unknown as\b/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const isComment = (line: string) => /^\s*(\/\/|\/\*|\*)/.test(line);

/** Each cast of `text` (in code, not in a comment): its line number, and whether a comment says why. */
function castsIn(text: string): { line: number; explained: boolean }[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) => {
    if (isComment(line)) return [];
    const code = line.replace(/\/\/.*$/, '');
    const count = [...code.matchAll(CAST)].length;
    const explained = code !== line || /^\s*\/\//.test(lines[i - 1] ?? '');
    return Array.from({ length: count }, () => ({ line: i + 1, explained }));
  });
}

const casts = sourceFiles(SRC).flatMap((file) =>
  castsIn(fs.readFileSync(file, 'utf8')).map((c) => ({ ...c, at: `${path.relative(REPO_ROOT, file)}:${c.line}` })),
);

describe('casts at the boundary only', () => {
  it(`src has at most ${MOST_CASTS} casts (as never, as unknown as)`, () => {
    expect(casts.map((c) => c.at).length, casts.map((c) => c.at).join('\n')).toBeLessThanOrEqual(MOST_CASTS);
  });

  it('each cast says why, in a comment on its line or the line above', () => {
    expect(casts.filter((c) => !c.explained).map((c) => c.at)).toEqual([]);
  });

  it('the check sees a cast, and its comment', () => {
    const sample = [
      'const a = b as never;',
      '// the SDK types it otherwise',
      'const c = d as unknown as E;',
      'const f = g as never; // the reason',
      ' * a doc comment may say as never',
    ].join('\n');
    expect(castsIn(sample)).toEqual([
      { line: 1, explained: false },
      { line: 3, explained: true },
      { line: 4, explained: true },
    ]);
  });
});
