import { describe, expect, it } from 'vitest';
import { AgtError, ToolSchemaRegistry } from '../../src/index.js';
import { canonicalHash, canonicalJson } from '../../src/schema/canonical.js';

const medium = () => ({
  type: 'object',
  properties: { a: { type: 'string', minLength: 1 }, b: { type: 'array', items: { type: 'integer' } } },
  required: ['a'],
});

describe('ToolSchemaRegistry cache', () => {
  it('a new object with the same content returns the cached compiled schema', () => {
    const registry = new ToolSchemaRegistry();
    const first = registry.compile(medium(), { tool: 'a' });
    expect(registry.compile(medium(), { tool: 'b' })).toBe(first);
  });

  it('the hash is canonical: key order does not change it, content does', () => {
    const registry = new ToolSchemaRegistry();
    const reordered = {
      required: ['a'],
      properties: { b: { items: { type: 'integer' }, type: 'array' }, a: { minLength: 1, type: 'string' } },
      type: 'object',
    };
    const one = registry.compile(medium(), { tool: 'a' });
    const two = registry.compile(reordered, { tool: 'a' });
    expect(two).toBe(one);
    expect(one.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(registry.compile({ ...medium(), required: ['b'] }, { tool: 'a' }).hash).not.toBe(one.hash);
  });

  it('canonical JSON sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: [2, 1], a: { d: 1, c: null } })).toBe('{"a":{"c":null,"d":1},"b":[2,1]}');
    expect(canonicalHash({ x: 1, y: 2 })).toBe(canonicalHash({ y: 2, x: 1 }));
  });

  it('least recently used schemas are evicted beyond maxCached', () => {
    const registry = new ToolSchemaRegistry({ maxCached: 2 });
    const s = (n: number) => ({ type: 'object', properties: { [`p${n}`]: { type: 'string' } } });
    const first = registry.compile(s(1), { tool: 't' });
    registry.compile(s(2), { tool: 't' });
    registry.compile(s(3), { tool: 't' });
    expect(registry.compile(s(1), { tool: 't' })).not.toBe(first);
  });

  it('bad options fail with invalid_input', () => {
    expect(() => new ToolSchemaRegistry({ maxCached: 0 })).toThrow(AgtError);
    expect(() => new ToolSchemaRegistry().compile({}, { tool: '' })).toThrow(/options.tool/);
  });

  it('a schema that is not JSON fails to load with not_json', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    expect(() => new ToolSchemaRegistry().compile(cyclic, { tool: 't' })).toThrow(/not JSON/);
  });
});
