/**
 * `agt skill import|export` against hostile folders and records (issue 58
 * #19-#21): a folder far heavier than a skill may be, read only up to the
 * bound; filesystem failures (a dangling or looping link, a file where a
 * folder goes) refused as invalid_input, exit 2; an export that fails half
 * way leaves nothing behind.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { REPO_ROOT, runAgt, tempDir, type AgtResult } from '../support/index.js';

const tmp = tempDir('agt-skill-files-');
const db = path.join(tmp.dir, 'agt.db');
const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
afterAll(() => tmp.cleanup());
const SKILL = '---\nname: heavy\ndescription: A skill.\n---\nDo it.\n';

function folder(name: string, files: Record<string, string> = {}): string {
  const dir = path.join(tmp.dir, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), SKILL);
  for (const [inner, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, inner)), { recursive: true });
    fs.writeFileSync(path.join(dir, inner), text);
  }
  return dir;
}

// The CLI from source in its own process with a small heap: a command that held every file at once would die of it.
function agtSmallHeap(args: string[]): Promise<AgtResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--max-old-space-size=128', '--import', 'tsx', path.join(REPO_ROOT, 'src/cli/bin.ts'), ...args, '--store', db],
      { cwd: REPO_ROOT, env: { ...process.env, AGT_HOME: tmp.dir }, maxBuffer: 16 * 1024 * 1024 },
      (e, stdout, stderr) => resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const stored = async (reference: string) => {
  const store = new SqliteStore({ path: db });
  try {
    return await store.get('skill', reference);
  } finally {
    await store.close();
  }
};

describe('agt skill import|export with hostile files', () => {
  it('K1: import reads no more than a skill may weigh: 400 MB of hard links stop at the bound (issue 58 #19)', async () => {
    const dir = folder('links');
    const big = path.join(tmp.dir, 'big.txt');
    fs.writeFileSync(big, 'x'.repeat(4_000_000)); // 4 MB on disk, under the 4 MiB file bound
    for (let i = 0; i < 100; i++) fs.linkSync(big, path.join(dir, `copy-${i}.md`));
    const result = await agtSmallHeap(['skill', 'import', dir, 'skills/links']);
    expect(result.code, result.stderr).toBe(2); // before: every copy read, the heap exhausted
    expect(result.stderr).toContain('invalid_input');
    expect(result.stderr).toContain('262144 bytes');
    expect(await stored('skills/links')).toBeUndefined();
  }, 120_000);

  it('K1: import counts the bytes of all files together against the document bound (issue 58 #19)', async () => {
    const chunk = 'y'.repeat(100_000);
    const dir = folder('together', { 'a.md': chunk, 'b.md': chunk, 'c.md': chunk });
    const result = await agt('skill', 'import', dir, 'skills/together');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('files of the skill weigh more than 262144 bytes together');
    expect(await stored('skills/together')).toBeUndefined();
  });

  it('K1: a dangling or looping link, and an export into a file or a dangling link, are invalid_input, exit 2 (issue 58 #20)', async () => {
    const dangling = folder('dangling');
    fs.symlinkSync('missing.md', path.join(dangling, 'gone.md'));
    const first = await agt('skill', 'import', dangling, 'skills/dangling');
    expect([first.code, first.stderr]).toEqual([2, expect.stringContaining('invalid_input')]);
    expect(first.stderr).toContain('gone.md is a symbolic link to nothing');
    const looping = folder('looping');
    fs.symlinkSync('loop.md', path.join(looping, 'loop.md'));
    const second = await agt('skill', 'import', looping, 'skills/looping');
    expect([second.code, second.stderr]).toEqual([2, expect.stringContaining('loop.md is a symbolic link that loops')]);

    expect((await agt('skill', 'import', folder('good'), 'skills/good')).code).toBe(0);
    const file = path.join(tmp.dir, 'a-file');
    fs.writeFileSync(file, 'keep me');
    const intoFile = await agt('skill', 'export', 'skills/good', file);
    expect([intoFile.code, intoFile.stderr]).toEqual([2, expect.stringContaining('invalid_input')]);
    expect(intoFile.stderr).toContain('is a file');
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
    const link = path.join(tmp.dir, 'a-link');
    fs.symlinkSync(path.join(tmp.dir, 'nowhere'), link);
    const intoLink = await agt('skill', 'export', 'skills/good', link);
    expect([intoLink.code, intoLink.stderr]).toEqual([2, expect.stringContaining('symbolic link')]);
    expect(fs.existsSync(path.join(tmp.dir, 'nowhere'))).toBe(false);
    const under = await agt('skill', 'export', 'skills/good', path.join(file, 'inside'));
    expect([under.code, under.stderr]).toEqual([2, expect.stringContaining('invalid_input')]);
  });

  it('K1: export writes all or nothing: a failure half way leaves no folder behind (issue 58 #21)', async () => {
    // A name the registry takes (255 characters at most) that this filesystem does not (255 bytes at most).
    const long = `${'é'.repeat(200)}.md`;
    const store = new SqliteStore({ path: db });
    try {
      await store.put(
        { kind: 'skill', reference: 'skills/long', data: { files: { 'SKILL.md': SKILL, 'a.md': 'a', [long]: 'x' } } },
        {
          expectedRevision: null,
        },
      );
      // Written before the registry refused paths that cannot coexist on disk.
      await store.put(
        { kind: 'skill', reference: 'skills/clash', data: { files: { 'SKILL.md': SKILL, a: 'file', 'a/b': 'x' } } },
        {
          expectedRevision: null,
        },
      );
    } finally {
      await store.close();
    }
    const parent = path.join(tmp.dir, 'exports');
    fs.mkdirSync(parent);
    const failed = await agt('skill', 'export', 'skills/long', path.join(parent, 'long'));
    expect([failed.code, failed.stderr]).toEqual([2, expect.stringContaining('invalid_input')]);
    expect(failed.stderr).toContain('too long');
    const clash = await agt('skill', 'export', 'skills/clash', path.join(parent, 'clash'));
    expect([clash.code, clash.stderr]).toEqual([2, expect.stringContaining('"a" and "a/b"')]);
    expect(fs.readdirSync(parent)).toEqual([]); // no partial folder, no temporary one
    const empty = path.join(parent, 'empty');
    fs.mkdirSync(empty);
    expect((await agt('skill', 'export', 'skills/long', empty)).code).toBe(2);
    expect(fs.readdirSync(parent)).toEqual(['empty']);
    expect(fs.readdirSync(empty)).toEqual([]);
    expect((await agt('skill', 'import', folder('good-too'), 'skills/good-too')).code).toBe(0);
    expect((await agt('skill', 'export', 'skills/good-too', empty)).code).toBe(0);
    expect(fs.readdirSync(empty)).toEqual(['SKILL.md']);
  });
});
