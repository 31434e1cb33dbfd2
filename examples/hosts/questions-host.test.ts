// The web host of questions-host.ts, driven with fetch over loopback against the SDK v2 fixture server (E4).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRunStore, MemoryStore, ResourceService, toolAlias } from 'agt-mcp';
import { startV2Http, type V2HttpServer } from '../../test/mcp/fixtures/v2-server.js';
import { questionsHost } from './questions-host.js';

let mcp: V2HttpServer;
let web: Server;
let base: string;
beforeAll(async () => {
  mcp = await startV2Http({ legacy: 'reject' });
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'tools/ops', create: true, data: { mcpServers: { ops: { url: mcp.url } } } });
  await service.write({ kind: 'agent', reference: 'team/ops', create: true, data: { mcps: ['tools/ops'] } });
  web = createServer(questionsHost({ service, store: new MemoryRunStore() }));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => web.close(resolve));
  await mcp.close();
});

const post = async (path: string, value: unknown) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(value) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('a web host whose calls wait for answers (E4)', () => {
  it('E4: one request shows the question and stores the run; another answers it and gets the result', async () => {
    const calls = [{ callId: 'd1', name: toolAlias('tools/ops', 'ask'), arguments: { what: 'deploy' } }];
    const step = await post('/steps', { agent: 'team/ops', calls });
    expect(step.status).toBe(200);
    expect(step.body.results).toEqual([]);
    expect(step.body.questions).toEqual([
      expect.objectContaining({ callId: 'd1', round: 1, requests: { confirm: expect.objectContaining({ method: 'elicitation/create' }) } }),
    ]);
    expect(JSON.stringify(step.body)).not.toMatch(/requestState/);
    const wrong = await post(`/steps/${step.body.runId}/${step.body.batchId}`, { answers: { d1: { confirm: { confirm: 'yes' } } } });
    expect(wrong.status).toBe(400);
    const done = await post(`/steps/${step.body.runId}/${step.body.batchId}`, { answers: { d1: { confirm: { confirm: true } } } });
    expect(done.status).toBe(200);
    expect(JSON.stringify(done.body.results)).toMatch(/deploy: confirmed \(modern\)/);
  });
});
