/**
 * Issue 47: a hostile schema's errors are counted, not built. The schema of
 * the S2 test (5,000 required strings, a 1e9 maxLength, a 2e9 maxItems):
 * `contractCases` on it (a distinct copy each round: its first call also
 * compiles it) and one invalid validation, beside raw cfworker validating the
 * same object with every error (what the registry cannot do for less).
 */
import { dereference, validate as cfValidate } from '@cfworker/json-schema';
import { contractCases } from '../src/authoring/index.js';
import { ToolSchemaRegistry } from '../src/index.js';
import { median } from './harness.js';

/** The hostile schema; `tag` makes each copy distinct (no cache hit). */
export function hostileSchema(tag = ''): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 5_000; i++) properties[`p${i}`] = { type: 'string' };
  properties.huge = { type: 'string', minLength: 1, maxLength: 1_000_000_000 };
  properties.many = { type: 'array', items: { type: 'string' }, maxItems: 2_000_000_000 };
  return { type: 'object', title: `hostile ${tag}`, properties, required: Object.keys(properties).slice(0, 5_000) };
}

/**
 * Medians: contractCases on a fresh copy (its first call compiles the schema: metaschema check, references) and
 * called again (compiled once before, as a second contract run or a probed server has it); one invalid validation and
 * raw cfworker on it; the issues built.
 */
export function measureHostileSchema(rounds = 7) {
  const first: number[] = [];
  const again: number[] = [];
  let count = 0;
  for (let r = 0; r < rounds; r++) {
    const schema = hostileSchema(String(r));
    const derive = () => contractCases({ name: `hostile${r}`, inputSchema: schema }, { valid: [{ huge: 'x', many: ['a'] }] }).length;
    let t = performance.now();
    count = derive();
    first.push(performance.now() - t);
    t = performance.now();
    derive();
    again.push(performance.now() - t);
  }
  const schema = hostileSchema('v');
  const compiled = new ToolSchemaRegistry().compile(schema, { tool: 'hostile' });
  const lookup = dereference(schema as object);
  const ours: number[] = [];
  const raw: number[] = [];
  let issues = 0;
  let omitted = 0;
  for (let r = 0; r < rounds * 3; r++) {
    let t = performance.now();
    const result = compiled.validate({ huge: 'x' });
    ours.push(performance.now() - t);
    if (!result.ok) [issues, omitted] = [result.issues.length, result.issuesOmitted ?? 0];
    t = performance.now();
    cfValidate({ huge: 'x' }, schema as object, '2020-12', lookup, false);
    raw.push(performance.now() - t);
  }
  return { firstMs: median(first), casesMs: median(again), cases: count, validateMs: median(ours), rawMs: median(raw), issues, omitted };
}
