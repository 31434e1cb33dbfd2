/**
 * A host on OpenAI's Chat Completions: the run's tools go to the model in
 * OpenAI's format, its tool calls through the run's pipeline, the results back
 * as tool messages. The client is scripted here (CI has no network); with the
 * official SDK pass `new OpenAI()` instead. `npx tsx examples/hosts/openai-host.ts`
 */
import { MemoryStore, NativeRun, policies, ResourceService, runAgentLoop, toolAlias } from 'agt-mcp';
import { openAIModel } from 'agt-mcp/openai';
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

// What the Chat Completions API answers: first a tool call, then the final text.
const replies = [
  {
    choices: [
      {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: toolAlias('tools/calc', 'add'), arguments: '{"a":2,"b":3}' } }],
        },
      },
    ],
  },
  { choices: [{ message: { role: 'assistant', content: '2 + 3 = 5' } }] },
];
const client = { chat: { completions: { create: async (_body: unknown) => replies.shift() } } };

const outcome = await runAgentLoop({
  run,
  model: openAIModel({ client, api: 'chat', model: 'gpt-4.1', input: 'What is 2 + 3?' }),
  maxSteps: 4,
});
console.log(`openai: ${outcome.status} in ${outcome.steps} steps: ${outcome.text}`);
await run.close();
