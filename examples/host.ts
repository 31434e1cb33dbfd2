/**
 * A host in 20 lines (the README's first example): `npx tsx examples/host.ts`.
 * Registers a real MCP server (the fixture shipped in agt-mcp/testing), mounts
 * it on an agent, and runs one model step through the strict pipeline with the
 * OpenAI adapter. The model's answer is canned here; in a host it comes from
 * `openai.chat.completions.create({ model, messages, tools })`.
 */
import { executeModelCalls, MemoryStore, NativeRun, policies, ResourceService } from 'agt-mcp';
import { fromOpenAIToolCalls, toOpenAITools, toOpenAIToolMessages } from 'agt-mcp/openai';
import { fixtureServer } from 'agt-mcp/testing';

const service = new ResourceService({ store: new MemoryStore() });
await service.write({ kind: 'mcp', reference: 'tools/fixture', create: true, data: { mcpServers: { fixture: fixtureServer() } } });
await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/fixture'] } });
await using run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*') });

const tools = toOpenAITools(run.tools(), { api: 'chat' }); // → tools of chat.completions.create
const add = tools.find((t) => t.function.name.endsWith('add'))?.function.name as string;
const message = {
  role: 'assistant',
  tool_calls: [{ id: 'call_1', type: 'function', function: { name: add, arguments: '{"a":2,"b":3}' } }],
};
const result = await executeModelCalls(run, fromOpenAIToolCalls(message, { tools: run.tools() }), { batchId: 'step-1' });
console.log(JSON.stringify(toOpenAIToolMessages(result, { api: 'chat' }))); // → the next request's messages
