/**
 * contractSuite: turns a contract into one test per case, for any framework
 * (vitest's `it`, node:test's `test`). The server is started once for all
 * cases, through the same runner as runContract.
 */
import assert from 'node:assert/strict';
import { type ContractCase, type ContractReport, runContract } from '../authoring/contract.js';
import type { ConnectOptions } from '../mcp/connect.js';
import type { McpDocument, McpServerConfig } from '../resources/mcp-config.js';
import type { TestFunction } from './store-conformance.js';

/** Registers one test per contract case; `beforeAll` runs the contract once against the real server. */
export function contractSuite(
  target: McpDocument | McpServerConfig,
  cases: readonly ContractCase[],
  options: { test: TestFunction; beforeAll: (fn: () => Promise<void>) => unknown; connect?: ConnectOptions },
): void {
  let report: ContractReport | undefined;
  options.beforeAll(async () => {
    report = await runContract(target, cases, options.connect ?? {});
  });
  cases.forEach((c, i) => {
    options.test(`${c.tool}: ${c.name} → ${'ok' in c.expect ? 'ok' : c.expect.code}`, async () => {
      assert.ok(report, 'the contract run did not complete');
      const result = report.results[i];
      assert.ok(result, 'no result for this case');
      assert.deepEqual(result.got, 'ok' in c.expect ? { ok: true } : { code: c.expect.code });
    });
  });
}
