/** Example arguments guessed from a tool's own inputSchema (`agt mcp check`): valid for the real tools, bounded on hostile schemas. */
import { describe, expect, it } from 'vitest';
import { EXAMPLE_ATTEMPTS, exampleArguments } from '../../src/schema/example.js';
import { ToolSchemaRegistry } from '../../src/schema/registry.js';
import { realToolSchemas } from './fixtures.js';

const registry = new ToolSchemaRegistry();

function firstValid(schema: unknown, tool: string): Record<string, unknown> | undefined {
  const compiled = registry.compile(schema, { tool });
  for (let attempt = 0; attempt < EXAMPLE_ATTEMPTS; attempt++) {
    const guess = exampleArguments(schema, attempt);
    if (compiled.validate(guess).ok) return guess;
  }
  return undefined;
}

describe('exampleArguments', () => {
  it('S2: every real reference-server inputSchema gets arguments its own validator accepts', () => {
    const schemas = realToolSchemas();
    expect(schemas.length).toBe(41);
    const missing = schemas.filter((s) => firstValid(s.schema, s.name) === undefined).map((s) => s.name);
    expect(missing).toEqual([]);
  });

  it('S1: each dialect: draft-04 exclusive bounds, draft-07 tuples, 2020-12 prefixItems, local $refs, allOf', () => {
    const cases: [string, unknown][] = [
      [
        'draft-04',
        {
          $schema: 'http://json-schema.org/draft-04/schema#',
          type: 'object',
          properties: { n: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 5 } },
          required: ['n'],
        },
      ],
      [
        'draft-07',
        {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], minItems: 2 } },
          required: ['pair'],
        },
      ],
      [
        '2020-12',
        {
          type: 'object',
          $defs: { Id: { type: 'string', pattern: '^[0-9]+$', minLength: 1 } },
          properties: {
            id: { $ref: '#/$defs/Id' },
            at: { type: 'string', format: 'date-time' },
            pair: { prefixItems: [{ const: 1 }], minItems: 1 },
          },
          required: ['id', 'at', 'pair'],
        },
      ],
      [
        'allOf',
        {
          allOf: [
            { type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'] },
            { required: ['b'], properties: { b: { enum: ['x', 'y'] } } },
          ],
        },
      ],
      ['multipleOf', { type: 'object', properties: { n: { type: 'number', minimum: 7, multipleOf: 5 } }, required: ['n'] }],
    ];
    for (const [name, schema] of cases) expect(firstValid(schema, name), name).toBeDefined();
  });

  it('S2: a recursive schema (a $ref cycle) and deep nesting end within the bounds (no recursion past them)', () => {
    const cyclic = {
      type: 'object',
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } }, required: ['next'] } },
      properties: { root: { $ref: '#/$defs/Node' } },
      required: ['root'],
    };
    expect(() => exampleArguments(cyclic)).not.toThrow();
    let deep: Record<string, unknown> = { type: 'object' };
    for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { x: deep }, required: ['x'] };
    expect(() => exampleArguments(deep)).not.toThrow();
    expect(exampleArguments({ type: 'string' })).toEqual({}); // arguments are always an object
  });
});
