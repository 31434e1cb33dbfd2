import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolSchemaRegistry } from '../../../src/index.js';
import { realToolSchemas, RICH_SCHEMA } from '../fixtures.js';

const registry = new ToolSchemaRegistry();
const rich = registry.compile(RICH_SCHEMA, { tool: 'rich' });
const issuesOf = (args: unknown) => {
  const r = rich.validate(args);
  return r.ok ? [] : r.issues;
};

describe('S8: argument errors report where, never what', () => {
  it('S8: an issue carries the instance path, the schema path and the keyword', () => {
    expect(issuesOf({ name: 'ab', count: 12, ratio: 0.5 })).toEqual([
      { instancePath: '/count', schemaPath: '/properties/count/maximum', keyword: 'maximum', message: 'must be <= 10' },
    ]);
  });

  it('S8: paths through $ref are plain JSON Pointers', () => {
    expect(issuesOf({ name: 'ab', nested: { child: { v: 'x' } } })).toEqual([
      {
        instancePath: '/nested/child/v',
        schemaPath: '/properties/nested/$ref/properties/child/$ref/properties/v/type',
        keyword: 'type',
        message: 'must be integer',
      },
    ]);
  });

  it('S8: wrapper entries ("a subschema had errors") are dropped', () => {
    const keywords = issuesOf({ name: 'ab', nested: { child: { v: 'x' } } }).map((i) => i.keyword);
    expect(keywords).not.toContain('$ref');
    expect(keywords).not.toContain('properties');
  });

  it('S8: a false schema is located, and named, at the keyword that holds it', () => {
    expect(issuesOf({ name: 'ab', 'odd/key~': 1 })).toEqual([
      {
        instancePath: '/odd~1key~0',
        schemaPath: '/additionalProperties',
        keyword: 'additionalProperties',
        message: 'is not an allowed property',
      },
    ]);
  });

  it('S8: dependentRequired is located at the property that requires the other', () => {
    expect(issuesOf({ name: 'ab', count: 2 })).toEqual([
      {
        instancePath: '',
        schemaPath: '/dependentRequired/count',
        keyword: 'dependentRequired',
        message: 'must have property "ratio" when property "count" is present',
      },
    ]);
  });

  it('S8: every missing required property is named (from the schema)', () => {
    const v = registry.compile({ type: 'object', required: ['a', 'b', 'c'] }, { tool: 'req' });
    const r = v.validate({ b: 1 });
    expect(r.ok ? [] : r.issues.map((i) => i.message)).toEqual(['must have required property "a"', 'must have required property "c"']);
  });

  it('S8: property names with URI-special characters decode to plain pointers', () => {
    const v = registry.compile({ type: 'object', properties: { 'a b%/c#': { type: 'string' } } }, { tool: 'chars' });
    const r = v.validate({ 'a b%/c#': 1 });
    expect(r.ok ? [] : r.issues).toEqual([
      { instancePath: '/a b%~1c#', schemaPath: '/properties/a b%~1c#/type', keyword: 'type', message: 'must be string' },
    ]);
  });

  it('S8: values that cfworker would echo do not appear ("1234.5 is greater than 20")', () => {
    const v = registry.compile({ type: 'object', properties: { n: { maximum: 20 }, s: { const: 'ok' } } }, { tool: 'echo' });
    const r = v.validate({ n: 1234.5, s: 'SECRET-VALUE' });
    const text = JSON.stringify(r);
    expect(text).not.toContain('1234.5');
    expect(text).not.toContain('SECRET-VALUE');
  });

  it('S8: validate never throws, and names the path of a non-JSON value', () => {
    const cyclic: Record<string, unknown> = { name: 'ab' };
    cyclic.nested = cyclic;
    for (const args of [{ name: 'ab', count: 10n }, { name: undefined }, cyclic, { name: 'ab', tags: [() => 1] }]) {
      const r = rich.validate(args);
      expect(r.ok).toBe(false);
    }
    expect(rich.validate({ name: 'ab', count: 10n })).toEqual({
      ok: false,
      issues: [{ instancePath: '/count', schemaPath: '', keyword: 'type', message: 'a bigint value is not JSON' }],
    });
  });

  // Marker-tagged keys and strings cannot occur in any schema text, so finding
  // one in a message proves the message echoed the arguments.
  const MARK = 'ZQ7';
  const marked = fc.string({ maxLength: 12 }).map((s) => `${MARK}${s}`);
  const schemaKeys = [
    'name',
    'count',
    'ratio',
    'tags',
    'pair',
    'mode',
    'kind',
    'nested',
    'choice',
    'flag',
    'notString',
    'cond',
    'bag',
    'list',
  ];
  const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    leaf: fc.oneof(marked, fc.double({ noNaN: true }), fc.integer(), fc.boolean(), fc.constant(null)),
    node: fc.oneof(
      { depthSize: 'small' },
      tie('leaf'),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(marked, fc.constantFrom(...schemaKeys, 'child', 'v', 'n_1')), tie('node'), { maxKeys: 4 }),
    ),
  })).node;
  const args = fc.dictionary(fc.oneof(marked, fc.constantFrom(...schemaKeys)), value, { maxKeys: 8 });

  function leaves(v: unknown, out: string[] = []): string[] {
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number' && String(v).length >= 6) out.push(String(v));
    else if (Array.isArray(v)) v.forEach((x) => leaves(x, out));
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        leaves(x, out);
      }
    }
    return out;
  }

  it('S8: property — no message ever contains an argument value or key (fast-check)', () => {
    const schemas = [rich, ...realToolSchemas().map(({ name, schema }) => registry.compile(schema, { tool: name }))];
    let invalid = 0;
    let checkedSecrets = 0;
    fc.assert(
      fc.property(args, fc.nat(schemas.length - 1), (input, which) => {
        const result = schemas[which]!.validate(input);
        if (result.ok) return;
        invalid += 1;
        const secrets = leaves(input).filter((t) => t.startsWith(MARK) || /^-?[\d.e+-]{6,}$/.test(t));
        checkedSecrets += secrets.length;
        for (const issue of result.issues) {
          for (const secret of secrets) expect(issue.message).not.toContain(secret);
        }
      }),
      { numRuns: 2000 },
    );
    // the property was exercised, not vacuously true
    expect(invalid).toBeGreaterThan(500);
    expect(checkedSecrets).toBeGreaterThan(1000);
  });
});
