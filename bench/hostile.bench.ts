/**
 * Hostile-input costs (issue 21).
 * - Patterns: the worst event-loop block of validating an argument of at most
 *   10 KB against each classic evil pattern (or its load failing as
 *   unsafe_pattern). Target: ≤ 50 ms. And what a linear-time pattern costs per
 *   validation against the same pattern run natively.
 * - Memory: heap after 10 closed runs of 100 calls returning 1 MB each against
 *   the heap after one (a child process with --expose-gc). Target: ≤ 1.2×.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@cfworker/json-schema';
import { ToolSchemaRegistry } from '../src/index.js';
import { EVIL_PATTERNS } from '../test/support/evil-patterns.js';
import { type BenchReport, formatNs, measure } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function patternRows(targets: BenchReport['targets']): string[] {
  const registry = new ToolSchemaRegistry();
  const rows = ['| pattern | input | outcome | validate |', '| --- | --- | --- | --- |'];
  let worst = 0;
  for (const [pattern, input] of EVIL_PATTERNS) {
    let compiled;
    try {
      compiled = registry.compile({ type: 'object', properties: { s: { type: 'string', pattern } } }, { tool: 'evil' });
    } catch {
      rows.push(`| \`${pattern}\` | ${input.length} chars | unsafe_pattern at load | — |`);
      continue;
    }
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      compiled.validate({ s: input });
      times.push(performance.now() - started);
    }
    const ms = Math.max(...times);
    worst = Math.max(worst, ms);
    rows.push(`| \`${pattern}\` | ${input.length} chars | linear (re2js) | ${ms.toFixed(2)} ms (worst of 5) |`);
  }
  targets.push({
    name: 'no argument of ≤ 10 KB blocks the event loop > 50 ms (classic evil patterns)',
    ok: worst <= 50,
    detail: `worst ${worst.toFixed(2)} ms`,
  });
  const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^[a-z0-9_-]{1,64}$' } } };
  const plain = registry.compile(schema, { tool: 'plain' });
  const linear = measure('re2', () => plain.validate({ s: 'hello_world-12' }), { opsPerRound: 5000 });
  const cf = new Validator(schema as never, '2020-12', false);
  const raw = measure('native', () => cf.validate({ s: 'hello_world-12' }), { opsPerRound: 5000 });
  rows.push(
    '',
    `A whole validation of \`{ s: "hello_world-12" }\` against \`^[a-z0-9_-]{1,64}$\`: ${formatNs(linear.nsPerOp)} with the pattern in re2js, ${formatNs(raw.nsPerOp)} in raw cfworker with a native RegExp (${(linear.nsPerOp / raw.nsPerOp).toFixed(2)}×; a schema without patterns is unaffected).`,
  );
  return rows;
}

function heapRows(targets: BenchReport['targets']): string[] {
  const run = (runs: number) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', path.join(root, 'test/hardening/fixtures/heap-runs.ts'), String(runs), '100', '1000000'],
        { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 },
      ),
    ) as {
      afterOne: number;
      afterAll: number;
      listeners: number;
    };
  const ten = run(10);
  const ratio = ten.afterAll / ten.afterOne;
  targets.push({
    name: 'heap after 10 closed runs of 100 × 1 MB calls ≤ 1.2× heap after one',
    ok: ratio <= 1.2 && ten.listeners === 0,
    detail: `${ratio.toFixed(2)}×, ${ten.listeners} listeners left`,
  });
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  return [
    '| runs (100 calls × 1 MB each) | heap after the first | heap after all | host-signal listeners left |',
    '| --- | --- | --- | --- |',
    `| 10 | ${mb(ten.afterOne)} | ${mb(ten.afterAll)} (${ratio.toFixed(2)}×) | ${ten.listeners} |`,
  ];
}

/** Runs the hostile-input benchmarks. */
export function runHostileBench(): BenchReport {
  const targets: BenchReport['targets'] = [];
  const markdown = ['### Patterns (ReDoS)', '', ...patternRows(targets), '', '### Memory after closed runs', '', ...heapRows(targets)].join(
    '\n',
  );
  return { title: 'Hostile input (issue 21)', markdown, targets };
}
