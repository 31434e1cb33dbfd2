/** Schemas shared by the schema tests. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REAL_SCHEMAS_DIR = path.resolve(here, '../fixtures/real-tool-schemas');

/** The 41 real tool inputSchemas of the reference MCP servers, by file name. */
export function realToolSchemas(): { name: string; schema: Record<string, unknown> }[] {
  return fs
    .readdirSync(REAL_SCHEMAS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.input\.json$/, ''), schema: JSON.parse(fs.readFileSync(path.join(REAL_SCHEMAS_DIR, f), 'utf8')) }));
}

/** One schema that uses nearly every assertion and applicator keyword. */
export const RICH_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
    count: { type: 'integer', minimum: 1, maximum: 10, multipleOf: 2 },
    ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3, uniqueItems: true },
    pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
    mode: { enum: ['fast', 'slow'] },
    kind: { const: 'x' },
    nested: { $ref: '#/$defs/node' },
    choice: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    flag: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
    notString: { not: { type: 'string' } },
    cond: { if: { type: 'string' }, then: { minLength: 3 }, else: { type: 'number' } },
    bag: { type: 'object', minProperties: 1, maxProperties: 2, patternProperties: { '^n_': { type: 'number' } } },
    list: { type: 'array', contains: { type: 'integer' }, minContains: 2, maxContains: 3 },
  },
  required: ['name'],
  additionalProperties: false,
  dependentRequired: { count: ['ratio'] },
  propertyNames: { maxLength: 10 },
  $defs: {
    node: {
      type: 'object',
      properties: { child: { $ref: '#/$defs/node' }, v: { type: 'integer' } },
      additionalProperties: false,
    },
  },
} as const;
