/**
 * A host on Anthropic's Messages API: tools with input_schema, tool_use blocks
 * through the run's pipeline, tool_result blocks back. The client is scripted
 * here (CI has no network); with the official SDK pass `new Anthropic()`.
 * `npx tsx examples/hosts/anthropic-host.ts`
 */
import { MemoryStore, NativeRun, policies, ResourceService, runAgentLoop, toolAlias } from 'agt-mcp';
import { anthropicModel } from 'agt-mcp/anthropic';
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

// What the Messages API answers: a tool_use (with an argument error the model then fixes), then the text.
const replies = [
  { content: [{ type: 'tool_use', id: 'toolu_1', name: toolAlias('tools/calc', 'add'), input: { a: 2 } }] },
  { content: [{ type: 'tool_use', id: 'toolu_2', name: toolAlias('tools/calc', 'add'), input: { a: 2, b: 3 } }] },
  { content: [{ type: 'text', text: '2 + 3 = 5' }] },
];
const client = { messages: { create: async (_body: unknown) => replies.shift() } };

const outcome = await runAgentLoop({
  run,
  model: anthropicModel({ client, model: 'claude-sonnet-4-5', maxTokens: 1024, input: 'What is 2 + 3?' }),
  maxSteps: 4,
});
const statuses = outcome.history.flatMap((m) => (m.role === 'tool' ? m.results.map((r) => r.status) : []));
console.log(`anthropic: ${outcome.status} in ${outcome.steps} steps (${statuses.join(', ')}): ${outcome.text}`);
await run.close();
