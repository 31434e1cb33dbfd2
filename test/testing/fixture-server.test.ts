/** agt-mcp/testing's fixture server, from the sources: its contract holds over stdio, and it is a well-behaved server (C3, P2). */
import { describe, expect, it } from 'vitest';
import { contractCases, runContract } from '../../src/authoring/index.js';
import { connectMcp, McpProber } from '../../src/index.js';
import { fixtureServer, fixtureTools } from '../../src/testing/index.js';

describe('fixtureServer', () => {
  it('C3: every tool passes its derived contract over the real transport', async () => {
    const [echo, add, fail, sleep, env] = fixtureTools() as [never, never, never, never, never];
    const cases = [
      ...contractCases(echo, { valid: [{ message: 'hi' }] }),
      ...contractCases(add, { valid: [{ a: 1, b: 2 }] }),
      // fail never succeeds: its base example only derives the invalid cases.
      ...contractCases(fail, {
        valid: [{ code: 'out_of_stock' }],
        validBoundaries: false,
        businessErrors: [{ name: 'asked to fail', args: { code: 'out_of_stock' }, code: 'out_of_stock' }],
      }).filter((c) => !c.name.startsWith('valid example')),
      ...contractCases(sleep, { valid: [{ ms: 0 }], validBoundaries: false }),
      ...contractCases(env, { valid: [{ name: 'PATH' }] }),
    ];
    const report = await runContract(fixtureServer(), cases);
    expect(report.results.filter((r) => !r.passed).map((r) => r.case.name)).toEqual([]);
    expect(report.results.length).toBeGreaterThan(10);
  });

  it('P2: it probes clean, passes env as configured, and a cancelled sleep ends at once', async () => {
    const report = await new McpProber().probe({ mcpServers: { fixture: fixtureServer() } });
    expect(report).toMatchObject({ ok: true, server: { name: 'agt-fixture' } });
    const connection = await connectMcp(fixtureServer({ env: { FIXTURE_TOKEN: 'abc' } }));
    expect((await connection.callTool('env', { name: 'FIXTURE_TOKEN' })).structuredContent).toEqual({ set: true, length: 3 });
    const controller = new AbortController();
    const call = connection.callTool('sleep', { ms: 600_000 }, { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await connection.close();
  });
});
