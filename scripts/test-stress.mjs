#!/usr/bin/env node
// `npm run test:stress [-- runs]`: the whole suite N times (default 5) while two
// CPU hogs keep both cores busy, as on a loaded CI machine. Every run must pass.
// Prints one line per run and a summary; exits 1 if any run failed.
import { spawn, spawnSync } from 'node:child_process';

const runs = Number(process.argv[2] ?? 5);
const hogs = Array.from({ length: 2 }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const stop = () => hogs.forEach((h) => h.kill('SIGKILL'));
process.on('exit', stop);
process.on('SIGINT', () => process.exit(130));

spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
let failedRuns = 0;
for (let i = 1; i <= runs; i++) {
  const started = Date.now();
  const r = spawnSync('npx', ['vitest', 'run', '--reporter=dot'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const out = `${r.stdout}\n${r.stderr}`;
  const tests = out.match(/Tests\s+(.*)/)?.[1]?.replace(/\x1b\[[0-9;]*m/g, '') ?? 'no summary';
  if (r.status !== 0) {
    failedRuns += 1;
    const failures = [...out.matchAll(/FAIL\s+(.+)/g)].map((m) => m[1].replace(/\x1b\[[0-9;]*m/g, '')).slice(0, 20);
    console.log(`run ${i}: FAILED in ${Math.round((Date.now() - started) / 1000)} s — ${tests}\n  ${failures.join('\n  ')}`);
  } else {
    console.log(`run ${i}: passed in ${Math.round((Date.now() - started) / 1000)} s — ${tests}`);
  }
}
console.log(
  `${runs - failedRuns} of ${runs} runs passed under load (2 CPU hogs on ${(await import('node:os')).availableParallelism()} cores)`,
);
stop();
process.exitCode = failedRuns > 0 ? 1 : 0;
