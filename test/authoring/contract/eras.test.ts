/**
 * Contract tests in both eras (C3, E1): runContract, contractSuite and
 * checkServer run each case on a 2025 connection and on a 2026-07-28 one, over
 * the real transport, and report per era; an era the server does not speak is
 * reported unavailable, not failed.
 */
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkServer,
  contractCases,
  createToolServer,
  defineTool,
  type HttpToolService,
  runContract,
  serveHttp,
  toolError,
} from '../../../src/authoring/index.js';
import { contractSuite } from '../../../src/testing/index.js';
import { PYTHON_SERVER, REPO_ROOT } from '../../support/index.js';

const services: HttpToolService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

const add = defineTool({
  name: 'add',
  description: 'Adds two small integers.',
  annotations: { readOnlyHint: true },
  input: v.object({ a: v.pipe(v.number(), v.integer(), v.minValue(-100), v.maxValue(100)), b: v.number() }),
  handler: ({ a, b }) => {
    if (b === 13) throw toolError('unlucky', 'b may not be 13');
    return { sum: a + b };
  },
});

async function kitService(): Promise<string> {
  const service = await serveHttp(() => createToolServer({ name: 'kit', version: '1.0.0', tools: [add] }));
  services.push(service);
  return service.url;
}

const addCases = () =>
  contractCases(add, { valid: [{ a: 1, b: 2 }], businessErrors: [{ name: 'unlucky b', args: { a: 1, b: 13 }, code: 'unlucky' }] });
const python = { command: 'python3', args: [PYTHON_SERVER], cwd: REPO_ROOT };

describe('C3: contracts in both eras', () => {
  it('C3: runContract runs every case on a 2025 and a 2026-07-28 connection to one kit definition, reported per era', async () => {
    const cases = addCases();
    const report = await runContract({ url: await kitService() }, cases);
    expect(report.eras.map((e) => [e.era, e.protocolVersion, e.passed, e.failed, e.unavailable])).toEqual([
      ['legacy', '2025-11-25', cases.length, 0, undefined],
      ['modern', '2026-07-28', cases.length, 0, undefined],
    ]);
    expect(report.results).toHaveLength(cases.length * 2);
    expect(report.passed).toBe(cases.length * 2);
    // The same derived cases got the same answers in both eras: the business error and the refusals included.
    const got = (era: string) => report.results.filter((r) => r.era === era).map((r) => [r.case.name, r.got]);
    expect(got('modern')).toEqual(got('legacy'));
    expect(got('modern')).toContainEqual(['unlucky b', { code: 'unlucky' }]);
    expect(got('modern')).toContainEqual(['"a" just above maximum', { code: 'invalid_arguments' }]);
  });

  it('C3: a server that speaks only 2025 is reported unavailable in 2026-07-28, not failed; eras and a pinned config choose', async () => {
    const cases = [{ name: 'echo', tool: 'echo', args: { message: 'hi' }, expect: { ok: true } as const }];
    const report = await runContract(python, cases);
    expect(report.eras).toEqual([
      expect.objectContaining({ era: 'legacy', protocolVersion: '2025-11-25', passed: 1, failed: 0 }),
      { era: 'modern', passed: 0, failed: 0, results: [], unavailable: 'the server does not speak MCP 2026-07-28; it offers the 2025 era' },
    ]);
    expect([report.passed, report.failed]).toEqual([1, 0]);
    expect((await runContract(python, cases, { eras: ['legacy'] })).eras.map((e) => e.era)).toEqual(['legacy']);
    // Nothing ran in any era: an error, never a vacuous pass.
    await expect(runContract(python, cases, { eras: ['modern'] })).rejects.toMatchObject({
      code: 'protocol_mismatch',
      message: 'the server does not speak MCP 2026-07-28; it offers the 2025 era',
    });
    const pinned = await runContract(
      { url: await kitService(), protocol: '2026-07-28' },
      cases.map((c) => ({ ...c, tool: 'add', args: { a: 1, b: 1 } })),
    );
    expect(pinned.eras.map((e) => [e.era, e.passed])).toEqual([['modern', 1]]);
  });

  it('C3: contractSuite registers one test per case and era; an era the server does not speak fails its tests with the reason', async () => {
    const run = async (target: Parameters<typeof contractSuite>[0], cases: ReturnType<typeof addCases>) => {
      const tests: [string, () => Promise<void>][] = [];
      let setup: (() => Promise<void>) | undefined;
      contractSuite(target, cases, { test: (name, fn) => tests.push([name, fn]), beforeAll: (fn) => (setup = fn) });
      await setup?.();
      const outcomes: [string, string][] = [];
      for (const [name, fn] of tests)
        outcomes.push([
          name,
          await fn().then(
            () => 'passed',
            (e: Error) => e.message,
          ),
        ]);
      return outcomes;
    };
    const cases = addCases();
    const kit = await run({ url: await kitService() }, cases);
    expect(kit).toHaveLength(cases.length * 2);
    expect(kit.filter(([, outcome]) => outcome !== 'passed')).toEqual([]);
    expect(kit.map(([name]) => name)).toContain('add: unlucky b → unlucky (2025)');
    expect(kit.map(([name]) => name)).toContain('add: unlucky b → unlucky (2026-07-28)');
    const legacyOnly = await run(python, [{ name: 'echo', tool: 'echo', args: { message: 'hi' }, expect: { ok: true } }]);
    expect(legacyOnly).toEqual([
      ['echo: echo → ok (2025)', 'passed'],
      [
        'echo: echo → ok (2026-07-28)',
        expect.stringContaining('the server does not speak 2026-07-28: the server does not speak MCP 2026-07-28'),
      ],
    ]);
  });

  it('C3: checkServer (agt mcp check) checks each tool in each era and says which versions it spoke', async () => {
    const report = await checkServer({ url: await kitService() });
    expect(report.eras).toEqual([
      { era: 'legacy', protocolVersion: '2025-11-25' },
      { era: 'modern', protocolVersion: '2026-07-28' },
    ]);
    expect(report.tools.map((t) => [t.tool, t.era, t.status, t.failed])).toEqual([
      ['add', 'legacy', 'checked', 0],
      ['add', 'modern', 'checked', 0],
    ]);
    const [legacy, modern] = report.tools;
    expect(modern?.passed).toBe(legacy?.passed);
    expect(modern?.results.map((r) => [r.case.name, r.outcome])).toEqual(legacy?.results.map((r) => [r.case.name, r.outcome]));
    expect(report.ok).toBe(true);
    const python2025 = await checkServer(python, { tools: (name) => name === 'echo' });
    expect(python2025.eras[1]).toEqual({ era: 'modern', unavailable: 'the server does not speak MCP 2026-07-28; it offers the 2025 era' });
    expect(python2025.tools.map((t) => t.era)).toEqual(['legacy']);
  });
});
