/**
 * The protocol features against @modelcontextprotocol/server-everything over
 * stdio, mounted in real runs: output schemas (draft-07), progress, timeouts,
 * elicitation and sampling handlers (its conditional tools), resources and
 * prompts, and the same capabilities in probes and runs (P2, B3, G3).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  McpProber,
  MemoryStore,
  NativeRun,
  type NativeRunOptions,
  policies,
  type ProgressEvent,
  ResourceService,
  toolAlias,
} from '../../src/index.js';
import { referenceServer, tempDir } from '../support/index.js';

const tmp = tempDir('agt-everything-');
const config = { command: process.execPath, args: [referenceServer('everything'), 'stdio'], cwd: tmp.dir };
const every = (tool: string) => toolAlias('ref/everything', tool);
const handlers: Pick<NativeRunOptions, 'elicitation' | 'sampling'> = {
  elicitation: async () => ({ action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.org' } }),
  sampling: async () => ({ role: 'assistant', model: 'scripted', content: { type: 'text', text: 'sampled by the host' } }),
};

let run: NativeRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});
afterAll(() => tmp.cleanup());

async function start(extra: Partial<NativeRunOptions> = {}) {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'ref/everything', create: true, data: { mcpServers: { everything: config } } });
  await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['ref/everything'] } });
  run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*'), ...extra });
  return { run, service };
}

const step = (r: NativeRun, id: string, calls: { callId: string; name: string; arguments: Record<string, unknown> }[]) =>
  r.executeBatch({ runId: r.id, agent: r.agent, batchId: id, calls });

describe('server-everything in a run', () => {
  it('B3: get-structured-content declares a draft-07 outputSchema; its result passes the output check', async () => {
    const { run: r } = await start();
    const { results } = await step(r, 'b1', [{ callId: 'w', name: every('get-structured-content'), arguments: { location: 'Chicago' } }]);
    expect(results[0]).toMatchObject({
      status: 'ok',
      structuredContent: { temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) },
    });
  });

  it('progress of trigger-long-running-operation reaches onProgress; a call over timeouts.callMs is cancelled', async () => {
    const seen: ProgressEvent[] = [];
    const { run: r } = await start({ onProgress: (e) => void seen.push(e), timeouts: { callMs: 1_500 } });
    const ok = await step(r, 'b1', [
      { callId: 'p', name: every('trigger-long-running-operation'), arguments: { duration: 0.2, steps: 2 } },
    ]);
    expect(ok.results[0]?.status).toBe('ok');
    expect(seen.map((e) => [e.callId, e.progress, e.total])).toEqual([
      ['p', 1, 2],
      ['p', 2, 2],
    ]);
    const slow = await step(r, 'b2', [
      { callId: 'slow', name: every('trigger-long-running-operation'), arguments: { duration: 60, steps: 2 } },
    ]);
    expect(slow.results[0]).toMatchObject({ status: 'tool_failed', error: { code: 'call_timeout' } });
  });

  it('elicitation and sampling tools appear only with handlers, and their requests reach the handlers', async () => {
    const plain = await start();
    expect(plain.run.snapshot.aliases).not.toContain(every('trigger-elicitation-request'));
    await plain.run.close();
    const { run: r } = await start(handlers);
    // The server registers its conditional tools after initialize and announces them (list_changed):
    // if the first listing raced that, the first batch boundary lists again.
    if (!r.snapshot.aliases.includes(every('trigger-elicitation-request'))) {
      const { refresh } = await step(r, 'warm', [{ callId: 'e', name: every('echo'), arguments: { message: 'warm up' } }]);
      expect(refresh?.trigger).toBe('list_changed');
    }
    const { results } = await step(r, 'b1', [
      { callId: 'el', name: every('trigger-elicitation-request'), arguments: {} },
      { callId: 'sa', name: every('trigger-sampling-request'), arguments: { prompt: 'say hi', maxTokens: 10 } },
    ]);
    expect(results.map((x) => x.status)).toEqual(['ok', 'ok']);
    expect(JSON.stringify(results[0])).toContain('Ada');
    expect(JSON.stringify(results[1])).toContain('sampled by the host');
  });

  it('P2: a probe with the same handlers sees the same tools as the run', async () => {
    const { run: r, service } = await start(handlers);
    const report = await new McpProber({ service, ...handlers }).probe('ref/everything');
    const probed = report.tools.map((t) => every(t.name)).sort();
    expect(report.clientCapabilities).toEqual({ elicitation: { form: { applyDefaults: true } }, sampling: {} });
    expect(probed).toContain(every('trigger-sampling-request'));
    // The run may have listed before the conditional tools were registered; after a boundary it has them all.
    const listed = r.snapshot.aliases.filter((a) => a.startsWith('ref__'));
    if (listed.length !== probed.length) await step(r, 'warm', [{ callId: 'e', name: every('echo'), arguments: { message: 'x' } }]);
    expect(r.snapshot.aliases.filter((a) => a.startsWith('ref__')).sort()).toEqual(probed);
    expect(report).toMatchObject({ resources: { count: expect.any(Number) }, prompts: { count: expect.any(Number) } });
  });

  it("G3: resources and prompts of the run's own mounts are listed, read and rendered; other references are refused", async () => {
    const { run: r } = await start();
    const resources = await r.listResources('ref/everything');
    expect(resources.length).toBeGreaterThan(0);
    const contents = await r.readResource('ref/everything', resources[0]!.uri);
    expect(contents.contents[0]?.uri).toBe(resources[0]!.uri);
    const prompt = await r.getPrompt('ref/everything', 'args-prompt', { city: 'Lisbon' });
    expect(JSON.stringify(prompt.messages)).toContain('Lisbon');
    await expect(r.listPrompts('ref/not-mounted')).rejects.toMatchObject({ code: 'not_found' });
  });
});
