/**
 * Skills (K1–K4) against real processes: a kit server (the SDK's
 * SkillsExtension) serving a folder of skills and two tools over stdio, in
 * both eras; a server that lies about a file's digest; registry skills
 * written as Agent Skills and in the older form.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditEvent,
  connectMcp,
  isAgtError,
  type McpConnection,
  type McpDocument,
  McpPool,
  McpProber,
  MemoryStore,
  NativeRun,
  policies,
  ResourceService,
  toolAlias,
} from '../../src/index.js';
import { renderSkills } from '../../src/adapters.js';
import { createToolServer } from '../../src/authoring/index.js';
import { REPO_ROOT, tempDir } from '../support/index.js';
import { TAMPERED } from '../authoring/fixtures/tampered-skill.js';

const tmp = tempDir('agt-skills-');
const FIXTURE = path.join(REPO_ROOT, 'test/authoring/fixtures/skills-server.ts');
const server = (args: string[], protocol: '2026-07-28' | 'legacy') => ({
  mcpServers: { skills: { command: process.execPath, cwd: REPO_ROOT, args: ['--import', 'tsx', FIXTURE, ...args], protocol } },
});
const PDF =
  '---\nname: pdf-processing\ndescription: Extract, fill and assemble PDF documents.\n---\n# PDF\n\nRead references/FORMS.md first.\n';

function skillFolder(name: string): string {
  const dir = path.join(tmp.dir, name);
  fs.mkdirSync(path.join(dir, 'pdf-processing/references'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'pdf-processing/SKILL.md'), PDF);
  fs.writeFileSync(path.join(dir, 'pdf-processing/references/FORMS.md'), 'FORMS-GUIDE-TEXT\n');
  fs.mkdirSync(path.join(dir, 'pdf-processing/assets'));
  fs.writeFileSync(path.join(dir, 'pdf-processing/assets/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
  return dir;
}

const runs: NativeRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((r) => r.close()));
});
afterAll(() => tmp.cleanup());

const text = (r: unknown) => JSON.parse((r as { content: { text: string }[] }).content[0]!.text) as Record<string, unknown>;
const call = (run: NativeRun, batchId: string, calls: { callId: string; name: string; arguments: Record<string, unknown> }[]) =>
  run.executeBatch({ runId: run.id, agent: 'team/a', batchId, calls });

for (const protocol of ['2026-07-28', 'legacy'] as const) {
  describe(`skills served over MCP (${protocol})`, () => {
    let registry: ResourceService;
    let folder: string;
    beforeAll(async () => {
      folder = skillFolder(`served-${protocol}`);
      registry = new ResourceService({ store: new MemoryStore() });
      await registry.write({ kind: 'mcp', reference: 'tools/skills', create: true, data: server(['--skills', folder], protocol) });
      await registry.write({ kind: 'mcp', reference: 'tools/tampered', create: true, data: server(['--tamper'], protocol) });
      await registry.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/skills'] } });
    });

    it('K2: a mounted server that declares the extension contributes its skills; the probe lists them', async () => {
      const report = await new McpProber({ service: registry }).probe('tools/skills');
      expect(report.skills).toEqual([
        { uri: 'skill://pdf-processing/SKILL.md', name: 'pdf-processing', description: 'Extract, fill and assemble PDF documents.' },
      ]);
      const run = await NativeRun.start({ service: registry, agent: 'team/a', policy: policies.autoAllow('*') });
      runs.push(run);
      expect(run.skills()).toEqual([
        {
          name: 'pdf-processing',
          description: 'Extract, fill and assemble PDF documents.',
          source: { kind: 'mcp', mount: 'tools/skills', uri: 'skill://pdf-processing/SKILL.md' },
        },
      ]);
    });

    it('K3: the model is given names and descriptions; bodies and files come only through skill_read, audited like any call', async () => {
      const audit: AuditEvent[] = [];
      const run = await NativeRun.start({
        service: registry,
        agent: 'team/a',
        policy: policies.autoAllow('*'),
        audit: { record: (e) => void audit.push(e) },
      });
      runs.push(run);
      const tools = run.tools();
      expect(tools.map((t) => t.name)).toContain('skill_read');
      expect(JSON.stringify(tools)).not.toContain('FORMS-GUIDE-TEXT');
      expect(renderSkills(run.skills())).toContain('- pdf-processing: Extract, fill and assemble PDF documents.');
      const result = await call(run, 'b1', [
        { callId: 'body', name: 'skill_read', arguments: { name: 'pdf-processing' } },
        { callId: 'file', name: 'skill_read', arguments: { name: 'pdf-processing', path: 'references/FORMS.md' } },
        { callId: 'unknown', name: 'skill_read', arguments: { name: 'nope' } },
        { callId: 'outside', name: 'skill_read', arguments: { name: 'pdf-processing', path: '../x' } },
        { callId: 'invalid', name: 'skill_read', arguments: { skill: 'pdf-processing' } },
        { callId: 'binary', name: 'skill_read', arguments: { name: 'pdf-processing', path: 'assets/logo.png' } },
      ]);
      const [body, file, unknown, outside, invalid, binary] = result.results;
      expect(text(body)).toEqual({
        name: 'pdf-processing',
        path: 'SKILL.md',
        text: '# PDF\n\nRead references/FORMS.md first.\n',
        files: ['assets/logo.png', 'references/FORMS.md'],
      });
      expect(text(file)).toMatchObject({ path: 'references/FORMS.md', text: 'FORMS-GUIDE-TEXT\n' });
      expect(unknown).toMatchObject({ status: 'tool_error', error: { code: 'not_found' } });
      expect(outside).toMatchObject({ status: 'tool_error', error: { code: 'invalid_input', details: { reason: 'path_outside_skill' } } });
      expect(invalid).toMatchObject({ status: 'invalid_arguments' }); // validated like every call (B4)
      expect(binary).toMatchObject({ status: 'tool_error', error: { code: 'invalid_input', details: { reason: 'binary_file' } } });
      expect(audit.filter((e) => e.type === 'tool_call' && e.tool === 'skill_read')).toHaveLength(6);
    });

    it('K2: a file that fails verification is refused and its text is nowhere', async () => {
      await registry.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['tools/tampered'] } });
      const audit: AuditEvent[] = [];
      const run = await NativeRun.start({
        service: registry,
        agent: 'team/t',
        policy: policies.autoAllow('*'),
        audit: { record: (e) => void audit.push(e) },
      });
      runs.push(run);
      expect(run.skills().map((s) => s.name)).toEqual(['tampered']);
      const result = await run.executeBatch({
        runId: run.id,
        agent: 'team/t',
        batchId: 'b1',
        calls: [{ callId: 'c1', name: 'skill_read', arguments: { name: 'tampered' } }],
      });
      expect(result.results[0]).toMatchObject({ status: 'tool_error', error: { code: 'skill_unverified' } });
      expect(JSON.stringify(result)).not.toContain('EVILXX');
      expect(JSON.stringify(audit)).not.toContain('EVILXX');
      expect(TAMPERED.served.length).toBe(TAMPERED.listed.length); // same size: the digest is what catches it
      const connection = await connectMcp(server(['--tamper'], protocol));
      try {
        const { skills } = await connection.listSkills();
        const refused = await connection.readSkill(skills[0]!.uri).catch((e: unknown) => e);
        expect(isAgtError(refused) && refused.code === 'skill_unverified' && refused.details?.reason).toBe('digest');
      } finally {
        await connection.close();
      }
    });

    it('K2: leases of one pooled server share one skill list until the server announces a resources change', async () => {
      const pool = new McpPool({ service: registry });
      const document = server(['--skills', folder], protocol) as McpDocument;
      const lease = (owner: string) =>
        pool.lease({ reference: 'tools/skills', revision: 1, document, scope: 's', owner, connect: {}, busy: () => false });
      const [first, second] = [await lease('r1'), await lease('r2')];
      try {
        expect(second.connection).toBe(first.connection);
        const connection = first.connection as McpConnection & { listSkills: McpConnection['listSkills'] };
        const listSkills = connection.listSkills;
        let listed = 0;
        connection.listSkills = (options) => ((listed += 1), listSkills(options));
        const [a, b] = await Promise.all([first.listSkills(), second.listSkills()]);
        expect(a.skills.map((s) => s.name)).toEqual(['pdf-processing']);
        expect(b).toBe(a);
        expect(listed).toBe(1);
      } finally {
        await Promise.all([first.release(), second.release()]);
        await pool.close();
      }
    });

    it('K4: a skill added on the server reaches the next batch, and the fingerprint follows', async () => {
      const own = skillFolder(`added-${protocol}`);
      await registry.write({ kind: 'mcp', reference: 'tools/grow', create: true, data: server(['--skills', own], protocol) });
      await registry.write({ kind: 'agent', reference: 'team/g', create: true, data: { mcps: ['tools/grow'] } });
      const run = await NativeRun.start({ service: registry, agent: 'team/g', policy: policies.autoAllow('*') });
      runs.push(run);
      const before = run.snapshot.fingerprint;
      fs.mkdirSync(path.join(own, 'csv-tools'));
      fs.writeFileSync(path.join(own, 'csv-tools/SKILL.md'), '---\nname: csv-tools\ndescription: Work with CSV files.\n---\nUse commas.\n');
      const batch = { runId: run.id, agent: 'team/g' };
      const reload = await run.executeBatch({
        ...batch,
        batchId: 'b1',
        calls: [{ callId: 'c1', name: toolAlias('tools/grow', 'reload_skills'), arguments: {} }],
      });
      expect(text(reload.results[0])).toMatchObject({ listChanged: true });
      // The server's resources/list_changed reaches the run; the batch's end (or the next boundary) lists the skills again.
      await expect.poll(() => run.staleMounts.includes('tools/grow') || run.skills().length === 2, { timeout: 20_000 }).toBe(true);
      await run.refresh();
      expect(
        run
          .skills()
          .map((s) => s.name)
          .sort(),
      ).toEqual(['csv-tools', 'pdf-processing']);
      expect(run.snapshot.fingerprint).not.toBe(before);
      const read = await run.executeBatch({
        ...batch,
        batchId: 'b2',
        calls: [{ callId: 'c1', name: 'skill_read', arguments: { name: 'csv-tools' } }],
      });
      expect(text(read.results[0])).toMatchObject({ text: 'Use commas.\n' });
    });
  });
}

describe('registry skills', () => {
  const files = (description: string) => ({
    'SKILL.md': `---\nname: style-guide\ndescription: ${description}\n---\nWrite short sentences.\n`,
    'references/WORDS.md': 'Use plain words.\n',
  });

  it('K1: a registry skill is an Agent Skill: frontmatter by the Agent Skills rules, paths inside the skill, bounded', async () => {
    const registry = new ResourceService({ store: new MemoryStore() });
    await registry.write({ kind: 'skill', reference: 'docs/style', create: true, data: { files: files('How we write.') } });
    const refused = async (data: unknown) => {
      const error = await registry.write({ kind: 'skill', reference: 'docs/bad', create: true, data } as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isAgtError(error) && error.code).toBe('invalid_input');
      return (error as Error).message;
    };
    expect(await refused({ files: { 'SKILL.md': '---\nname: Bad_Name\ndescription: d\n---\n' } })).toContain('lowercase');
    expect(await refused({ files: { 'SKILL.md': '---\nname: x\n---\n' } })).toContain('description');
    expect(await refused({ files: { 'SKILL.md': `---\nname: x\ndescription: ${'d'.repeat(1025)}\n---\n` } })).toContain('1-1024');
    expect(await refused({ files: { 'SKILL.md': 'no frontmatter' } })).toContain('---');
    expect(await refused({ files: { 'README.md': 'x' } })).toContain('SKILL.md');
    expect(await refused({ files: { ...files('d'), '../escape.md': 'x' } })).toContain('inside the skill');
    expect(await refused({ files: { ...files('d'), '/etc/passwd': 'x' } })).toContain('relative');
    expect(await refused({ files: { ...files('d'), 'bin.png': 12 } })).toContain('text');
    const many = Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`f/${i}.md`, 'x']));
    expect(await refused({ files: { ...files('d'), ...many } })).toContain('at most 512');
    expect(await registry.store.get('skill', 'docs/bad')).toBeUndefined(); // nothing written
  });

  it('K1: the older { description, instructions } form stays readable and writable, as a SKILL.md with no files', async () => {
    const registry = new ResourceService({ store: new MemoryStore() });
    await registry.write({
      kind: 'skill',
      reference: 'docs/old_one',
      create: true,
      data: { description: 'An old skill', instructions: 'Do it.' },
    });
    await registry.write({ kind: 'skill', reference: 'docs/old_one', data: { description: 'An older skill' } });
    await registry.write({ kind: 'agent', reference: 'team/a', create: true, data: { skills: ['docs/old_one'] } });
    const run = await NativeRun.start({ service: registry, agent: 'team/a', policy: policies.autoAllow('*') });
    try {
      expect(run.skills()).toEqual([
        { name: 'old-one', description: 'An older skill', source: { kind: 'registry', reference: 'docs/old_one' } },
      ]);
      const read = await call(run, 'b1', [{ callId: 'c1', name: 'skill_read', arguments: { name: 'old-one' } }]);
      expect(text(read.results[0])).toEqual({ name: 'old-one', path: 'SKILL.md', text: 'Do it.' });
    } finally {
      await run.close();
    }
  });

  it('K4: a registry skill changed by resource_write mid-run takes effect at the boundary, and the fingerprint follows', async () => {
    const registry = new ResourceService({ store: new MemoryStore() });
    await registry.write({ kind: 'skill', reference: 'docs/style', create: true, data: { files: files('How we write.') } });
    await registry.write({
      kind: 'agent',
      reference: 'team/a',
      create: true,
      data: { role: 'manager', skills: ['docs/style'] },
    });
    const run = await NativeRun.start({ service: registry, agent: 'team/a', policy: policies.autoAllow('*') });
    try {
      const before = run.snapshot.fingerprint;
      const changed = files('How we write, now.');
      const result = await call(run, 'b1', [
        { callId: 'w', name: 'resource_write', arguments: { kind: 'skill', reference: 'docs/style', data: { files: changed } } },
        { callId: 'r', name: 'skill_read', arguments: { name: 'style-guide', path: 'references/WORDS.md' } },
      ]);
      expect(result.results.map((r) => r.status)).toEqual(['ok', 'ok']);
      expect(result.refresh?.status).toBe('applied');
      expect(run.skills()[0]?.description).toBe('How we write, now.');
      expect(run.snapshot.fingerprint).not.toBe(before);
    } finally {
      await run.close();
    }
  });

  it('K3: a name two sources declare stays with the first; the later one is named <source>:<name>', async () => {
    const registry = new ResourceService({ store: new MemoryStore() });
    await registry.write({ kind: 'skill', reference: 'docs/a', create: true, data: { files: files('First.') } });
    await registry.write({ kind: 'skill', reference: 'docs/b', create: true, data: { files: files('Second.') } });
    await registry.write({ kind: 'agent', reference: 'team/a', create: true, data: { skills: ['docs/b', 'docs/a'] } });
    const run = await NativeRun.start({ service: registry, agent: 'team/a', policy: policies.autoAllow('*') });
    try {
      expect(run.skills().map((s) => [s.name, s.description])).toEqual([
        ['style-guide', 'First.'],
        ['docs/b:style-guide', 'Second.'],
      ]);
    } finally {
      await run.close();
    }
  });
});

describe('the kit serves skills', () => {
  it('K2: a skills folder that cannot be read fails ready() with invalid_input; once it exists, a new server loads it', async () => {
    const missing = path.join(tmp.dir, 'not-yet');
    const first = createToolServer({ name: 'late', version: '1.0.0', tools: [], skills: missing });
    const error = await first.ready().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAgtError(error) && error.code).toBe('invalid_input');
    fs.cpSync(skillFolder('late-source'), missing, { recursive: true });
    const second = createToolServer({ name: 'late', version: '1.0.0', tools: [], skills: missing });
    await second.ready();
    expect((await second.reloadSkills()).listChanged).toBe(false); // loaded: scanning again changes nothing
  });
});
