/**
 * ToolSchemaRegistry throughput against raw cfworker and ajv, in one run.
 * Targets (issue 2): validate within 1.25× raw cfworker; a cached recompile of
 * an identical new object ≥ 20× faster than a cold load; 1,000 distinct
 * medium-sized schemas load in < 0.5 s.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolSchemaRegistry } from '../src/index.js';
import { type BenchReport, formatNs, measure, median } from './harness.js';
import { schemaCases } from './schema-cases.js';
import { measureHostileSchema } from './schema-hostile.js';

const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'schema-validate.worker.ts');
const CONTENDERS = ['cfworker', 'registry', 'ajv'] as const;
const REPEATS = 5;

function timeInChild(size: string, contender: string): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', worker, size, contender], { encoding: 'utf8' });
  return (JSON.parse(out.trim().split('\n').pop() as string) as { nsPerOp: number }).nsPerOp;
}

/** Runs the schema benchmarks. */
export function runSchemaBench(): BenchReport {
  const rows: string[] = ['| schema | registry validate | raw cfworker | ajv | registry / cfworker |', '| --- | --- | --- | --- | --- |'];
  const targets: BenchReport['targets'] = [];
  const CASES = schemaCases();
  for (const c of CASES) {
    // Fresh process per contender, alternated, repeated: medians of medians.
    const samples: Record<string, number[]> = { cfworker: [], registry: [], ajv: [] };
    for (let r = 0; r < REPEATS; r++) for (const who of CONTENDERS) samples[who]!.push(timeInChild(c.size, who));
    const ours = median(samples.registry!);
    const raw = median(samples.cfworker!);
    const ratio = ours / raw;
    rows.push(`| ${c.size} | ${formatNs(ours)} | ${formatNs(raw)} | ${formatNs(median(samples.ajv!))} | ${ratio.toFixed(2)}× |`);
    targets.push({ name: `validate (${c.size}) ≤ 1.25× raw cfworker`, ok: ratio <= 1.25, detail: `${ratio.toFixed(2)}×` });
  }

  // Cold load vs a cached recompile of an identical new object (what a refresh sees).
  const medium = CASES[1]!.schema;
  const distinct = (i: number) => ({
    ...structuredClone(medium),
    properties: { ...(medium.properties as object), [`extra${i}`]: { type: 'string' } },
  });
  const coldInputs = Array.from({ length: 4000 }, (_, i) => distinct(i));
  const coldRegistry = new ToolSchemaRegistry({ maxCached: 10_000 });
  let next = 0;
  const cold = measure('cold', () => coldRegistry.compile(coldInputs[next++ % coldInputs.length], { tool: 'm' }), {
    rounds: 5,
    opsPerRound: 400,
  });
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

  // Issue 47: a hostile schema's errors are counted, not built.
  const hostile = measureHostileSchema();
  targets.push({
    name: 'one invalid object against the 5,000-required schema builds ≤ 100 issues',
    ok: hostile.issues <= 100,
    detail: `${hostile.issues} built, ${hostile.omitted} counted`,
  });
  targets.push({
    name: 'one invalid validation against it ≤ 5 ms',
    ok: hostile.validateMs <= 5,
    detail: `${hostile.validateMs.toFixed(2)} ms (raw cfworker with every error: ${hostile.rawMs.toFixed(2)} ms)`,
  });
  targets.push({
    name: 'contractCases on it < 200 ms',
    ok: hostile.casesMs < 200,
    detail: `${hostile.casesMs.toFixed(0)} ms for ${hostile.cases} cases (${hostile.firstMs.toFixed(0)} ms with the schema's first compile)`,
  });

  const markdown = [
    ...rows,
    '',
    '| load | median per schema |',
    '| --- | --- |',
    `| cold load (medium, distinct content) | ${formatNs(cold.nsPerOp)} |`,
    `| cached recompile (identical new object) | ${formatNs(cached.nsPerOp)} |`,
    `| 1,000 distinct medium schemas, total | ${thousandMs.toFixed(0)} ms |`,
    '',
    '| hostile schema (5,000 required, issue 47) | median |',
    '| --- | --- |',
    `| contractCases (${hostile.cases} cases), the schema compiled before | ${hostile.casesMs.toFixed(0)} ms |`,
    `| contractCases, its first call (the compile included: 80% of it the metaschema check) | ${hostile.firstMs.toFixed(0)} ms |`,
    `| one invalid validation (${hostile.issues} issues built, ${hostile.omitted} counted) | ${hostile.validateMs.toFixed(2)} ms |`,
    `| raw cfworker, same object, every error | ${hostile.rawMs.toFixed(2)} ms |`,
  ].join('\n');
  return { title: 'ToolSchemaRegistry', markdown, targets };
}
