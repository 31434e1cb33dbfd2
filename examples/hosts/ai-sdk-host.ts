/**
 * A host on the Vercel AI SDK: generateText runs its own loop with the run's
 * tools; every execute goes through the run's pipeline (one batch per model
 * step). The model is the AI SDK's own mock here (CI has no network); use any
 * provider's model instead. `npx tsx examples/hosts/ai-sdk-host.ts`
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from 'agt-mcp';
import { aiSdkTools } from 'agt-mcp/ai-sdk';
import { fixtureServer } from 'agt-mcp/testing';

const service = new ResourceService({ store: new MemoryStore() });
await service.write({
  kind: 'mcp',
  reference: 'tools/calc',
  create: true,
  data: { mcpServers: { calc: fixtureServer() } }, // a real stdio server shipped in agt-mcp/testing
});
await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/calc'] } });
const run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow({ readOnly: true, mounts: ['tools/calc'] }) });

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const steps = [
  [{ type: 'tool-call', toolCallId: 'c1', toolName: toolAlias('tools/calc', 'add'), input: '{"a":2,"b":3}' }],
  [{ type: 'text', text: '2 + 3 = 5' }],
];
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    const content = steps.shift() ?? [];
    return {
      content,
      finishReason: { unified: content[0]?.type === 'tool-call' ? 'tool-calls' : 'stop', raw: undefined },
      usage,
      warnings: [],
    } as never;
  },
});

const result = await generateText({ model, prompt: 'What is 2 + 3?', tools: aiSdkTools(run), stopWhen: stepCountIs(4) });
console.log(`ai-sdk: ${result.steps.length} steps: ${result.text}`);
await run.close();
