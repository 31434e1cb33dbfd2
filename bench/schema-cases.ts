/** The small, medium and large tool schemas (with valid arguments) the schema benchmarks use. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const real = (name: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.resolve(here, '../test/fixtures/real-tool-schemas', `${name}.input.json`), 'utf8'));

/** A large tool schema: 30 properties, nested objects, arrays and $refs. */
function largeSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 30; i++) {
    properties[`field${i}`] =
      i % 3 === 0
        ? { type: 'string', minLength: 1, maxLength: 200 }
        : i % 3 === 1
          ? { type: 'array', items: { $ref: '#/definitions/item' }, maxItems: 50 }
          : { type: 'object', properties: { x: { type: 'number', minimum: 0 }, y: { enum: ['a', 'b', 'c'] } }, required: ['x'] };
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties,
    required: ['field0'],
    additionalProperties: false,
    definitions: {
      item: {
        type: 'object',
        properties: { id: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['id'],
      },
    },
  };
}

function largeArgs(): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (let i = 0; i < 30; i++) {
    args[`field${i}`] =
      i % 3 === 0
        ? 'value'
        : i % 3 === 1
          ? [
              { id: 1, tags: ['a', 'b'] },
              { id: 2, tags: [] },
            ]
          : { x: 1.5, y: 'b' };
  }
  return args;
}

export type CaseSize = 'small' | 'medium' | 'large';

/** Builds the benchmark cases afresh (callers may mutate nothing shared). */
export function schemaCases(): { size: CaseSize; schema: Record<string, unknown>; args: Record<string, unknown> }[] {
  return [
    { size: 'small', schema: real('filesystem__read_text_file'), args: { path: '/tmp/file.txt', head: 10 } },
    {
      size: 'medium',
      schema: real('memory__create_entities'),
      args: {
        entities: [
          { name: 'a', entityType: 'person', observations: ['x', 'y'] },
          { name: 'b', entityType: 'place', observations: [] },
        ],
      },
    },
    { size: 'large', schema: largeSchema(), args: largeArgs() },
  ];
}
