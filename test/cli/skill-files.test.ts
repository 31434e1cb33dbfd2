/**
 * `agt skill import|export` against hostile folders and records:
 * a folder far heavier than a skill may be, read only up to the
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
  it('K1: import reads no more than a skill may weigh: 400 MB of hard links stop at the bound', async () => {
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

  it('K1: import counts the bytes of all files together against the document bound', async () => {
    const chunk = 'y'.repeat(100_000);
    const dir = folder('together', { 'a.md': chunk, 'b.md': chunk, 'c.md': chunk });
    const result = await agt('skill', 'import', dir, 'skills/together');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('files of the skill weigh more than 262144 bytes together');
    expect(await stored('skills/together')).toBeUndefined();
  });

  it('K1: a dangling or looping link, and an export into a file or a dangling link, are invalid_input, exit 2', async () => {
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

  it('K1: export writes all or nothing: a failure half way leaves no folder behind', async () => {
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

  it('R2: show and export of a hand-edited skill row are store_unavailable corrupt_record, exit 5, and write nothing', async () => {
    const edited: Record<string, unknown> = {
      'skills/e-number': { description: 5 },
      'skills/e-array': { files: ['SKILL.md'] },
      'skills/e-none': { files: { 'x.md': 'x' } },
      'skills/e-outside': { files: { 'SKILL.md': SKILL, '../x.md': 'x' } },
      'skills/e-absolute': { files: { 'SKILL.md': SKILL, '/tmp/x.md': 'x' } },
      'skills/e-dot': { files: { 'SKILL.md': SKILL, './x.md': 'x' } },
      'skills/e-empty': { files: { 'SKILL.md': SKILL, 'a//x.md': 'x' } },
      'skills/e-backslash': { files: { 'SKILL.md': SKILL, 'a\\x.md': 'x' } },
      'skills/e-control': { files: { 'SKILL.md': SKILL, 'a\u009b2J\u202e.md': 'x' } },
      'skills/e-numbers': { files: { 'SKILL.md': SKILL, 'x.md': 5 } },
      'skills/e-many': { files: { 'SKILL.md': SKILL, ...Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${i}.md`, 'x'])) } },
    };
    const store = new SqliteStore({ path: db });
    try {
      for (const [reference, data] of Object.entries(edited))
        await store.put({ kind: 'skill', reference, data }, { expectedRevision: null });
    } finally {
      await store.close();
    }
    const parent = path.join(tmp.dir, 'edited-exports');
    fs.mkdirSync(parent);
    for (const reference of Object.keys(edited)) {
      for (const args of [
        ['show', reference],
        ['export', reference, path.join(parent, 'out')],
      ]) {
        const out = await agt('skill', ...args);
        expect([out.code, out.stdout], `${args.join(' ')}: ${out.stderr}`).toEqual([5, '']);
        expect(out.stderr).toMatch(/^agt: store_unavailable: skill skills\/e-[a-z]+ as stored breaks the registry's rules \(/);
        expect(out.stderr).not.toMatch(/[\u0080-\u009f\u202e]/);
      }
    }
    expect(fs.readdirSync(parent)).toEqual([]);
  });

  it('K1: export into an empty folder keeps that folder (the shell in it still sees the files; its mode stays)', async () => {
    expect((await agt('skill', 'import', folder('kept', { 'references/a.md': 'A' }), 'skills/kept')).code).toBe(0);
    const into = path.join(tmp.dir, 'into-here');
    fs.mkdirSync(into, { mode: 0o700 });
    const before = fs.statSync(into);
    // `agt skill export REF .` from inside the folder: before the fix the folder was replaced by a new one.
    const out = await runAgt(['skill', 'export', 'skills/kept', '.'], { home: into, db });
    expect(out.code, out.stderr).toBe(0);
    const after = fs.statSync(into);
    expect([after.ino, after.mode & 0o777]).toEqual([before.ino, 0o700]);
    expect(fs.readdirSync(into).sort()).toEqual(['SKILL.md', 'references']);
    expect(fs.readFileSync(path.join(into, 'references/a.md'), 'utf8')).toBe('A');
  });

  it('K1: import refuses a file named with C1 or bidi controls or not in UTF-8; show lists each file by its path as stored', async () => {
    const odd = folder('odd-names', { [`gnp\u202e.md`]: 'x' });
    const refused = await agt('skill', 'import', odd, 'skills/odd-names');
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('must not hold control characters')]);
    expect(refused.stderr).not.toContain('\u202e');
    // A name that is not UTF-8 (bytes a Linux folder may hold): said as such, not as "does not exist".
    const latin = folder('latin-name');
    fs.writeFileSync(Buffer.concat([Buffer.from(`${latin}/caf`), Buffer.from([0xe9]), Buffer.from('.md')]), 'x');
    const notUtf8 = await agt('skill', 'import', latin, 'skills/latin-name');
    expect([notUtf8.code, notUtf8.stderr]).toEqual([2, expect.stringContaining('is not valid UTF-8; rename it')]);
    const spaced = folder('spaced', { 'my notes.md': 'x', 'Q&A/é.md': 'y' });
    expect((await agt('skill', 'import', spaced, 'skills/spaced')).code).toBe(0);
    const shown = await agt('skill', 'show', 'skills/spaced');
    expect(shown.stdout).toContain('\n  my notes.md (1 bytes)');
    expect(shown.stdout).toContain('\n  Q&A/é.md (1 bytes)');
  });
});
