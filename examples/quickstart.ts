/**
 * The host quickstart of README.md and docs/quickstart.md, as code CI runs:
 * register a server, mount it, probe it, run an agent step, close. Safe to
 * run again on the same store (what is there is updated, not created twice).
 * `npx tsx examples/quickstart.ts [store.db]`
 */
import os from 'node:os';
import path from 'node:path';
import { isAgtError, McpProber, NativeRun, policies, ResourceService, runAgentLoop, toolAlias, type WriteInput } from 'agt-mcp';
import { SqliteStore } from 'agt-mcp/sqlite';
import { fixtureServer, ScriptedModel } from 'agt-mcp/testing';

const store = new SqliteStore({ path: process.argv[2] ?? path.join(os.tmpdir(), `agt-quickstart-${process.pid}.db`) });
const service = new ResourceService({ store });

// Create, or update what an earlier run of this script left (create: false) — run it twice, it still works.
async function save(input: WriteInput) {
  try {
    return await service.write({ ...input, create: true });
  } catch (error) {
    if (isAgtError(error) && error.code === 'already_exists') return service.write({ ...input, create: false });
    throw error;
  }
}

// A real stdio server shipped in agt-mcp/testing; any server config fits here.
await save({ kind: 'mcp', reference: 'tools/calc', data: { mcpServers: { calc: fixtureServer() } } });
await save({ kind: 'agent', reference: 'team/alice', data: { mcps: ['tools/calc'] } });

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
