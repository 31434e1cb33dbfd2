import { describe, expect, it } from 'vitest';
import { isAgtError, ToolSchemaRegistry } from '../../../src/index.js';
import { realToolSchemas } from '../fixtures.js';

const D07 = 'http://json-schema.org/draft-07/schema#';
const D04 = 'http://json-schema.org/draft-04/schema#';
const D19 = 'https://json-schema.org/draft/2019-09/schema';

function failure(schema: unknown): { code?: string; details?: Record<string, unknown>; message: string } {
  try {
    new ToolSchemaRegistry().compile(schema, { tool: 'broken_tool' });
  } catch (error) {
    if (isAgtError(error)) return { code: error.code, details: error.details, message: error.message };
    throw error;
  }
  return { message: 'loaded' };
}

describe('S7: invalid schemas fail at load, naming the tool and location', () => {
  it.each([
    ['type 5', { type: 'object', properties: { a: { type: 5 } } }, '/properties/a/type'],
    ['minimum "abc"', { type: 'object', properties: { a: { minimum: 'abc' } } }, '/properties/a/minimum'],
    ['required "ab"', { type: 'object', required: 'ab' }, '/required'],
    ['enum "abc"', { type: 'object', properties: { a: { enum: 'abc' } } }, '/properties/a/enum'],
    ['allOf {}', { type: 'object', allOf: {} }, '/allOf'],
    ['array-form items in 2020-12', { type: 'object', properties: { a: { items: [{ type: 'string' }] } } }, '/properties/a/items'],
    ['negative minLength', { type: 'object', properties: { a: { minLength: -1 } } }, '/properties/a/minLength'],
    ['properties not an object', { type: 'object', properties: [] }, '/properties'],
    ['draft-07 type 5', { $schema: D07, type: 'object', properties: { a: { type: 5 } } }, '/properties/a/type'],
    ['draft-04 boolean subschema', { $schema: D04, type: 'object', properties: { a: true } }, '/properties/a'],
    ['2019-09 minimum "abc"', { $schema: D19, type: 'object', properties: { a: { minimum: 'abc' } } }, '/properties/a/minimum'],
  ])('S7: %s is rejected by the metaschema', (_label, schema, pointer) => {
    const f = failure(schema);
    expect(f.code).toBe('schema_load_failed');
    expect(f.details).toMatchObject({ tool: 'broken_tool', reason: 'invalid_schema', schemaPath: pointer });
    expect(f.message).toContain('broken_tool');
    expect(f.message).toContain(pointer);
  });

  it.each([
    ['pattern', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }, '/properties/a/pattern'],
    ['patternProperties', { type: 'object', patternProperties: { '[a-': {} } }, '/patternProperties/[a-'],
    ['a pattern only invalid in Unicode mode', { type: 'object', properties: { a: { pattern: '\\-\\q' } } }, '/properties/a/pattern'],
  ])('S7: an invalid regex in %s fails at load, not at validate time', (_label, schema, pointer) => {
    expect(failure(schema).details).toMatchObject({ reason: 'invalid_pattern', schemaPath: pointer });
  });

  it('S7: keys starting with __absolute_ are reserved; $dynamicRef is unsupported', () => {
    expect(failure({ type: 'object', __absolute_ref__: 'x' }).details).toMatchObject({ reason: 'reserved_key' });
    expect(failure({ type: 'object', properties: { a: { $dynamicRef: '#meta' } } }).details).toMatchObject({
      reason: 'unsupported_keyword',
      schemaPath: '/properties/a/$dynamicRef',
    });
    // a *property* named like a reserved key is ordinary data
    expect(failure({ type: 'object', properties: { __absolute_ref__: { type: 'string' } } }).message).toBe('loaded');
  });

  it('S7: valid schemas in every dialect load', () => {
    for (const $schema of [undefined, D04, D07, D19]) {
      const schema = {
        ...($schema ? { $schema } : {}),
        type: 'object',
        properties: { a: { type: 'string', minLength: 1 } },
        required: ['a'],
      };
      expect(failure(schema).message).toBe('loaded');
    }
  });

  it('S7: all 41 real tool schemas of the reference MCP servers compile', () => {
    const registry = new ToolSchemaRegistry();
    const schemas = realToolSchemas();
    expect(schemas).toHaveLength(41);
    for (const { name, schema } of schemas) {
      const compiled = registry.compile(schema, { tool: name });
      expect(compiled.dialect).toBe('draft-07');
      expect(compiled.validate('not an object').ok).toBe(false);
    }
  });
});
