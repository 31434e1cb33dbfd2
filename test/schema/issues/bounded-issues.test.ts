/**
 * A hostile schema's errors are counted, not built (S2, S8). One
 * validation builds at most MAX_VALIDATION_ISSUES issues, in schema order,
 * and counts the rest; a validity-only check stops at the first problem; the
 * `invalid_arguments` result carries the bounded issues and says how many
 * more there were.
 */
import { describe, expect, it } from 'vitest';
import { MAX_VALIDATION_ISSUES } from '../../../src/bounds.js';
import { HarnessToolSet, ToolSchemaRegistry } from '../../../src/index.js';
import { hostileSchema } from '../../../bench/schema-hostile.js';

describe('S8: issues are bounded where they are built', () => {
  it('S8: an object missing 5,000 required properties gets 20 issues in schema order and the count of the rest', () => {
    const compiled = new ToolSchemaRegistry().compile(hostileSchema(), { tool: 'hostile' });
    const result = compiled.validate({ huge: 'x' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(MAX_VALIDATION_ISSUES);
    expect(result.issues.map((i) => i.message)).toEqual(
      Array.from({ length: MAX_VALIDATION_ISSUES }, (_, i) => `must have required property "p${i}"`),
    );
    expect(result.issuesOmitted).toBe(5_000 - MAX_VALIDATION_ISSUES);
  });

  it('S8: a validity-only check (maxIssues: 1) names the first problem and nothing more; a valid object passes alike', () => {
    const compiled = new ToolSchemaRegistry().compile(hostileSchema(), { tool: 'hostile' });
    const first = compiled.validate({ huge: 'x' }, { maxIssues: 1 });
    expect(first).toEqual({
      ok: false,
      issues: [{ instancePath: '', schemaPath: '/required', keyword: 'required', message: 'must have required property "p0"' }],
    });
    const all: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) all[`p${i}`] = 's';
    expect(compiled.validate(all, { maxIssues: 1 })).toEqual({ ok: true });
    const wrongType = compiled.validate({ ...all, p7: 7 }, { maxIssues: 1 });
    expect(wrongType.ok === false && wrongType.issues.map((i) => [i.instancePath, i.keyword])).toEqual([['/p7', 'type']]);
  });

  it('S2: a validity-only check agrees with the full one on every case, a root $ref beside required included (draft-07 reads $ref alone)', () => {
    const registry = new ToolSchemaRegistry();
    const schemas = [
      { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' } } },
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $ref: '#/definitions/x',
        required: ['a'],
        definitions: { x: { type: 'object' } },
      },
      { type: 'object', required: ['a'], anyOf: [{ required: ['b'] }, { required: ['c'] }] },
    ];
    const instances = [{}, { a: 'x' }, { a: 'x', b: 1 }, { a: 1, c: true }, { b: 1, c: 2 }];
    for (const schema of schemas) {
      const compiled = registry.compile(schema, { tool: 't' });
      for (const instance of instances)
        expect(compiled.validate(instance, { maxIssues: 1 }).ok, JSON.stringify([schema, instance])).toBe(compiled.validate(instance).ok);
    }
  });

  it('B4: the invalid_arguments result carries the bounded issues and its message names the first and how many more', async () => {
    const reached: unknown[] = [];
    const set = new HarnessToolSet([
      {
        name: 'hostile',
        inputSchema: hostileSchema(),
        handler: async (args: Record<string, unknown>) => {
          reached.push(args);
          return 'ok';
        },
      },
    ]);
    const result = await set.handle({ callId: 'c1', name: 'hostile', arguments: { huge: 'x' } });
    expect(result).toMatchObject({ status: 'invalid_arguments', error: { code: 'invalid_arguments' } });
    const error = (result as unknown as { error: { message: string; details: { issues: unknown[]; issuesOmitted: number } } }).error;
    expect(error.details.issues).toHaveLength(MAX_VALIDATION_ISSUES);
    expect(error.details.issuesOmitted).toBe(5_000 - MAX_VALIDATION_ISSUES);
    expect(error.message).toBe(
      `the arguments do not match the tool's schema: must have required property "p0" (and ${5_000 - 1} more issues); correct them and call again`,
    );
    expect(reached).toEqual([]);
  });
});
