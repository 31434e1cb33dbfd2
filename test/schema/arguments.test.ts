import { describe, expect, it } from 'vitest';
import { isAgtError, ToolSchemaRegistry } from '../../src/index.js';

const registry = new ToolSchemaRegistry();
const load = (schema: unknown) => registry.compile(schema, { tool: 'args' });

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('S3: tool arguments are an object', () => {
  it.each([['string'], ['array'], ['number'], ['integer'], ['null'], ['boolean'], [['string', 'null']]])(
    'S3: a root that declares type %j fails to load',
    (type) => {
      try {
        load({ type });
        expect.unreachable();
      } catch (error) {
        expect(isAgtError(error) && error.code).toBe('schema_load_failed');
        expect(isAgtError(error) && error.details).toMatchObject({ tool: 'args', reason: 'root_not_object', schemaPath: '/type' });
      }
    },
  );

  it('S3: a root type list that includes object loads', () => {
    expect(load({ type: ['object', 'null'] }).validate({}).ok).toBe(true);
  });

  it.each([[null], ['text'], [42], [[1, 2]], [true]])('S3: a root without type still rejects %j as arguments', (args) => {
    const result = load({ properties: { a: { type: 'string' } } }).validate(args);
    expect(result).toEqual({
      ok: false,
      issues: [{ instancePath: '', schemaPath: '', keyword: 'type', message: 'tool arguments must be a JSON object' }],
    });
  });

  it('S3: a schema that is not an object fails to load', () => {
    for (const schema of ['{}', 3, null, [{}]]) {
      expect(() => load(schema)).toThrowError(/inputSchema failed to load/);
    }
  });
});

describe('S4: no coercion, no defaults, no tightening', () => {
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'number' },
      b: { type: 'boolean' },
      withDefault: { type: 'string', default: 'filled' },
      nested: { type: 'object', properties: { d: { type: 'integer', default: 3 } } },
    },
  };

  it('S4: strings are not coerced to numbers or booleans', () => {
    const v = load(schema);
    expect(v.validate({ n: '1' }).ok).toBe(false);
    expect(v.validate({ b: 'true' }).ok).toBe(false);
    expect(v.validate({ n: 1, b: true }).ok).toBe(true);
  });

  it('S4: defaults are never inserted and the arguments are never changed', () => {
    const v = load(schema);
    const args = deepFreeze({ nested: {} as Record<string, unknown> });
    const before = JSON.stringify(args);
    expect(v.validate(args).ok).toBe(true);
    expect(JSON.stringify(args)).toBe(before);
    expect('withDefault' in args).toBe(false);
    expect('d' in args.nested).toBe(false);
  });

  it('S4: additionalProperties follows the declaration (absent = allowed)', () => {
    expect(load(schema).validate({ anything: 1 }).ok).toBe(true);
    expect(load({ ...schema, additionalProperties: false }).validate({ anything: 1 }).ok).toBe(false);
    expect(load({ ...schema, additionalProperties: { type: 'integer' } }).validate({ anything: 1 }).ok).toBe(true);
  });

  it("S4: the caller's schema is not mutated and a frozen schema loads", () => {
    const original = deepFreeze({
      type: 'object',
      properties: { a: { $ref: '#/$defs/a' } },
      $defs: { a: { type: 'string', format: 'email' } },
    });
    const before = JSON.stringify(original);
    const v = new ToolSchemaRegistry().compile(original, { tool: 'frozen' });
    expect(v.validate({ a: 1 }).ok).toBe(false);
    expect(JSON.stringify(original)).toBe(before);
    expect(Object.getOwnPropertyNames(original.properties.a)).toEqual(['$ref']);
  });
});
