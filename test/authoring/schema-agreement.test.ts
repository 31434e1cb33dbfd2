/**
 * The published schema and the server agree by construction:
 * a kit server checks arguments against the published inputSchema
 * with the ToolSchemaRegistry, then shapes them with a copy of the valibot
 * schema without its checks; an action JSON Schema would publish only as an
 * annotation is refused when the tool is defined (one checked by a regular
 * expression is published as its exact pattern: action-patterns.test.ts). A property test generates
 * arguments from every published schema of the example and test servers —
 * inside and outside each bound, astral characters, wrong types, missing and
 * extra fields — and the published schema and the server must agree on each.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defineTool, parseArguments, type ServableTool } from '../../src/authoring/index.js';
import { ToolSchemaRegistry } from '../../src/index.js';
import { conformanceTools } from '../../examples/conformance-server/tools.js';
import { createTicketTools } from '../../examples/tickets-server/tools.js';

type Json = Record<string, unknown>;
const registry = new ToolSchemaRegistry();

// Values for one schema node: mostly near what it asks, sometimes anything at all.
function arbitraryOf(node: Json, root: Json, depth = 0): fc.Arbitrary<unknown> {
  if (typeof node.$ref === 'string') {
    const target = node.$ref.replace('#/$defs/', '');
    return arbitraryOf(((root.$defs as Json)?.[target] as Json) ?? {}, root, depth + 1);
  }
  const near = nearOf(node, root, depth);
  return depth > 4 ? near : fc.oneof({ arbitrary: near, weight: 5 }, { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 });
}

function nearOf(node: Json, root: Json, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(node.enum)) return fc.oneof(fc.constantFrom(...node.enum), fc.string());
  if ('const' in node) return fc.oneof(fc.constant(node.const), fc.string());
  const type = node.type;
  if (type === 'string') {
    const bounds = [node.minLength, node.maxLength].filter((n): n is number => typeof n === 'number');
    const around = bounds.flatMap((n) => [n - 1, n, n + 1]).filter((n) => n >= 0);
    const astral = around.map((n) => fc.constant('😀'.repeat(n))); // one code point, two UTF-16 units each
    const plain = around.map((n) => fc.constant('a'.repeat(n)));
    const patterned = typeof node.pattern === 'string' ? [fc.stringMatching(new RegExp(node.pattern))] : [];
    return fc.oneof(fc.string({ unit: 'binary', maxLength: 90 }), ...astral, ...plain, ...patterned);
  }
  if (type === 'integer' || type === 'number') {
    const bounds = [node.minimum, node.maximum, node.exclusiveMinimum, node.exclusiveMaximum].filter(
      (n): n is number => typeof n === 'number',
    );
    const around = bounds.flatMap((n) => [n - 1, n - 0.5, n, n + 0.5, n + 1]);
    return fc.oneof(
      fc.integer({ min: -2000, max: 2000 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      ...around.map((n) => fc.constant(n)),
    );
  }
  if (type === 'boolean') return fc.boolean();
  if (type === 'array') return fc.array(arbitraryOf((node.items as Json) ?? {}, root, depth + 1), { maxLength: 4 });
  if (type === 'object' || node.properties !== undefined) {
    const properties = (node.properties as Record<string, Json>) ?? {};
    const shape = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(s, root, depth + 1)]));
    return fc
      .tuple(fc.record(shape, { requiredKeys: [] }), fc.option(fc.constant({ unexpected: 1 }), { nil: undefined }))
      .map(([r, extra]) => ({ ...r, ...extra }));
  }
  return fc.jsonValue({ maxDepth: 2 });
}

const tools: ServableTool[] = [...createTicketTools(), ...conformanceTools()];

describe('the published schema and the server agree', () => {
  it.each(tools.map((t) => [t.name, t] as const))(
    'C2: %s — every generated argument is accepted by both or refused by both',
    (_name, tool) => {
      const validator = registry.compile(tool.inputSchema, { tool: tool.name });
      fc.assert(
        fc.property(arbitraryOf(tool.inputSchema, tool.inputSchema), (args) => {
          expect(parseArguments(tool, args).ok).toBe(validator.validate(args).ok);
        }),
        { numRuns: 300 },
      );
    },
  );

  it('C2: lengths count code points, as JSON Schema does: 41 emoji fit maxLength(80) on both sides; 81 fit on neither', () => {
    const note = defineTool({
      name: 'note',
      description: 'n',
      input: v.strictObject({ text: v.pipe(v.string(), v.maxLength(80)) }),
      handler: () => 'ok',
    });
    expect(parseArguments(note, { text: '😀'.repeat(41) }).ok).toBe(true);
    expect(parseArguments(note, { text: '😀'.repeat(81) })).toMatchObject({
      ok: false,
      issues: [{ keyword: 'maxLength', instancePath: '/text' }],
    });
  });

  it('C2: an action JSON Schema can publish only as an annotation is refused when the tool is defined, with the fix', () => {
    const make = (input: v.GenericSchema) => () => defineTool({ name: 'x', description: '', input, handler: () => 'ok' });
    // v.url() runs new URL(): no pattern states it (the regex-checked actions are published as patterns: action-patterns.test.ts).
    expect(make(v.object({ home: v.optional(v.pipe(v.string(), v.url())) }))).toThrow(
      /"\/home" uses the valibot action "url", published as format "uri".*v\.regex/,
    );
    expect(make(v.object({ links: v.array(v.pipe(v.string(), v.url())) }))).toThrow(/"\/links\/\*" uses the valibot action "url"/);
    expect(make(v.object({ at: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)) }))).not.toThrow(); // the fix
  });

  it('C2: the shaping copy keeps what valibot adds: defaults of optional fields, and v.object drops unknown keys', () => {
    const t = defineTool({
      name: 'shaped',
      description: 's',
      input: v.object({ size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 10) }),
      handler: () => 'ok',
    });
    expect(parseArguments(t, { extra: true })).toEqual({ ok: true, value: { size: 10 } });
    expect(parseArguments(t, { size: 0 })).toMatchObject({ ok: false, issues: [{ keyword: 'minimum' }] });
  });
});
