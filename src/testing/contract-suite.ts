/**
 * contractSuite: turns a contract into one test per case and era, for any
 * framework (vitest's `it`, node:test's `test`). The server is started once
 * per era for all cases, through the same runner as runContract.
 */
import assert from 'node:assert/strict';
import { type ContractCase, type ContractOptions, type ContractReport, runContract } from '../authoring/contract/contract.js';
import { eraLabel, erasOf } from '../authoring/eras.js';
import type { McpDocument, McpServerConfig } from '../config/mcp-config.js';
import type { TestFunction } from './store-conformance.js';

/**
 * Registers one test per contract case and era (C3: both eras unless the
 * config pins one or `connect.eras` names them); `beforeAll` runs the contract
 * once against the real server. An era the server does not speak fails its
 * tests with the reason: name the eras it speaks in `connect.eras`. A tool's
 * interface (MCP Apps) that fails its check fails that tool's first case.
 */
export function contractSuite(
  target: McpDocument | McpServerConfig,
  cases: readonly ContractCase[],
  options: { test: TestFunction; beforeAll: (fn: () => Promise<void>) => unknown; connect?: ContractOptions },
): void {
  let report: ContractReport | undefined;
  const eras = erasOf(target, options.connect?.eras);
  options.beforeAll(async () => {
    report = await runContract(target, cases, { ...options.connect, eras });
  });
  for (const era of eras) {
    cases.forEach((c, i) => {
      options.test(`${c.tool}: ${c.name} → ${'ok' in c.expect ? 'ok' : c.expect.code} (${eraLabel(era)})`, async () => {
        assert.ok(report, 'the contract run did not complete');
        const ran = report.eras.find((e) => e.era === era);
        assert.ok(ran, `the contract did not run in ${eraLabel(era)}`);
        assert.equal(ran.unavailable, undefined, `the server does not speak ${eraLabel(era)}: ${ran.unavailable}`);
        const result = ran.results[i];
        assert.ok(result, 'no result for this case');
        assert.deepEqual(result.got, 'ok' in c.expect ? { ok: true } : { code: c.expect.code });
        // The first case of a tool also carries its interface's check (MCP Apps), when it declares one.
        const app = cases.findIndex((other) => other.tool === c.tool) === i ? ran.apps?.find((a) => a.tool === c.tool) : undefined;
        if (app !== undefined && !app.passed)
          assert.fail(`${c.tool}'s interface ${app.uri ?? ''}: ${app.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
      });
    });
  }
}
