/**
 * docs/hosts.md, "Testing without network": the fake clients of the three
 * adapters and the ScriptedModel example, run as written (the block's own
 * text, not a copy) against a real fixture server process.
 */
import { describe, expect, it } from 'vitest';
import { type ModelLike, MemoryStore, NativeRun, policies, ResourceService, runAgentLoop } from '../../src/index.js';
import { fixtureServer } from '../../src/testing/index.js';
import { docBlock, importBlock } from '../support/doc-blocks.js';

async function fixtureRun(): Promise<NativeRun> {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'test/fixture', create: true, data: { mcpServers: { fixture: fixtureServer() } } });
  await service.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['test/fixture'] } });
  return NativeRun.start({ agent: 'team/t', service, policy: policies.autoAllow('*') });
}

describe("B3: the documented fake clients drive the loop, each adapter's own shape", () => {
  it('B3: openAIModel, anthropicModel and aiSdkModel with the fake clients of docs/hosts.md call add once and end with its text', async () => {
    const block = docBlock('docs/hosts.md', 'const chatAnswers');
    const models = await importBlock<Record<'openai' | 'claude' | 'sdk', ModelLike>>(
      'hosts-fakes',
      `${block}\nexport { openai, claude, sdk };\n`,
    );
    for (const name of ['openai', 'claude', 'sdk'] as const) {
      const run = await fixtureRun();
      try {
        const outcome = await runAgentLoop({ run, model: models[name], maxSteps: 4 });
        expect([name, outcome.status, outcome.steps, outcome.text]).toEqual([name, 'completed', 2, '2 + 3 = 5']);
      } finally {
        await run.close();
      }
    }
  });

  it('B4: the documented ScriptedModel corrects a refused call and completes in three steps', async () => {
    const block = docBlock('docs/hosts.md', 'new ScriptedModel');
    const source = block
      .replace(/^declare const run: NativeRun;.*$/m, 'const run = (globalThis as { docsRun?: NativeRun }).docsRun as NativeRun;')
      .replace(/^console\.log\(.*$/m, 'export { outcome, model };');
    const run = await fixtureRun();
    (globalThis as { docsRun?: NativeRun }).docsRun = run;
    try {
      const { outcome, model } = await importBlock<{ outcome: { status: string; steps: number }; model: { inputs: unknown[] } }>(
        'hosts-scripted',
        source,
      );
      expect([outcome.status, outcome.steps, model.inputs.length]).toEqual(['completed', 3, 3]); // as the block's comment says
    } finally {
      delete (globalThis as { docsRun?: NativeRun }).docsRun;
      await run.close();
    }
  });
});
