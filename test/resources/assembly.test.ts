/**
 * SPEC §11 service/assembly: config replacement, add/remove, clearing,
 * expected_revision, deleted resources showing as unavailable, concurrent
 * updates in one process (across processes: assembly-processes.test.ts),
 * entry rules.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore, ResourceService } from '../../src/index.js';
import { type ResourceStore } from '../../src/adapters.js';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { failure, stdioDoc, tempDir } from '../support/index.js';

let tmp: ReturnType<typeof tempDir>;
let service: ResourceService;
let store: ResourceStore;

beforeEach(() => {
  tmp = tempDir();
  store = new MemoryStore();
  service = new ResourceService({ store });
});
afterEach(() => tmp.cleanup());

const mcp = (reference: string, config: Record<string, unknown> = { command: 'node', args: ['server.js'], cwd: '/srv/tools' }) =>
  service.write({ kind: 'mcp', reference, create: true, data: stdioDoc(config) });
const agent = (reference: string, data: Record<string, unknown> = {}) => service.write({ kind: 'agent', reference, create: true, data });
const mountsOf = async (reference: string) => ((await service.read({ kind: 'agent', reference })).data as { mcps: string[] }).mcps;

describe("A1/A2: mounts are the agent's data.mcps, replaced as a whole", () => {
  it('A1: the mounts are data.mcps of the agent record; describeAgent shows them', async () => {
    await mcp('tools/search');
    await agent('team/alice', { mcps: ['tools/search'] });
    expect(await mountsOf('team/alice')).toEqual(['tools/search']);
    expect((await service.describeAgent('team/alice')).mcps.map((m) => m.reference)).toEqual(['tools/search']);
  });

  it('A2: data.mcps replaces the whole list, omitting it keeps it, [] clears it', async () => {
    await agent('team/alice', { mcps: ['tools/a', 'tools/b'] });
    await service.write({ kind: 'agent', reference: 'team/alice', data: { mcps: ['tools/c'] } });
    expect(await mountsOf('team/alice')).toEqual(['tools/c']);
    await service.write({ kind: 'agent', reference: 'team/alice', data: { name: 'Alice' } });
    expect(await mountsOf('team/alice')).toEqual(['tools/c']);
    expect((await service.read({ kind: 'agent', reference: 'team/alice' })).data).toMatchObject({ name: 'Alice' });
    await service.write({ kind: 'agent', reference: 'team/alice', data: { mcps: [] } });
    expect(await mountsOf('team/alice')).toEqual([]);
  });

  it('A2: skills follow the same rules', async () => {
    await service.write({
      kind: 'skill',
      reference: 'skills/triage',
      create: true,
      data: { description: 'Triage tickets', instructions: 'Read first.' },
    });
    await agent('team/alice', { skills: ['skills/triage'] });
    await service.write({ kind: 'agent', reference: 'team/alice', remove: { skills: ['skills/triage'] } });
    expect((await service.read({ kind: 'agent', reference: 'team/alice' })).data).toMatchObject({ skills: [] });
  });
});

describe('A1: agent data knows its keys', () => {
  it('A1: a misspelled key ({ mcp: [...] }) is invalid_input naming it and the closest key; nothing is stored', async () => {
    const f = await failure(agent('team/alice', { mcp: ['tools/search'] }));
    expect(f).toMatchObject({ code: 'invalid_input', details: { key: 'mcp', closest: 'mcps' } });
    expect(f.message).toMatch(/agent data: unknown key "mcp"; did you mean "mcps"\?/);
    expect(f.message).not.toContain('tools/search');
    expect(await store.list('agent')).toEqual([]);
  });

  it('A1: an agent stored before unknown keys were refused still loads and can be written; describeAgent shows its mounts', async () => {
    await store.put({ kind: 'agent', reference: 'team/old', data: { mcps: ['tools/a'], mcp: ['tools/b'] } }, { expectedRevision: null });
    expect((await service.describeAgent('team/old')).mcps.map((m) => m.reference)).toEqual(['tools/a']);
    await service.write({ kind: 'agent', reference: 'team/old', data: { name: 'Old' } });
    expect((await service.read({ kind: 'agent', reference: 'team/old' })).data).toMatchObject({ name: 'Old', mcps: ['tools/a'] });
  });
});

describe('A3: single-item add/remove, never losing each other', () => {
  it('A3: add appends once, remove takes out, other mounts stay', async () => {
    await agent('team/alice', { mcps: ['tools/a'] });
    await service.write({ kind: 'agent', reference: 'team/alice', add: { mcps: ['tools/b', 'tools/a'] } });
    expect(await mountsOf('team/alice')).toEqual(['tools/a', 'tools/b']);
    await service.write({ kind: 'agent', reference: 'team/alice', remove: { mcps: ['tools/a'] }, add: { mcps: ['tools/c'] } });
    expect(await mountsOf('team/alice')).toEqual(['tools/b', 'tools/c']);
  });

  it('A3: 50 concurrent adds in one process all land (MemoryStore)', async () => {
    await agent('team/alice');
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => service.write({ kind: 'agent', reference: 'team/alice', add: { mcps: [`m/x${i}`] } })),
    );
    expect((await mountsOf('team/alice')).length).toBe(50);
  });

  it('A3: updates of one resource within a process queue: 50 concurrent adds cause no compare-and-set conflict', async () => {
    let conflicts = 0;
    const counting: ResourceStore = {
      get: (k, r) => store.get(k, r),
      list: (k, o) => store.list(k, o),
      delete: (k, r, o) => store.delete(k, r, o),
      put: async (record, options) => {
        try {
          return await store.put(record, options);
        } catch (error) {
          conflicts += 1;
          throw error;
        }
      },
    };
    const queued = new ResourceService({ store: counting });
    await queued.write({ kind: 'agent', reference: 'team/q', create: true, data: {} });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => queued.write({ kind: 'agent', reference: 'team/q', add: { mcps: [`m/q${i}`] } })),
    );
    expect(((await queued.read({ kind: 'agent', reference: 'team/q' })).data as { mcps: string[] }).mcps).toHaveLength(50);
    expect(conflicts).toBe(0);
  });

  it('A3: concurrent adds and removes interleave without loss (SqliteStore, one process)', async () => {
    const sqlite = new SqliteStore({ path: path.join(tmp.dir, 'one.db') });
    const svc = new ResourceService({ store: sqlite });
    await svc.write({
      kind: 'agent',
      reference: 'team/bob',
      create: true,
      data: { mcps: Array.from({ length: 20 }, (_, i) => `m/old${i}`) },
    });
    await Promise.all([
      ...Array.from({ length: 25 }, (_, i) => svc.write({ kind: 'agent', reference: 'team/bob', add: { mcps: [`m/new${i}`] } })),
      ...Array.from({ length: 20 }, (_, i) => svc.write({ kind: 'agent', reference: 'team/bob', remove: { mcps: [`m/old${i}`] } })),
    ]);
    const mounts = ((await svc.read({ kind: 'agent', reference: 'team/bob' })).data as { mcps: string[] }).mcps;
    expect([...mounts].sort()).toEqual(Array.from({ length: 25 }, (_, i) => `m/new${i}`).sort());
    await sqlite.close();
  });
});

describe('A4: revisions guard against stale forms', () => {
  it('A4: read returns the revision; a stale expectedRevision is rejected with the current one', async () => {
    const { record } = await agent('team/alice');
    expect(record.revision).toBe(1);
    await service.write({ kind: 'agent', reference: 'team/alice', expectedRevision: 1, data: { name: 'A' } });
    expect((await service.read({ kind: 'agent', reference: 'team/alice' })).revision).toBe(2);
    const f = await failure(service.write({ kind: 'agent', reference: 'team/alice', expectedRevision: 1, data: { name: 'B' } }));
    expect(f.code).toBe('revision_conflict');
    expect(f.details).toMatchObject({ expectedRevision: 1, currentRevision: 2 });
    expect(((await service.read({ kind: 'agent', reference: 'team/alice' })).data as { name: string }).name).toBe('A');
  });

  it('A4: delete with a stale expectedRevision is rejected and deletes nothing', async () => {
    await mcp('tools/a');
    await service.write({ kind: 'mcp', reference: 'tools/a', data: stdioDoc({ command: 'node', cwd: '/srv' }) });
    expect((await failure(service.delete({ kind: 'mcp', reference: 'tools/a', expectedRevision: 1 }))).code).toBe('revision_conflict');
    await service.delete({ kind: 'mcp', reference: 'tools/a', expectedRevision: 2 });
    expect((await failure(service.read({ kind: 'mcp', reference: 'tools/a' }))).code).toBe('not_found');
  });
});

describe('A5/A6: resolved mounts and agent descriptions', () => {
  it('A5: agent_mcp_list resolves each mount; a deleted mcp shows as missing', async () => {
    await mcp('tools/ok', { command: process.execPath, args: ['x.js'], cwd: tmp.dir });
    await mcp('tools/gone');
    await agent('team/alice', { mcps: ['tools/ok', 'tools/gone', 'tools/never'] });
    await service.delete({ kind: 'mcp', reference: 'tools/gone' });
    const list = await service.agentMcpList('team/alice');
    expect(list.map((m) => [m.reference, m.exists, m.problems.length > 0])).toEqual([
      ['tools/ok', true, false],
      ['tools/gone', false, true],
      ['tools/never', false, true],
    ]);
    expect(list[0]).toMatchObject({ transport: 'stdio', revision: 1 });
  });

  it('A6: describeAgent gives identity, role, enabled, kind, capabilities and the resolved assembly', async () => {
    await mcp('tools/remote', { url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer x' } });
    await agent('team/boss', { name: 'Boss', role: 'manager', mcps: ['tools/remote'], settings: { model: 'm1' } });
    await agent('team/plain');
    const boss = await service.describeAgent('team/boss');
    expect(boss).toMatchObject({
      reference: 'team/boss',
      name: 'Boss',
      role: 'manager',
      kind: 'native',
      enabled: true,
      resourceManagement: true,
      mcps: [{ reference: 'tools/remote', exists: true, transport: 'streamable-http', problems: [] }],
      settings: { model: 'm1' },
    });
    const plain = await service.describeAgent('team/plain');
    expect(plain).toMatchObject({ role: 'worker', kind: 'native', enabled: true, capabilities: [], resourceManagement: false, mcps: [] });
    await service.write({ kind: 'agent', reference: 'team/plain', data: { capabilities: ['resource_management'], enabled: false } });
    expect(await service.describeAgent('team/plain')).toMatchObject({ enabled: false, resourceManagement: true });
  });

  it('A6: mounting an unregistered mcp is allowed but warned about', async () => {
    const { warnings } = await agent('team/alice', { mcps: ['tools/later'] });
    expect(warnings.join()).toMatch(/tools\/later" is not registered/);
  });
});

describe('A7/A8: removed options and harness agents', () => {
  it.each([['allowMcp'], ['allow_mcp']])('A7: %s fails with option_removed, in the input or in data', async (key) => {
    await agent('team/alice');
    const top = await failure(service.write({ kind: 'agent', reference: 'team/alice', data: {}, [key]: true } as never));
    expect(top.code).toBe('option_removed');
    expect(top.message).toMatch(/Stop sending/);
    expect((await failure(service.write({ kind: 'agent', reference: 'team/alice', data: { [key]: true } }))).code).toBe('option_removed');
  });

  it('A8: mounting MCP on a harness agent is rejected, however it is attempted', async () => {
    expect((await failure(agent('team/h', { kind: 'harness', mcps: ['tools/a'] }))).message).toMatch(/harness agents do not support/);
    await agent('team/h', { kind: 'harness' });
    expect((await failure(service.write({ kind: 'agent', reference: 'team/h', add: { mcps: ['tools/a'] } }))).details).toMatchObject({
      reason: 'harness_mcp_unsupported',
    });
    await agent('team/n', { mcps: ['tools/a'] });
    expect((await failure(service.write({ kind: 'agent', reference: 'team/n', data: { kind: 'harness' } }))).code).toBe('invalid_input');
    expect(await mountsOf('team/n')).toEqual(['tools/a']);
  });
});

describe('entry rules: bad input loses nothing', () => {
  it('create: true fails if it exists; create: false fails if it does not', async () => {
    await agent('team/alice');
    expect((await failure(agent('team/alice'))).code).toBe('already_exists');
    expect((await failure(service.write({ kind: 'agent', reference: 'team/nobody', data: { name: 'x' } }))).code).toBe('not_found');
  });

  it.each([
    ['an unknown kind', { kind: 'tool', reference: 'a/b', create: true, data: {} }],
    ['a malformed reference', { kind: 'agent', reference: 'Team/Alice', create: true, data: {} }],
    ['a bare name', { kind: 'agent', reference: 'alice', create: true, data: {} }],
    ['a path-like reference', { kind: 'agent', reference: 'a/../b', create: true, data: {} }],
    ['a wrong type', { kind: 'agent', reference: 'a/b', create: true, data: { mcps: 'tools/a' } }],
    ['a bad mount reference', { kind: 'agent', reference: 'a/b', create: true, data: { mcps: ['not a ref'] } }],
    ['a misspelt expectedrevision', { kind: 'agent', reference: 'a/b', data: {}, expectedrevision: 1 }],
    ['the snake-case expected_revision (the model-facing JSON name)', { kind: 'agent', reference: 'a/b', data: {}, expected_revision: 1 }],
    ['a non-integer revision', { kind: 'agent', reference: 'a/b', data: {}, expectedRevision: 1.5 }],
    ['a skill without description', { kind: 'skill', reference: 'a/b', create: true, data: { instructions: 'x' } }],
    ['add on an mcp', { kind: 'mcp', reference: 'a/b', add: { mcps: ['x/y'] } }],
    ['data.mcps together with add.mcps', { kind: 'agent', reference: 'a/b', data: { mcps: [] }, add: { mcps: ['x/y'] } }],
  ])('%s is invalid_input and writes nothing', async (_label, input) => {
    await agent('a/b');
    const before = await store.list('agent');
    expect((await failure(service.write(input as never))).code).toBe('invalid_input');
    expect(await store.list('agent')).toEqual(before);
    expect(await store.list('skill')).toEqual([]);
  });

  it('A4: expectedRevision guards writes and deletes; the TypeScript API refuses expected_revision naming expectedRevision', async () => {
    await agent('a/b');
    expect((await service.write({ kind: 'agent', reference: 'a/b', data: { name: 'one' }, expectedRevision: 1 })).record.revision).toBe(2);
    expect((await failure(service.write({ kind: 'agent', reference: 'a/b', data: { name: 'stale' }, expectedRevision: 1 }))).code).toBe(
      'revision_conflict',
    );
    expect((await service.write({ kind: 'agent', reference: 'a/b', data: { name: 'two' }, expectedRevision: 2 })).record.revision).toBe(3);
    const snake = await failure(service.write({ kind: 'agent', reference: 'a/b', data: {}, expected_revision: 3 } as never));
    expect(snake).toMatchObject({ code: 'invalid_input', details: { field: 'expected_revision' } });
    expect(snake.message).toContain('did you mean "expectedRevision"?');
    await expect(service.delete({ kind: 'agent', reference: 'a/b', expectedRevision: 2 })).rejects.toMatchObject({
      code: 'revision_conflict',
    });
    expect(await service.describeAgent({ reference: 'a/b' })).toEqual(await service.describeAgent('a/b'));
    expect(await service.agentMcpList({ kind: 'agent', reference: 'a/b' })).toEqual([]);
  });

  it('a document over the size limit is rejected with the limit named', async () => {
    const small = new ResourceService({ store, maxDocumentBytes: 1000 });
    const f = await failure(small.write({ kind: 'skill', reference: 'a/big', create: true, data: { description: 'x'.repeat(2000) } }));
    expect(f).toMatchObject({ code: 'invalid_input', details: { limit: 1000 } });
    expect(await store.get('skill', 'a/big')).toBeUndefined();
  });
});
