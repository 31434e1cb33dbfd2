/**
 * The host quickstart of README.md and docs/quickstart.md, as code CI runs:
 * register a server, mount it, probe it, run an agent step, close.
 * `npx tsx examples/quickstart.ts [store.db]`
 */
import os from 'node:os';
import path from 'node:path';
import { McpProber, NativeRun, policies, ResourceService, runAgentLoop, toolAlias } from 'agt-mcp';
import { SqliteStore } from 'agt-mcp/sqlite';
import { fixtureServer, ScriptedModel } from 'agt-mcp/testing';

const store = new SqliteStore({ path: process.argv[2] ?? path.join(os.tmpdir(), `agt-quickstart-${process.pid}.db`) });
const service = new ResourceService({ store });

await service.write({
  kind: 'mcp',
  reference: 'tools/calc',
  create: true,
  data: { mcpServers: { calc: fixtureServer() } }, // a real stdio server shipped in agt-mcp/testing; any config fits here
});
await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/calc'] } });

const report = await new McpProber({ service }).probe('tools/calc'); // runs the server once
console.log(`probe: ${report.ok ? 'ok' : 'problems'}, ${report.tools.length} tools`);

const run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('tools/calc') });
const model = new ScriptedModel([
  { toolCalls: [{ callId: '1', name: toolAlias('tools/calc', 'add'), arguments: { a: 2, b: 3 } }] },
  { text: 'done' },
]);
const outcome = await runAgentLoop({ run, model, maxSteps: 5 });
const results = outcome.history.flatMap((m) => (m.role === 'tool' ? m.results : []));
console.log(`run: ${outcome.status} in ${outcome.steps} steps; ${results.map((r) => r.status).join(', ')}`);
await run.close();
await store.close();
