import { describe, expect, it } from 'vitest';
import { ToolSchemaRegistry } from '../../../src/index.js';
import { RICH_SCHEMA } from '../fixtures.js';

const v = new ToolSchemaRegistry().compile(RICH_SCHEMA, { tool: 'rich' });
const keywordsOf = (args: unknown) => {
  const r = v.validate(args);
  return r.ok ? [] : r.issues.map((i) => `${i.instancePath} ${i.keyword}`);
};

describe('S2: constraints are enforced as the schema says', () => {
  it('S2: a fully valid call passes', () => {
    expect(
      v.validate({
        name: 'abc',
        count: 2,
        ratio: 0.5,
        tags: ['a', 'b'],
        pair: ['x', 1],
        mode: 'fast',
        kind: 'x',
        nested: { child: { child: { v: 1 } } },
        choice: 'one',
        flag: null,
        notString: 3,
        cond: 'long',
        bag: { n_1: 1 },
        list: [1, 2, 'x'],
      }),
    ).toEqual({ ok: true });
  });

  it.each([
    ['required', {}, [' required']],
    ['type', { name: 5 }, ['/name type']],
    ['minLength', { name: 'a' }, ['/name minLength']],
    ['maxLength', { name: 'abcdef' }, ['/name maxLength']],
    ['pattern', { name: 'AB' }, ['/name pattern']],
    ['integer type', { name: 'ab', count: 2.5, ratio: 0.5 }, ['/count type', '/count multipleOf']],
    ['minimum', { name: 'ab', count: 0, ratio: 0.5 }, ['/count minimum']],
    ['maximum', { name: 'ab', count: 12, ratio: 0.5 }, ['/count maximum']],
    ['multipleOf', { name: 'ab', count: 3, ratio: 0.5 }, ['/count multipleOf']],
    ['exclusive range', { name: 'ab', ratio: 1 }, ['/ratio exclusiveMaximum']],
    ['minItems', { name: 'ab', tags: [] }, ['/tags minItems']],
    ['maxItems', { name: 'ab', tags: ['a', 'b', 'c', 'd'] }, ['/tags maxItems']],
    ['uniqueItems', { name: 'ab', tags: ['a', 'a'] }, ['/tags uniqueItems']],
    ['items', { name: 'ab', tags: [1] }, ['/tags/0 type']],
    ['prefixItems', { name: 'ab', pair: [1, 1] }, ['/pair/0 type']],
    ['items false after prefixItems', { name: 'ab', pair: ['a', 1, 2] }, ['/pair/2 items']],
    ['enum', { name: 'ab', mode: 'medium' }, ['/mode enum']],
    ['const', { name: 'ab', kind: 'y' }, ['/kind const']],
    ['recursive $ref', { name: 'ab', nested: { child: { child: { v: 'no' } } } }, ['/nested/child/child/v type']],
    ['oneOf', { name: 'ab', choice: true }, ['/choice oneOf', '/choice type', '/choice type']],
    ['anyOf', { name: 'ab', flag: 1 }, ['/flag anyOf', '/flag type', '/flag type']],
    ['not', { name: 'ab', notString: 's' }, ['/notString not']],
    ['if/then', { name: 'ab', cond: 'ab' }, ['/cond minLength']],
    ['if/else', { name: 'ab', cond: true }, ['/cond type']],
    ['minProperties', { name: 'ab', bag: {} }, ['/bag minProperties']],
    ['maxProperties', { name: 'ab', bag: { a: 1, b: 2, c: 3 } }, ['/bag maxProperties']],
    ['patternProperties', { name: 'ab', bag: { n_1: 'x' } }, ['/bag/n_1 type']],
    ['minContains', { name: 'ab', list: [1, 'x'] }, ['/list minContains']],
    ['maxContains', { name: 'ab', list: [1, 2, 3, 4] }, ['/list maxContains']],
    ['additionalProperties false', { name: 'ab', other: 1 }, ['/other additionalProperties']],
    ['dependentRequired', { name: 'ab', count: 2 }, [' dependentRequired']],
    ['propertyNames', { name: 'ab', abcdefghijkl: 1 }, ['/abcdefghijkl maxLength', '/abcdefghijkl additionalProperties']],
  ])('S2: %s', (_label, args, expected) => {
    expect(keywordsOf(args).sort()).toEqual([...expected].sort());
  });

  it('S2: local references by $anchor and embedded $id resolve', () => {
    const registry = new ToolSchemaRegistry();
    const byAnchor = registry.compile(
      { type: 'object', properties: { a: { $ref: '#num' } }, $defs: { n: { $anchor: 'num', type: 'number' } } },
      { tool: 'anchor' },
    );
    expect(byAnchor.validate({ a: 1 }).ok).toBe(true);
    expect(byAnchor.validate({ a: 'x' }).ok).toBe(false);
    const byId = registry.compile(
      {
        $id: 'https://example.com/root',
        type: 'object',
        properties: { a: { $ref: 'item' } },
        $defs: { item: { $id: 'https://example.com/item', type: 'string' } },
      },
      { tool: 'embedded' },
    );
    expect(byId.validate({ a: 'x' }).ok).toBe(true);
    expect(byId.validate({ a: 1 }).ok).toBe(false);
  });

  it('S2: definitions (draft-07 style) resolve', () => {
    const d7 = new ToolSchemaRegistry().compile(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { $ref: '#/definitions/x' } },
        definitions: { x: { type: 'integer', minimum: 3 } },
      },
      { tool: 'defs' },
    );
    expect(d7.validate({ a: 2 }).ok).toBe(false);
    expect(d7.validate({ a: 3 }).ok).toBe(true);
  });
});
