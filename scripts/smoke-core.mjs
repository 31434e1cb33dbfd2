#!/usr/bin/env node
// The core smoke of a runtime (issue 40), run by check-pack from a folder where only the packed
// tarball is installed — no native module: on Node 24 and under Bun. With the runtime's default
// SQLite store (node:sqlite, bun:sqlite): register two servers (the shipped stdio fixture, and a
// kit service over loopback HTTP), probe both, mount both on an agent, run one batch with a valid
// and an invalid call, close, and check that no server process is left. Prints one JSON line.
// Args: [python fixture path] — also registers the standard-library Python server when given.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { executeModelCalls, McpProber, NativeRun, policies, ResourceService } from 'agt-mcp';
import { createToolServer, defineTool, serveHttp } from 'agt-mcp/authoring';
import { SqliteStore, sqliteDriver } from 'agt-mcp/sqlite';
import { fixtureServer } from 'agt-mcp/testing';
import * as v from 'valibot';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-smoke-'));
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
// The children of this process, from /proc (Linux): what a closed run must not leave behind.
const children = () =>
  fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(process.pid);
      } catch {
        return false;
      }
    })
    .map(Number);

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: v.object({ a: v.number(), b: v.number() }),
  handler: ({ a, b }) => ({ sum: a + b }),
});
const http = await serveHttp(() => createToolServer({ name: 'kit', version: '1.0.0', tools: [add] }));
const store = new SqliteStore({ path: path.join(dir, 'agt.db') });
try {
  const service = new ResourceService({ store });
  const servers = { 'smoke/stdio': fixtureServer({ cwd: dir }), 'smoke/http': { url: http.url } };
  if (process.argv[2]) servers['smoke/python'] = { command: 'python3', args: [process.argv[2]], cwd: dir };
  for (const [reference, config] of Object.entries(servers))
    await service.write({ kind: 'mcp', reference, create: true, data: { mcpServers: { s: config } } });
  await service.write({ kind: 'agent', reference: 'smoke/agent', create: true, data: { mcps: Object.keys(servers) } });
  const prober = new McpProber();
  const probes = [];
  for (const reference of Object.keys(servers)) probes.push((await prober.probe({ mcpServers: { s: servers[reference] } })).ok);
  const run = await NativeRun.start({ agent: 'smoke/agent', service, policy: policies.autoAllow('*') });
  const tools = run.tools().map((t) => t.name);
  // Mounted tools are named <category>__<server>__<tool>.
  const stdioAdd = 'smoke__stdio__add';
  const httpAdd = 'smoke__http__add';
  for (const name of [stdioAdd, httpAdd]) if (!tools.includes(name)) throw new Error(`${name} is not among the tools: ${tools.join(', ')}`);
  const result = await executeModelCalls(
    run,
    [
      { callId: 'ok-stdio', name: stdioAdd, arguments: { a: 2, b: 3 } },
      { callId: 'ok-http', name: httpAdd, arguments: { a: 4, b: 5 } },
      { callId: 'bad', name: stdioAdd, arguments: { a: 'two' } },
    ],
    { batchId: 'smoke-1' },
  );
  const spawned = children();
  await run.close();
  const statuses = Object.fromEntries(result.results.map((r) => [r.callId, r.status]));
  const left = spawned.filter(alive);
  console.log(
    JSON.stringify({
      runtime: typeof process.versions.bun === 'string' ? `bun ${process.versions.bun}` : `node ${process.version}`,
      driver: (await sqliteDriver()).name,
      stored: (await store.list('mcp')).length,
      probes,
      tools: tools.length,
      statuses,
      childrenWhileOpen: spawned.length,
      left,
    }),
  );
  if (probes.includes(false) || statuses['ok-stdio'] !== 'ok' || statuses['ok-http'] !== 'ok' || statuses.bad !== 'invalid_arguments')
    process.exitCode = 1;
  if (left.length > 0) process.exitCode = 1;
} finally {
  await store.close();
  await http.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
