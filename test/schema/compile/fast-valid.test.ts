/**
 * The quick "certainly valid" of common tool schemas (fast-valid.ts) never
 * accepts what the full validator refuses: checked against cfworker on
 * random schemas of the common shape and random instances, on the real tool
 * schemas of the reference servers, and on the edges JSON Schema counts
 * differently from JavaScript (code points, whole numbers, lone surrogates).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Schema, validate as cfValidate } from '@cfworker/json-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quickCheck } from '../../../src/schema/compile/fast-valid.js';
import { ToolSchemaRegistry } from '../../../src/schema/registry.js';
import { REAL_SCHEMAS_DIR } from '../fixtures.js';

const scalar = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }), // lone surrogates and astral characters
  fc.integer({ min: -5, max: 5 }),
  fc.double({ min: -5, max: 5, noNaN: true }),
  fc.constantFrom(1.0, 2.5, -0, true, false, null),
);
const property = fc.record(
  {
    type: fc.oneof(
      fc.constantFrom('string', 'number', 'integer', 'boolean', 'null'),
      fc.uniqueArray(fc.constantFrom('string', 'number', 'integer', 'boolean', 'null'), { minLength: 1, maxLength: 3 }),
    ),
    enum: fc.array(scalar, { minLength: 1, maxLength: 4 }),
    const: scalar,
    minLength: fc.integer({ min: 0, max: 4 }),
    maxLength: fc.integer({ min: 0, max: 4 }),
    minimum: fc.integer({ min: -3, max: 3 }),
    maximum: fc.integer({ min: -3, max: 3 }),
    description: fc.string({ maxLength: 5 }),
  },
  { requiredKeys: [] },
);
const names = fc.constantFrom('a', 'b', 'c', 'constructor', '__proto__');
const schema = fc.record(
  {
    properties: fc.dictionary(names, property, { maxKeys: 3 }),
    required: fc.uniqueArray(names, { maxLength: 3 }),
    additionalProperties: fc.boolean(),
  },
  { requiredKeys: ['properties'] },
);
const instance = fc.oneof(fc.dictionary(names, fc.oneof(scalar, fc.constant([1]), fc.constant({})), { maxKeys: 4 }), scalar);

type Shape = { properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties?: boolean };
// Instances aimed at a schema: its properties and required keys, values near its own enum, const and bounds.
const aimedAt = (shape: Shape) => {
  const keys = [...new Set([...Object.keys(shape.properties), ...(shape.required ?? []), 'extra'])];
  const near = Object.values(shape.properties).flatMap((p) => [
    ...((p.enum as unknown[] | undefined) ?? []),
    ...(p.const === undefined ? [] : [p.const]),
    ...[p.minimum, p.maximum].flatMap((n) => (typeof n === 'number' ? [n - 1, n - 0.5, n, n + 0.5, n + 1] : [])),
  ]);
  const value = fc.oneof(scalar, fc.string({ minLength: 0, maxLength: 6 }), ...(near.length > 0 ? [fc.constantFrom(...near)] : []));
  return fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length });
};

describe('the quick check of common tool schemas', () => {
  it('S8: on random schemas of the common shape, whatever the quick check accepts the full validator accepts (2020-12 and draft-07)', () => {
    const cases = schema.chain((shape) =>
      fc.tuple(fc.constant(shape), fc.array(fc.oneof(aimedAt(shape as Shape), instance), { minLength: 1, maxLength: 12 })),
    );
    let accepted = 0;
    fc.assert(
      fc.property(cases, ([shape, instances]) => {
        const full = { type: 'object', ...shape } as Schema;
        const quick = quickCheck(full);
        expect(quick).toBeDefined(); // every generated schema is of the common shape
        for (const value of instances) {
          if (quick!(value) !== true) continue;
          accepted += 1;
          expect(cfValidate(value, full, '2020-12').valid).toBe(true);
          expect(cfValidate(value, full, '7').valid).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(200); // the quick check had something to accept
  });

  it('S8: a schema with anything beyond the common shape gets no quick check, so the validator alone decides', () => {
    for (const other of [
      { type: 'object', properties: { a: { type: 'string', pattern: '^x$' } } },
      { type: 'object', properties: { a: { type: 'string', format: 'email' } } },
      { type: 'object', properties: { a: { type: 'array' } } },
      { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string' } } },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', properties: { a: { type: 'number', exclusiveMinimum: 0 } } },
      { type: 'object', properties: { a: { enum: [{ x: 1 }] } } },
      { type: 'object', properties: { a: true } },
      { properties: { a: { type: 'string' } } }, // no root type: not an object schema for sure
    ])
      expect(quickCheck(other), JSON.stringify(other)).toBeUndefined();
  });

  it('S8: lengths in code points and whole numbers as JSON Schema reads them; a refusal is left to the validator with its issues', () => {
    const registry = new ToolSchemaRegistry();
    const compiled = registry.compile(
      { type: 'object', properties: { s: { type: 'string', minLength: 2, maxLength: 2 }, n: { type: 'integer' } }, required: ['s'] },
      { tool: 't' },
    );
    expect(compiled.validate({ s: '😀😀' }).ok).toBe(true); // 4 UTF-16 units, 2 code points
    expect(compiled.validate({ s: '😀' }).ok).toBe(false); // 2 units, 1 code point
    expect(compiled.validate({ s: 'ab', n: 1.0 }).ok).toBe(true);
    const refused = compiled.validate({ s: 'ab', n: 1.5 });
    expect(refused).toMatchObject({ ok: false, issues: [{ instancePath: '/n', keyword: 'type' }] });
    expect(compiled.validate({ n: 1 })).toMatchObject({ ok: false, issues: [{ keyword: 'required' }] });
  });

  it('S8: on the real tool schemas of the reference servers, every instance the quick check accepts the validator accepts; the common ones get it', () => {
    const files = fs.readdirSync(REAL_SCHEMAS_DIR).filter((f) => f.endsWith('.json'));
    let quick = 0;
    for (const file of files) {
      const real = JSON.parse(fs.readFileSync(path.join(REAL_SCHEMAS_DIR, file), 'utf8')) as Record<string, unknown>;
      const check = quickCheck(real);
      if (check === undefined) continue;
      quick += 1;
      fc.assert(
        fc.property(instance, (value) => {
          if (check(value) === true) expect(cfValidate(value, real as Schema, '2020-12').valid, file).toBe(true);
        }),
        { numRuns: 100 },
      );
    }
    expect(quick).toBeGreaterThanOrEqual(10); // echo, get-sum, read_file, create_directory … are of the common shape
  });
});
