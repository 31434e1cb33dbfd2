/**
 * ToolSchemaRegistry throughput against raw cfworker and ajv, in one run.
 * Targets (issue 2): validate within 1.25× raw cfworker; a cached recompile of
 * an identical new object ≥ 20× faster than a cold load; 1,000 distinct
 * medium-sized schemas load in < 0.5 s.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@cfworker/json-schema';
import Ajv from 'ajv';
import { ToolSchemaRegistry } from '../src/index.js';
import { type BenchReport, formatNs, measure, median } from './harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const real = (name: string) =>
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
    definitions: { item: { type: 'object', properties: { id: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['id'] } },
  };
}

function largeArgs(): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (let i = 0; i < 30; i++) {
    args[`field${i}`] =
      i % 3 === 0 ? 'value' : i % 3 === 1 ? [{ id: 1, tags: ['a', 'b'] }, { id: 2, tags: [] }] : { x: 1.5, y: 'b' };
  }
  return args;
}

const CASES = [
  { size: 'small', schema: real('filesystem__read_text_file'), args: { path: '/tmp/file.txt', head: 10 } },
  {
    size: 'medium',
    schema: real('memory__create_entities'),
    args: { entities: [{ name: 'a', entityType: 'person', observations: ['x', 'y'] }, { name: 'b', entityType: 'place', observations: [] }] },
  },
  { size: 'large', schema: largeSchema(), args: largeArgs() },
];

/** Runs the schema benchmarks. */
export function runSchemaBench(): BenchReport {
  const rows: string[] = ['| schema | registry validate | raw cfworker | ajv | registry / cfworker |', '| --- | --- | --- | --- | --- |'];
  const targets: BenchReport['targets'] = [];
  for (const c of CASES) {
    const registry = new ToolSchemaRegistry();
    const ours = registry.compile(c.schema, { tool: c.size });
    if (!ours.validate(c.args).ok) throw new Error(`bench args for ${c.size} are invalid`);
    const raw = new Validator(structuredClone(c.schema), '7');
    const ajv = new Ajv({ strict: false }).compile(c.schema);
    // Interleaved rounds so that JIT warm-up and machine noise hit all alike.
    const samples = { ours: [] as number[], raw: [] as number[], ajv: [] as number[] };
    for (let round = 0; round < 7; round++) {
      samples.raw.push(measure('cfworker', () => raw.validate(c.args), { rounds: 3 }).nsPerOp);
      samples.ours.push(measure('registry', () => ours.validate(c.args), { rounds: 3 }).nsPerOp);
      samples.ajv.push(measure('ajv', () => ajv(c.args), { rounds: 3 }).nsPerOp);
    }
    const mOurs = { nsPerOp: median(samples.ours) };
    const mRaw = { nsPerOp: median(samples.raw) };
    const mAjv = { nsPerOp: median(samples.ajv) };
    const ratio = mOurs.nsPerOp / mRaw.nsPerOp;
    rows.push(`| ${c.size} | ${formatNs(mOurs.nsPerOp)} | ${formatNs(mRaw.nsPerOp)} | ${formatNs(mAjv.nsPerOp)} | ${ratio.toFixed(2)}× |`);
    targets.push({ name: `validate (${c.size}) ≤ 1.25× raw cfworker`, ok: ratio <= 1.25, detail: `${ratio.toFixed(2)}×` });
  }

  // Cold load vs a cached recompile of an identical new object (what a refresh sees).
  const medium = CASES[1]!.schema;
  const distinct = (i: number) => ({ ...structuredClone(medium), properties: { ...medium.properties, [`extra${i}`]: { type: 'string' } } });
  const coldInputs = Array.from({ length: 4000 }, (_, i) => distinct(i));
  const coldRegistry = new ToolSchemaRegistry({ maxCached: 10_000 });
  let next = 0;
  const cold = measure('cold', () => coldRegistry.compile(coldInputs[next++ % coldInputs.length], { tool: 'm' }), { rounds: 5, opsPerRound: 400 });
  const warmRegistry = new ToolSchemaRegistry();
  warmRegistry.compile(medium, { tool: 'm' });
  const copies = Array.from({ length: 2000 }, () => structuredClone(medium));
  const cached = measure('cached', (i) => warmRegistry.compile(copies[i % copies.length], { tool: 'm' }));
  const speedup = cold.nsPerOp / cached.nsPerOp;
  targets.push({ name: 'cached recompile ≥ 20× faster than cold load', ok: speedup >= 20, detail: `${speedup.toFixed(0)}×` });

  // 1,000 distinct medium schemas, end to end (meta-validation, ref checks, compile).
  const thousand = Array.from({ length: 1000 }, (_, i) => distinct(100_000 + i));
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const registry = new ToolSchemaRegistry({ maxCached: 2000 });
    const inputs = thousand.map((s) => ({ ...s, title: `round ${round}` }));
    const start = process.hrtime.bigint();
    for (const schema of inputs) registry.compile(schema, { tool: 'm' });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const thousandMs = times[2] as number;
  targets.push({ name: '1,000 distinct medium schemas load in < 0.5 s', ok: thousandMs < 500, detail: `${thousandMs.toFixed(0)} ms` });

  const markdown = [
    ...rows,
    '',
    '| load | median per schema |',
    '| --- | --- |',
    `| cold load (medium, distinct content) | ${formatNs(cold.nsPerOp)} |`,
    `| cached recompile (identical new object) | ${formatNs(cached.nsPerOp)} |`,
    `| 1,000 distinct medium schemas, total | ${thousandMs.toFixed(0)} ms |`,
  ].join('\n');
  return { title: 'ToolSchemaRegistry', markdown, targets };
}
