/**
 * Skills against hostile input: a scripted stdio
 * server that lists its files under raw path spellings or never answers
 * `skills/list`, a run with a thousand skills, a registry skill whose paths
 * cannot coexist on disk.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAgtError, MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { REPO_ROOT } from '../support/index.js';

const FIXTURE = path.join(REPO_ROOT, 'test/skills/fixtures/hostile-skills-server.ts');
const hostile = (mode: '--raw-paths' | '--hang-list') => ({
  mcpServers: { hostile: { command: process.execPath, cwd: REPO_ROOT, args: ['--import', 'tsx', FIXTURE, mode] } },
});
const SKILL = (name: string, description = 'A skill.') => `---\nname: ${name}\ndescription: ${description}\n---\nDo it.\n`;

const runs: NativeRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((r) => r.close()));
});

async function start(service: ResourceService, options: Partial<Parameters<typeof NativeRun.start>[0]> = {}): Promise<NativeRun> {
  const run = await NativeRun.start({ service, agent: 'team/a', policy: policies.autoAllow('*'), ...options });
  runs.push(run);
  return run;
}
const read = (run: NativeRun, args: { name: string; path?: string }[]) =>
  run.executeBatch({
    runId: run.id,
    agent: 'team/a',
    batchId: `b${Math.random()}`,
    calls: args.map((a, i) => ({ callId: `c${i}`, name: 'skill_read', arguments: a })),
  });
const body = (r: unknown) => JSON.parse((r as { content: { text: string }[] }).content[0]!.text) as Record<string, unknown>;

describe('hostile skills', () => {
  it("K3: skill_read lists a server's files only as paths it reads, normalised, and reads each of them", async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/raw', create: true, data: hostile('--raw-paths') });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/raw'] } });
    const run = await start(service);
    const [manifest] = (await read(run, [{ name: 'raw' }])).results;
    const files = body(manifest).files as string[];
    // Raw spellings resolve as the URI does (`..`, `%2e%2e`), escapes are decoded; what no path can name is left out.
    expect(files).toEqual(['Q&A.md', 'etc/passwd', 'other/NOTES.md', 'references/GOOD.md']);
    const results = (
      await read(
        run,
        files.map((p) => ({ name: 'raw', path: p })),
      )
    ).results;
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(results.map((r) => body(r).text)).toEqual(['QA-TEXT\n', 'PASSWD-TEXT\n', 'NOTES-TEXT\n', 'GOOD-TEXT\n']);
    const raw = (await read(run, [{ name: 'raw', path: '../other/NOTES.md' }])).results[0];
    expect(raw).toMatchObject({ status: 'tool_error', error: { code: 'invalid_input', details: { reason: 'path_outside_skill' } } });
  });

  it('K3: the unknown-skill error of skill_read is bounded: how many skills, and the closest names', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const references = Array.from({ length: 1000 }, (_, i) => `lib/skill-${i}`);
    await Promise.all(
      references.map((reference, i) =>
        service.write({ kind: 'skill', reference, create: true, data: { files: { 'SKILL.md': SKILL(`skill-number-${i}`) } } }),
      ),
    );
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { skills: references } });
    const run = await start(service);
    expect(run.skills()).toHaveLength(1000);
    const [unknown] = (await read(run, [{ name: 'skill-number-12x' }])).results;
    expect(unknown).toMatchObject({ status: 'tool_error', error: { code: 'not_found', details: { reason: 'unknown_skill' } } });
    const message = (unknown as { error: { message: string } }).error.message;
    expect(message.length).toBeLessThan(400);
    expect(message).toContain('1000 skills');
    expect(message).toContain('skill-number-12');
  });

  it('K4: skills/list is bounded by the list timeout, not the call timeout: a server that never answers it', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/hang', create: true, data: hostile('--hang-list') });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/hang'] } });
    // Before the fix the run waited for the call timeout (here 10 minutes, past this test's own bound).
    const run = await start(service, { timeouts: { listMs: 3_000, callMs: 600_000 } });
    expect(run.skills()).toEqual([]);
    expect(run.tools().map((t) => t.name)).toContain(toolAlias('tools/hang', 'ping'));
    expect(run.notices.join('\n')).toContain('skills/list did not complete within 3000 ms');
  }, 60_000);

  it('K1: the registry refuses a skill whose paths cannot coexist on disk, naming both', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const refused = async (files: { 'SKILL.md': string; [path: string]: string }) => {
      const error = await service.write({ kind: 'skill', reference: 'docs/clash', create: true, data: { files } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isAgtError(error) && error.code).toBe('invalid_input');
      return (error as Error).message;
    };
    const message = await refused({ 'SKILL.md': SKILL('clash'), a: 'file', 'a/b': 'file under it' });
    expect(message).toContain('"a"');
    expect(message).toContain('"a/b"');
    expect(await refused({ 'SKILL.md': SKILL('clash'), 'SKILL.md/x': 'x' })).toContain('"SKILL.md/x"');
    expect(await refused({ 'SKILL.md': SKILL('clash'), 'd/e': 'x', 'd/e/f/g': 'x' })).toContain('"d/e/f/g"');
    expect(await service.store.get('skill', 'docs/clash')).toBeUndefined();
    const kept = { 'SKILL.md': SKILL('clash'), 'a/b': 'x', 'a/c': 'y', ab: 'z', 'a.b': 'w' };
    await service.write({ kind: 'skill', reference: 'docs/fine', create: true, data: { files: kept } });
  });

  it('K3: three skills of one name on one server are each listed under a name of their own, and each reads its own text', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const raw = { command: process.execPath, cwd: REPO_ROOT, args: [path.join(REPO_ROOT, 'test/skills/fixtures/raw-skills-server.mjs')] };
    await service.write({ kind: 'mcp', reference: 'tools/raw', create: true, data: { mcpServers: { raw } } });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/raw'] } });
    const run = await start(service);
    const twins = run.skills().filter((s) => s.name.includes('twin'));
    // Before the fix the third took the second's name: the second was gone from the run.
    expect(twins.map((s) => (s.source as { uri: string }).uri)).toEqual([
      'skill://a/twin/SKILL.md',
      'skill://b/twin/SKILL.md',
      'skill://c/twin/SKILL.md',
    ]);
    expect(new Set(twins.map((s) => s.name)).size).toBe(3);
    const results = (
      await read(
        run,
        twins.map((s) => ({ name: s.name })),
      )
    ).results;
    expect(results.map((r) => body(r).text)).toEqual(['The a/twin skill.\n', 'The b/twin skill.\n', 'The c/twin skill.\n']);
  });

  it('K1: a hand-edited registry skill row is left out of a run with a notice, never a raw TypeError or an unreadable file', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const edited: Record<string, unknown> = {
      'lib/number': { description: 5 },
      'lib/array': { files: ['SKILL.md'] },
      'lib/none': { files: { 'x.md': 'x' } },
      'lib/outside': { files: { 'SKILL.md': SKILL('outside'), '../x.md': 'x' } },
      'lib/backslash': { files: { 'SKILL.md': SKILL('backslash'), 'a\\..\\x.md': 'x' } },
      'lib/control': { files: { 'SKILL.md': SKILL('control'), 'a\u001b[2J\nagt: done: forged': 'x' } },
      'lib/numbers': { files: { 'SKILL.md': SKILL('numbers'), 'x.md': 5 } },
    };
    // Written straight into the store, as a hand edit would: the service's checks never saw them.
    for (const [reference, data] of Object.entries(edited))
      await service.store.put({ kind: 'skill', reference, data }, { expectedRevision: null });
    await service.write({ kind: 'skill', reference: 'lib/good', create: true, data: { files: { 'SKILL.md': SKILL('good') } } });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { skills: [...Object.keys(edited), 'lib/good'] } });
    const run = await start(service);
    expect(run.skills().map((s) => s.name)).toEqual(['good']);
    for (const reference of Object.keys(edited))
      expect(run.notices.find((n) => n.includes(`"${reference}"`))).toMatch(/as stored breaks the registry's rules.*\(skipped\)$/);
  });

  it('K1: a skill path holding C1 controls, bidi controls, line separators or half a surrogate pair is refused at write', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    for (const bad of ['a\u009b2J.md', 'a\u0085.md', 'gnp\u202e.md', 'a\u2066.md', 'a\u2028.md', 'a\ud800.md']) {
      const error = await service
        .write({ kind: 'skill', reference: 'docs/odd', create: true, data: { files: { 'SKILL.md': SKILL('odd'), [bad]: 'x' } } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isAgtError(error) && error.code, JSON.stringify(bad)).toBe('invalid_input');
      expect((error as Error).message).not.toMatch(/[\u0080-\u009f\u202e\u2066\u2028\ud800]/);
    }
  });
});
