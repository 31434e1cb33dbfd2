/**
 * `npm run demo`: the product's main job on its embedded default (SQLite).
 *
 * Registers the tickets example server and the standard-library Python
 * server in a temporary SQLite store, tests and probes them, mounts the
 * tickets server on an agent, and runs a scripted model through the strict
 * batch pipeline: one invalid call corrected, one call denied by the human
 * policy, and a self-mount that refreshes the tools at the batch boundary.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpProber, NativeRun, policies, ResourceService, runAgentLoop, toolAlias, type ToolResult } from 'agt-mcp';
import { SqliteStore } from 'agt-mcp/sqlite';
import { ScriptedModel } from 'agt-mcp/testing';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-demo-'));
const store = new SqliteStore({ path: path.join(dir, 'agt.db') });
const service = new ResourceService({ store });
const say = (text: string) => console.log(text);
const brief = (r: ToolResult) =>
  r.status === 'ok' ? `ok ${JSON.stringify(r.structuredContent ?? r.content)}` : `${r.status}: ${r.error.message}`;

try {
  say(`registry: ${path.join(dir, 'agt.db')}\n`);
  // TSX_TSCONFIG_PATH lets the server resolve agt-mcp/authoring from the sources, so the demo needs no build.
  const tickets = {
    command: process.execPath,
    args: ['--import', 'tsx', 'server.ts'],
    cwd: path.join(root, 'examples/tickets-server'),
    env: { TSX_TSCONFIG_PATH: path.join(root, 'tsconfig.json') },
  };
  await service.write({ kind: 'mcp', reference: 'demo/tickets', create: true, data: { mcpServers: { tickets } } });
  await service.write({
    kind: 'mcp',
    reference: 'demo/calc',
    create: true,
    data: { mcpServers: { calc: { command: 'python3', args: ['mcp_server.py'], cwd: path.join(root, 'test/fixtures') } } },
  });
  const prober = new McpProber({ service });
  for (const reference of ['demo/tickets', 'demo/calc']) {
    const test = await service.test({ kind: 'mcp', reference });
    const probe = await prober.probe(reference);
    say(
      `${reference}: static test ${test.ok ? 'ok' : 'FAILED'}; probe ${probe.ok ? 'ok' : 'FAILED'} — ${probe.server.name}, ${probe.tools.length} tools (${probe.tools.map((t) => t.name).join(', ')}), ${(probe.timings.spawnMs + probe.timings.initializeMs + probe.timings.listMs).toFixed(0)} ms`,
    );
  }

  await service.write({
    kind: 'agent',
    reference: 'demo/assistant',
    create: true,
    data: { name: 'Assistant', capabilities: ['resource_management'], mcps: ['demo/tickets'], settings: { model: 'scripted' } },
  });
  const asked: string[] = [];
  const run = await NativeRun.start({
    agent: 'demo/assistant',
    service,
    policy: policies.chain(
      policies.autoAllow((request) => request.remoteTool !== 'close_ticket'),
      policies.human(async (request) => {
        asked.push(request.tool);
        return false;
      }), // the "human" says no to closing tickets
    ),
  });
  const t = (tool: string) => toolAlias('demo/tickets', tool);
  const add = toolAlias('demo/calc', 'add');
  say(`\nrun ${run.id.slice(0, 8)}: ${run.tools().length} tools visible to the model\n`);

  const model = new ScriptedModel([
    {
      toolCalls: [
        { callId: 'c1', name: t('create_ticket'), arguments: '{"title":"Export is broken","priority":"urgent","assignee":"alice"}' },
      ],
    },
    {
      toolCalls: [
        { callId: 'c2', name: t('create_ticket'), arguments: { title: 'Export is broken', priority: 'high', assignee: 'alice' } },
        { callId: 'c3', name: t('close_ticket'), arguments: { id: 1, resolution: 'fixed' } },
      ],
    },
    {
      toolCalls: [
        { callId: 'c4', name: 'resource_write', arguments: { kind: 'agent', reference: 'demo/assistant', add: { mcps: ['demo/calc'] } } },
      ],
    },
    { toolCalls: [{ callId: 'c5', name: add, arguments: { a: 19, b: 23 } }] },
    { text: 'Ticket 3 is open for alice; closing ticket 1 was not approved; 19 + 23 = 42.' },
  ]);
  const outcome = await runAgentLoop({ run, model, maxSteps: 8 });
  let step = 0;
  for (const message of outcome.history) {
    if (message.role === 'assistant' && message.toolCalls)
      say(`step ${++step}  model calls ${message.toolCalls.map((c) => c.name).join(', ')}`);
    if (message.role === 'tool') for (const r of message.results) say(`        ${r.callId} → ${brief(r)}`);
    if (message.role === 'system') say(`        refresh → ${message.text}`);
    if (message.role === 'assistant' && message.text) say(`step ${++step}  model answers: ${message.text}`);
  }
  say(`\n${outcome.status} in ${outcome.steps} steps; the human reviewer was asked about: ${asked.join(', ') || 'nothing'}`);
  say(
    `fingerprint ${run.snapshot.fingerprint.slice(0, 16)}…, mounts ${run.snapshot.mounts.map((m) => `${m.reference}@${m.revision}`).join(', ')}`,
  );
  await run.close();
} finally {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
