/**
 * `npm run bench`: runs every benchmark in one process and prints markdown
 * (paste into docs/benchmarks.md) plus the targets, each with its ratio.
 * Exits 1 if a target is missed, so a regression is visible.
 */
import type { BenchReport } from './harness.js';
import { runAppsBench } from './apps.bench.js';
import { runCliBench } from './cli.bench.js';
import { runContractBench } from './contract.bench.js';
import { runErasBench } from './eras.bench.js';
import { runFleetBench } from './fleet.bench.js';
import { runHostileBench } from './hostile.bench.js';
import { runKitBench } from './kit.bench.js';
import { runPerCallBench } from './per-call.bench.js';
import { runHostsBench } from './hosts.bench.js';
import { runPoolBench } from './pool.bench.js';
import { runProbeBench } from './probe.bench.js';
import { runResultsBench } from './results.bench.js';
import { runRuntimeBench } from './runtime.bench.js';
import { runSandboxBench } from './sandbox.bench.js';
import { runSchemaBench } from './schema.bench.js';
import { runStoreBench } from './store.bench.js';
import { runSkillsBench } from './skills.bench.js';
import { runTasksBench } from './tasks.bench.js';
import { runToolSearchBench } from './toolsearch.bench.js';

const all: Record<string, () => BenchReport | Promise<BenchReport>> = {
  schema: runSchemaBench,
  store: runStoreBench,
  probe: runProbeBench,
  runtime: runRuntimeBench,
  contract: runContractBench,
  hosts: runHostsBench,
  cli: runCliBench,
  hostile: runHostileBench,
  pool: runPoolBench,
  toolsearch: runToolSearchBench,
  eras: runErasBench,
  kit: runKitBench,
  'per-call': runPerCallBench,
  fleet: runFleetBench,
  tasks: runTasksBench,
  skills: runSkillsBench,
  apps: runAppsBench,
  sandbox: runSandboxBench,
  results: runResultsBench,
};
// `npm run bench -- store` runs one; no argument runs all.
const only = process.argv.slice(2);
const benches = Object.entries(all)
  .filter(([name]) => only.length === 0 || only.includes(name))
  .map(([, fn]) => fn);

let missed = 0;
for (const bench of benches) {
  const report = await bench();
  console.log(`## ${report.title}\n\n${report.markdown}\n`);
  for (const t of report.targets) {
    if (!t.ok) missed += 1;
    console.log(`- ${t.ok ? 'met' : 'MISSED'}: ${t.name} — ${t.detail}`);
  }
  console.log('');
}
console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
process.exitCode = missed > 0 ? 1 : 0;
