/**
 * `agt skill import|show|export` (K1): a skill folder in, the same files out;
 * a symbolic link out of the folder and a binary file are refused, nothing
 * stored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runAgt, tempDir } from '../support/index.js';

const tmp = tempDir('agt-skills-cli-');
const db = path.join(tmp.dir, 'agt.db');
const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
afterAll(() => tmp.cleanup());

function folder(name: string): string {
  const dir = path.join(tmp.dir, name);
  fs.mkdirSync(path.join(dir, 'references'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'SKILL.md'),
    '---\nname: pdf-processing\ndescription: Work with PDF files.\n---\nRead references/FORMS.md.\n',
  );
  fs.writeFileSync(path.join(dir, 'references/FORMS.md'), 'Fill every field.\n');
  return dir;
}

describe('agt skill', () => {
  it('K1: import reads a skill folder, show lists its files, export writes the same files back', async () => {
    const dir = folder('pdf');
    const imported = await agt('skill', 'import', dir);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('imported skill skills/pdf-processing (revision 1)');
    const shown = await agt('skill', 'show', 'skills/pdf-processing', '--json');
    expect(JSON.parse(shown.stdout)).toMatchObject({
      name: 'pdf-processing',
      description: 'Work with PDF files.',
      files: [{ path: 'SKILL.md' }, { path: 'references/FORMS.md', size: 18 }],
    });
    const out = path.join(tmp.dir, 'out');
    expect((await agt('skill', 'export', 'skills/pdf-processing', out)).code).toBe(0);
    for (const file of ['SKILL.md', 'references/FORMS.md'])
      expect(fs.readFileSync(path.join(out, file), 'utf8')).toBe(fs.readFileSync(path.join(dir, file), 'utf8'));
    expect((await agt('skill', 'import', dir)).stdout).toContain('updated skill skills/pdf-processing (revision 2)');
  });

  it('K1: a symbolic link out of the folder, a binary file and a bad frontmatter are refused; nothing is stored', async () => {
    const outside = path.join(tmp.dir, 'secret.txt');
    fs.writeFileSync(outside, 'SECRET-OUTSIDE');
    const linked = folder('linked');
    fs.symlinkSync(outside, path.join(linked, 'references/secret.txt'));
    const refused = await agt('skill', 'import', linked, 'skills/linked');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('symbolic link out of the skill folder');
    expect(refused.stdout + refused.stderr).not.toContain('SECRET-OUTSIDE');
    const binary = folder('binary');
    fs.writeFileSync(path.join(binary, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    expect((await agt('skill', 'import', binary, 'skills/binary')).stderr).toContain('text files only');
    const bad = folder('bad');
    fs.writeFileSync(path.join(bad, 'SKILL.md'), '---\nname: Bad_Name\ndescription: d\n---\n');
    expect((await agt('skill', 'import', bad, 'skills/bad')).stderr).toContain('lowercase');
    const missing = await agt('skill', 'show', 'skills/linked');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('agt skill import');
  });

  it('K1: an agent mounts an imported skill by its bare name; show lists it, update removes it', async () => {
    expect((await agt('skill', 'import', folder('mounted'), 'pdf')).code).toBe(0);
    const created = await agt('agent', 'create', 'team/reader', '--skill', 'pdf', '--skill', 'skills/none');
    expect(created.code, created.stderr).toBe(0);
    const shown = await agt('agent', 'show', 'team/reader');
    expect(shown.stdout).toContain('ok      skills/pdf');
    expect(shown.stdout).toContain('missing skills/none');
    const updated = await agt('agent', 'update', 'team/reader', '--remove-skill', 'none', '--json');
    expect(JSON.parse(updated.stdout).record.data.skills).toEqual(['skills/pdf']);
  });

  it('K2: agt mcp probe lists the skills a server serves', async () => {
    const served = path.join(tmp.dir, 'served');
    fs.mkdirSync(served);
    fs.cpSync(folder('probed'), path.join(served, 'pdf-processing'), { recursive: true });
    const fixture = path.join(REPO_ROOT, 'test/authoring/fixtures/skills-server.ts');
    const added = await agt(
      'mcp',
      'add',
      'skl',
      '--cwd',
      REPO_ROOT,
      '--',
      process.execPath,
      '--import',
      'tsx',
      fixture,
      '--skills',
      served,
    );
    expect(added.code, added.stderr).toBe(0);
    const probed = await agt('mcp', 'probe', 'skl');
    expect(probed.code, probed.stderr).toBe(0);
    expect(probed.stdout).toContain('skills: 1');
    expect(probed.stdout).toContain('pdf-processing — Work with PDF files.');
  });
});
