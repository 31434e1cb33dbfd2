import { describe, expect, it } from 'vitest';
import { isAgtError, ToolSchemaRegistry } from '../../../src/index.js';

const registry = new ToolSchemaRegistry();
const load = (schema: unknown) => registry.compile(schema, { tool: 'demo' });
function reasonOf(schema: unknown): unknown {
  try {
    load(schema);
    return 'loaded';
  } catch (error) {
    return isAgtError(error) ? error.details?.reason : error;
  }
}

describe('S1: dialects', () => {
  it('S1: a schema without $schema is 2020-12', () => {
    expect(load({ type: 'object' }).dialect).toBe('2020-12');
  });

  it.each([
    ['http://json-schema.org/draft-04/schema#', 'draft-04'],
    ['http://json-schema.org/draft-04/schema', 'draft-04'],
    ['http://json-schema.org/draft-07/schema#', 'draft-07'],
    ['http://json-schema.org/draft-07/schema', 'draft-07'],
    ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
    ['https://json-schema.org/draft/2019-09/schema#', '2019-09'],
    ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
    ['https://json-schema.org/draft/2020-12/schema#', '2020-12'],
  ])('S1: %s selects %s', (uri, dialect) => {
    expect(load({ $schema: uri, type: 'object' }).dialect).toBe(dialect);
  });

  it.each([
    'http://json-schema.org/draft-03/schema#',
    'http://json-schema.org/draft-06/schema#',
    'https://example.com/my-meta',
    'https://json-schema.org/draft-07/schema#', // not the standard's spelling
    'http://json-schema.org/schema#',
  ])('S1: $schema %s fails to load', (uri) => {
    expect(reasonOf({ $schema: uri, type: 'object' })).toBe('unknown_dialect');
  });

  it('S1: a non-string $schema fails to load', () => {
    expect(reasonOf({ $schema: 7, type: 'object' })).toBe('unknown_dialect');
  });

  it('S1: an embedded $schema that differs from the root is rejected', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { $id: 'https://example.com/a', $schema: 'http://json-schema.org/draft-07/schema#' } },
    };
    expect(reasonOf(schema)).toBe('embedded_dialect');
  });

  it('S1: the selected dialect decides semantics (draft-04 boolean exclusiveMaximum)', () => {
    const v = load({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { n: { type: 'number', maximum: 5, exclusiveMaximum: true } },
    });
    expect(v.validate({ n: 5 }).ok).toBe(false);
    expect(v.validate({ n: 4.9 }).ok).toBe(true);
  });

  it('S2: keywords outside the dialect are annotations (prefixItems, unevaluatedProperties under draft-07)', () => {
    const v = load({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { l: { type: 'array', prefixItems: [{ type: 'string' }] } },
      unevaluatedProperties: false,
      dependentRequired: { a: ['b'] },
    });
    expect(v.validate({ l: [1], extra: true, a: 1 })).toEqual({ ok: true });
  });

  it('S2: dependencies and additionalItems are annotations under 2020-12', () => {
    const v = load({
      type: 'object',
      dependencies: { a: ['b'] },
      properties: { l: { type: 'array', additionalItems: false } },
    });
    expect(v.validate({ a: 1, l: [1, 2] })).toEqual({ ok: true });
  });

  it('S2: draft-07 still enforces its own dependencies keyword', () => {
    const v = load({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', dependencies: { a: ['b'] } });
    expect(v.validate({ a: 1 }).ok).toBe(false);
  });
});
