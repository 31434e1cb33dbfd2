/**
 * Elicitation and sampling requests of mounted servers reach the host's
 * handlers on NativeRun options, with the run's context; without a handler the
 * capability is not declared, and a run and its own probe declare the same
 * capabilities (P2, G3).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NativeRun, policies, type RunRequestContext } from '../../src/index.js';
import { batch, py, pythonConfig, runFixture, setup } from '../support/index.js';

const fx = runFixture(['elicit', 'sample']);
const start = (options: Parameters<typeof fx.start>[0] = {}) => fx.start(options);

describe('server-initiated requests in runs', () => {
  it("elicitation and sampling reach the run's handlers with the run, the mount and the call in flight", async () => {
    const contexts: RunRequestContext[] = [];
    const r = await start({
      elicitation: async (request, context) => {
        contexts.push(context);
        return { action: 'accept', content: { answer: `re: ${request.message}` } };
      },
      sampling: async (_request, context) => {
        contexts.push(context);
        return { role: 'assistant', model: 'host-model', content: { type: 'text', text: 'a summary' } };
      },
    });
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'ask-1', name: py('ask'), arguments: { question: 'ready?' } },
        { callId: 'sum-1', name: py('summarize'), arguments: { text: 'long' } },
      ]),
    );
    expect(results.map((x) => x.status)).toEqual(['ok', 'ok']);
    expect((results[0] as { structuredContent: unknown }).structuredContent).toEqual({
      action: 'accept',
      content: { answer: 're: ready?', mood: 'fine' },
    });
    expect((results[1] as { content: unknown }).content).toEqual([{ type: 'text', text: 'a summary' }]);
    for (const context of contexts) {
      expect(context).toMatchObject({ runId: r.id, agent: 'team/alice', mount: 'tools/py' });
      expect(context.signal).toBeInstanceOf(AbortSignal);
    }
    expect(contexts.map((c) => c.callIds).flat()).toEqual(expect.arrayContaining(['ask-1', 'sum-1']));
  });

  it('without handlers the run declares nothing and the server is refused', async () => {
    const r = await start();
    const { results } = await r.executeBatch(batch(r, [{ callId: 'a', name: py('ask'), arguments: { question: 'q' } }]));
    expect(results[0]).toMatchObject({ status: 'tool_error', error: { code: 'client_refused' } });
  });

  it('P2: a run and its own mcp_probe declare identical capabilities (seen by the server)', async () => {
    const env = await setup();
    fx.adopt(env);
    const initLog = path.join(env.tmp.dir, 'init.log');
    await env.service.write({
      kind: 'mcp',
      reference: 'tools/logged',
      create: true,
      data: { mcpServers: { l: pythonConfig({ extra: ['--log-init', initLog] }) } },
    });
    await env.service.write({ kind: 'agent', reference: 'team/boss', create: true, data: { role: 'manager', mcps: ['tools/logged'] } });
    const run = await NativeRun.start({
      agent: 'team/boss',
      service: env.service,
      policy: policies.autoAllow('*'),
      elicitation: async () => ({ action: 'decline' }),
      sampling: async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: '' } }),
    });
    fx.adopt(env, run);
    const { results } = await run.executeBatch(batch(run, [{ callId: 'p', name: 'mcp_probe', arguments: { reference: 'tools/logged' } }]));
    expect(results[0]?.status).toBe('ok');
    const declared = fs
      .readFileSync(initLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).capabilities);
    expect(declared).toHaveLength(2); // the run's connection, then the probe's
    expect(declared[0]).toEqual({ elicitation: { form: { applyDefaults: true } }, sampling: {} });
    expect(declared[1]).toEqual(declared[0]);
  });
});
