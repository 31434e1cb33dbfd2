/**
 * Agent data's unknown keys (A1): a write never offers an escape it does not
 * have, a key stored before they were refused can be removed (written as
 * null), describeAgent shows such keys as warnings, and an inherited field
 * (Object.create) is refused rather than dropped.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore, ResourceService } from '../../src/index.js';
import { type ResourceStore } from '../../src/adapters.js';
import { failure } from '../support/index.js';

let service: ResourceService;
let store: ResourceStore;

beforeEach(() => {
  store = new MemoryStore();
  service = new ResourceService({ store });
});

const stored = async (reference: string) => (await service.read({ kind: 'agent', reference })).data as Record<string, unknown>;

describe('A1: unknown agent keys', () => {
  it('A1: the refusal of an unknown key offers no strict: false (writes have none): it says how to remove a stored one', async () => {
    const f = await failure(service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcp: ['tools/a'] } as never }));
    expect(f).toMatchObject({ code: 'invalid_input', details: { key: 'mcp', closest: 'mcps' } });
    expect(f.message).not.toContain('strict');
    expect(f.message).toMatch(/\(agent data has no such field; to remove one stored before, write it as null\)$/);
  });

  it('A1: a stored unknown key is removed by writing it as null; the other fields and mounts stay', async () => {
    await store.put(
      { kind: 'agent', reference: 'team/old', data: { name: 'Old', mcps: ['tools/a'], mcp: ['tools/b'], skill: ['s/x'] } },
      { expectedRevision: null },
    );
    const { warnings } = await service.write({ kind: 'agent', reference: 'team/old', data: { mcp: null } as never });
    expect(warnings).toEqual([]);
    const data = await stored('team/old');
    expect(Object.hasOwn(data, 'mcp')).toBe(false);
    expect(data).toMatchObject({ name: 'Old', mcps: ['tools/a'], skill: ['s/x'] });
    // undefined (a library caller) removes too; a known field given undefined is kept (omitted, A2)
    await service.write({ kind: 'agent', reference: 'team/old', data: { skill: undefined, name: undefined } as never });
    const after = await stored('team/old');
    expect(Object.hasOwn(after, 'skill')).toBe(false);
    expect(after).toMatchObject({ name: 'Old', mcps: ['tools/a'] });
  });

  it('A1: a null unknown key on create stores nothing under it; a null known field is still a bad value', async () => {
    await service.write({ kind: 'agent', reference: 'team/new', create: true, data: { mcp: null, name: 'New' } as never });
    expect(Object.hasOwn(await stored('team/new'), 'mcp')).toBe(false);
    const f = await failure(service.write({ kind: 'agent', reference: 'team/new', data: { name: null } as never }));
    expect(f).toMatchObject({ code: 'invalid_input', details: { field: 'name' } });
  });

  it('A6: describeAgent shows each stored unknown key as a warning naming the closest key and how to remove it', async () => {
    await store.put({ kind: 'agent', reference: 'team/old', data: { mcps: [], mcp: ['tools/b'] } }, { expectedRevision: null });
    expect((await service.describeAgent('team/old')).warnings).toEqual([
      'stored agent data: unknown key "mcp"; did you mean "mcps"? (ignored; remove it by writing it as null)',
    ]);
    await service.write({ kind: 'agent', reference: 'team/old', data: { mcp: null } as never });
    expect((await service.describeAgent('team/old')).warnings).toEqual([]);
  });

  it('A1: an inherited agent field (Object.create) is refused naming it, never dropped', async () => {
    const data = Object.assign(Object.create({ mcps: ['tools/a'] }) as object, { name: 'Alice' });
    const f = await failure(service.write({ kind: 'agent', reference: 'team/alice', create: true, data }));
    expect(f).toMatchObject({ code: 'invalid_input', details: { key: 'mcps', reason: 'inherited_key' } });
    expect(await store.list('agent')).toEqual([]);
  });
});
