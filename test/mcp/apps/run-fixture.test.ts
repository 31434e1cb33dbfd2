/**
 * A run with `apps: true` over the ext-apps fixture (test/fixtures/apps-server.ts:
 * SDK v2 server, ext-apps' own registerAppTool/registerAppResource), stdio, both
 * eras: the app-only tool is not given to the model (U1), the tools with an
 * interface say so, `run.readApp` returns the HTML with its CSP (U2), and an
 * app may call the app-only tool but not the model-only one (U3).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../../src/index.js';
import { failure } from '../../support/index.js';
import { appsServerConfig, CHART_HTML, CHART_URI } from '../../fixtures/apps-server.js';

let run: NativeRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

const name = (tool: string) => toolAlias('apps/charts', tool);

async function start(era: 'legacy' | '2026-07-28', flags: string[] = []): Promise<NativeRun> {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({
    kind: 'mcp',
    reference: 'apps/charts',
    create: true,
    data: { mcpServers: { charts: appsServerConfig(era, ...flags) } },
  });
  await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['apps/charts'] } });
  run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*'), apps: true });
  return run;
}

describe.each(['legacy', '2026-07-28'] as const)('MCP Apps on a run over the ext-apps fixture (%s)', (era) => {
  it(`U1: ${era}: refresh_chart (app only) is not given to the model; show_chart and summarize say which interface they have`, async () => {
    const r = await start(era);
    const tools = r.tools();
    expect(tools.map((t) => t.name).sort()).toEqual([name('echo'), name('show_chart'), name('summarize')].sort());
    expect(tools.find((t) => t.name === name('show_chart'))?.app).toEqual({ resourceUri: CHART_URI });
    expect(tools.find((t) => t.name === name('echo'))).not.toHaveProperty('app');
  });

  it(`U1: ${era}: a tool whose _meta.ui is malformed (visibility a string) is given to nobody`, async () => {
    const r = await start(era, ['--bad-meta']);
    expect(r.tools().map((t) => t.name)).not.toContain(name('broken_chart'));
    expect(r.tools().map((t) => t.name)).toContain(name('show_chart'));
  });

  it(`U2: ${era}: run.readApp returns the HTML with its CSP domains and permissions, by tool or by URI`, async () => {
    const r = await start(era);
    const expected = {
      uri: CHART_URI,
      html: CHART_HTML,
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
    };
    expect(await r.readApp(name('show_chart'))).toEqual(expected);
    expect(await r.readApp(CHART_URI)).toEqual(expected);
  });

  it(`U2: ${era}: run.readApp of an answer for another URI is refused (protocol_error, field contents)`, async () => {
    const r = await start(era, ['--other-uri']);
    expect(await failure(r.readApp(name('show_chart')))).toMatchObject({
      code: 'protocol_error',
      details: { reason: 'app_invalid', field: 'contents' },
    });
  });

  it(`U3: ${era}: the app may call refresh_chart (app only); summarize (model only) is refused to it`, async () => {
    const r = await start(era);
    const from = name('show_chart');
    const ok = await r.callFromApp('refresh_chart', {}, { from, batchId: 'app-1', callId: 'c1' });
    expect(ok.results).toEqual([expect.objectContaining({ callId: 'c1', status: 'ok' })]);
    const refused = await r.callFromApp('summarize', {}, { from, batchId: 'app-2', callId: 'c2' });
    expect(refused.results).toEqual([expect.objectContaining({ callId: 'c2', status: 'permission_denied' })]);
  });
});
