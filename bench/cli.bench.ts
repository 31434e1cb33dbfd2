/**
 * `agt mcp probe` against the library (issue 17): the wall time of the CLI
 * process (start to exit, the close grace no longer waited out) against
 *  - the same probe by a fresh node process that imports the built library
 *    and calls McpProber (same start-up and module loading: the fair
 *    baseline for a command), target ≤ 1.3×;
 *  - the library probe's own time inside a warm process (McpProber.probe),
 *    reported: the gap is node's start and loading the SDK, which any command
 *    pays before it can speak MCP.
 * Alternated in one run, median of the rounds. Needs `npm run build` (dist/).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpProber } from '../src/index.js';
import { type BenchReport, formatNs, median } from './harness.js';
import { servers } from './probe.bench.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(root, 'dist', 'cli.js');
const ROUNDS = 7;

function timedProcess(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env, cwd: root }, (error) => (error ? reject(error) : resolve(performance.now() - started)));
  });
}

/** Runs the CLI probe benchmark. */
export async function runCliBench(): Promise<BenchReport> {
  if (!fs.existsSync(CLI)) throw new Error('the CLI bench needs the built package: run npm run build first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-bench-cli-'));
  try {
    const env = { ...process.env, AGT_HOME: dir };
    const configs = servers(dir);
    const prober = new McpProber();
    const script = path.join(dir, 'library-probe.mjs');
    fs.writeFileSync(
      script,
      `import { McpProber } from ${JSON.stringify(path.join(root, 'dist', 'index.js'))};\nconst report = await new McpProber().probe(JSON.parse(process.argv[2]));\nif (!report.ok) process.exit(1);\n`,
    );
    const rows = [
      '| server | `agt mcp probe` wall | fresh process, library probe | library probe in a warm process | CLI ÷ fresh | CLI ÷ warm |',
      '| --- | --- | --- | --- | --- | --- |',
    ];
    const targets: BenchReport['targets'] = [];
    for (const [name, config] of Object.entries(configs)) {
      const document = { mcpServers: { [name]: config } };
      fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(document));
      execFileSync(process.execPath, [CLI, 'mcp', 'create', `bench/${name}`, '--from', path.join(dir, `${name}.json`)], {
        env,
        stdio: 'ignore',
      });
      const cli: number[] = [];
      const fresh: number[] = [];
      const warm: number[] = [];
      await timedProcess([CLI, 'mcp', 'probe', `bench/${name}`], env); // warm the file cache
      for (let r = 0; r < ROUNDS; r++) {
        cli.push(await timedProcess([CLI, 'mcp', 'probe', `bench/${name}`], env));
        fresh.push(await timedProcess([script, JSON.stringify(document)], env));
        const started = performance.now();
        await prober.probe(document);
        warm.push(performance.now() - started);
      }
      const [c, f, w] = [median(cli), median(fresh), median(warm)];
      rows.push(
        `| ${name} | ${formatNs(c * 1e6)} | ${formatNs(f * 1e6)} | ${formatNs(w * 1e6)} | ${(c / f).toFixed(2)}× | ${(c / w).toFixed(2)}× |`,
      );
      targets.push({
        name: `agt mcp probe (${name}) ≤ 1.3× the library probe in a fresh process`,
        ok: c / f <= 1.3,
        detail: `${(c / f).toFixed(2)}× (${(c / w).toFixed(2)}× a warm in-process probe)`,
      });
    }
    return { title: 'agt mcp probe (CLI)', markdown: rows.join('\n'), targets };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
