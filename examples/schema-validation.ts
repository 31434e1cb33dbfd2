/**
 * The ToolSchemaRegistry on real tool schemas: `npx tsx examples/schema-validation.ts`.
 *
 * Loads the real inputSchemas of the reference MCP servers through the
 * ToolSchemaRegistry, validates a good and a bad call for a few of them, and
 * shows what a model would get back, then shows schemas that fail to load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAgtError, ToolSchemaRegistry } from 'agt-mcp';

const here = path.dirname(fileURLToPath(import.meta.url));
// The folder of real schemas: this repository's, or one given (CI runs this file from the installed package).
const dir = process.argv[2] ?? path.resolve(here, '../test/fixtures/real-tool-schemas');
const registry = new ToolSchemaRegistry();

const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();
let loaded = 0;
const started = performance.now();
for (const file of files) {
  registry.compile(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), { tool: file.replace('.input.json', '') });
  loaded += 1;
}
console.log(`Loaded ${loaded} real tool schemas from the reference MCP servers in ${(performance.now() - started).toFixed(0)} ms.\n`);

const calls: { tool: string; schema: unknown; args: unknown }[] = [
  {
    tool: 'filesystem.edit_file',
    schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        path: { type: 'string' },
        edits: {
          type: 'array',
          items: {
            type: 'object',
            properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
            required: ['oldText', 'newText'],
          },
        },
        dryRun: { type: 'boolean', default: false },
      },
      required: ['path', 'edits'],
    },
    args: { path: '/notes.txt', edits: [{ oldText: 'secret draft text' }], dryRun: 'yes' },
  },
  {
    tool: 'tickets.close',
    schema: {
      type: 'object',
      properties: {
        id: { type: 'integer', minimum: 1 },
        resolution: { enum: ['fixed', 'wontfix', 'duplicate'] },
        note: { type: 'string', maxLength: 20 },
      },
      required: ['id', 'resolution'],
      additionalProperties: false,
    },
    args: { id: 0, resolution: 'done', note: 'a note that is far too long for the field', apiKey: 'sk-live-123' },
  },
];

for (const call of calls) {
  const compiled = registry.compile(call.schema, { tool: call.tool });
  const result = compiled.validate(call.args);
  console.log(`${call.tool} (${compiled.dialect}): ${result.ok ? 'valid' : 'invalid_arguments'}`);
  if (!result.ok) {
    for (const issue of result.issues) {
      console.log(`  ${issue.instancePath || '(arguments)'}: ${issue.message}   [${issue.keyword} at ${issue.schemaPath}]`);
    }
  }
  console.log('  (no argument value appears above: messages come from the schema only)\n');
}

console.log('Schemas that fail at load time, with the tool and the location:');
const broken: [string, unknown][] = [
  ['bad_type', { type: 'object', properties: { n: { type: 5 } } }],
  ['remote_ref', { type: 'object', properties: { a: { $ref: 'https://example.com/defs.json' } } }],
  ['bad_regex', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }],
  ['not_an_object', { type: 'string' }],
  ['unknown_dialect', { $schema: 'http://json-schema.org/draft-06/schema#', type: 'object' }],
];
for (const [tool, schema] of broken) {
  try {
    registry.compile(schema, { tool });
    console.log(`  ${tool}: unexpectedly loaded`);
    process.exitCode = 1;
  } catch (error) {
    if (!isAgtError(error)) throw error;
    console.log(`  ${error.code} (${String(error.details?.reason)}): ${error.message}`);
  }
}
