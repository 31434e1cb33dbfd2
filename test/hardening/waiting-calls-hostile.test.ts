import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRunStore, MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { tempDir } from '../support/index.js';
import { startV2Http, type V2HttpServer } from '../mcp/fixtures/v2-server.js';

let server: V2HttpServer;
beforeAll(async () => { server = await startV2Http({ legacy: 'stateless' }); });
afterAll(async () => { await server.close(); });
const tool = (n: string) => toolAlias('tools/v2', n);
async function start(extra = {}) {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'tools/v2', create: true, data: { mcpServers: { v2: { url: server.url } } } });
  await service.write({ kind: 'agent', reference: 'team/q', create: true, data: { mcps: ['tools/v2'] } });
  return NativeRun.start({ agent: 'team/q', service, policy: policies.autoAllow('*'), elicitation: 'defer', ...extra });
}

describe('probe', () => {
  it('answers mutated after decide', async () => {
    const store = new MemoryRunStore();
    const form = { confirm: true as unknown };
    const run = await start({ policy: policies.chain(policies.approval(tool('add')), policies.autoAllow('*')), audit: { record: (e: { type: string }) => { if (e.type === 'input_decided') form.confirm = 'reset'; } } });
    await run.executeBatch({ runId: run.id, agent: run.agent, batchId: 'b1', calls: [{ callId: 'c1', name: tool('ask'), arguments: { what: 'x' } }] });
    await run.suspend({ store });
    const deciding = run.decide('b1', { c1: { answers: { confirm: form } } });
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    form.confirm = 'reset';
    console.log('decide:', await deciding.then((r) => JSON.stringify(r.results), (e) => `${e.code}: ${e.message}`));
    console.log('pending', run.pending().length, 'inflight', run.inFlightCalls().length, JSON.stringify((await store.get(run.id))!.state.inFlight?.map((c) => c.decision)));
    // getter reason
    await run.executeBatch({ runId: run.id, agent: run.agent, batchId: 'b2', calls: [{ callId: 'c2', name: tool('ask'), arguments: { what: 'y' } }] });
    let n = 0;
    const r2 = await run.decide('b2', { c2: { decline: true, get reason() { return n++ === 0 ? undefined : ({ evil: 1 } as never); } } as never }).catch((e) => e);
    console.log('getter reason:', JSON.stringify(r2.results ?? r2.message));
    await run.executeBatch({ runId: run.id, agent: run.agent, batchId: 'b3', calls: [{ callId: 'c3', name: tool('add'), arguments: { a: 1, b: 2 } }] }).then((r) => console.log('b3', JSON.stringify(r)), (e) => console.log('b3', e.message));
    let m = 0;
    const r3 = await run.decide('b3', { c3: { approve: false, get reason() { return m++ === 0 ? undefined : ({ evil: 1 } as never); } } as never }).catch((e) => e);
    console.log('getter reason approval:', JSON.stringify(r3.results ?? r3.message));
    await run.close();
  });
});
