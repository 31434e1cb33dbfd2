/**
 * One side of the per-call benchmark, alone, for profiling (issue 49): N
 * sequential calls of `echo` through a NativeRun (or, with BARE=1, a bare SDK
 * v2 Client) over stdio, printing wall and CPU µs per call. Measures the
 * built package (`npm run build` first; SRC=<path of another build's
 * dist/index.js> to compare trees). Modes: py (the Python fixture, 2025), v2
 * (the SDK v2 server, 2025), v2new (2026-07-28).
 *
 *   N=20000 node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-per-call.mjs py
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { MemoryStore, NativeRun, policies, ResourceService } = await import(process.env.SRC ?? path.join(root, 'dist/index.js'));
const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
const mode = process.argv[2] ?? 'py';
const config =
  mode === 'py'
    ? { command: 'python3', args: [path.join(root, 'test/fixtures/mcp_server.py')], cwd: root, protocol: 'legacy' }
    : {
        command: process.execPath,
        args: ['--import', 'tsx', path.join(root, 'test/mcp/fixtures/v2-server.ts'), '--stdio'],
        cwd: root,
        protocol: mode === 'v2new' ? '2026-07-28' : 'legacy',
      };
const args = mode === 'py' ? { message: 'x' } : { text: 'x' };
const N = Number(process.env.N ?? 3000);
// Times N calls after 50 warm-up calls; prints wall and CPU µs per call.
async function timed(label, call) {
  for (let i = 0; i < 50; i++) await call();
  const t = performance.now();
  const c = process.cpuUsage();
  for (let i = 0; i < N; i++) await call();
  const u = process.cpuUsage(c);
  const wall = (((performance.now() - t) * 1000) / N).toFixed(0);
  console.log(label, mode, wall, 'µs/call', ((u.user + u.system) / N).toFixed(1), 'cpu µs/call');
}

if (process.env.BARE) {
  const client = new Client({ name: 'bare', version: '1' }, mode === 'v2new' ? { versionNegotiation: { mode: 'auto' } } : {});
  await client.connect(new StdioClientTransport({ command: config.command, args: config.args, cwd: root, stderr: 'ignore' }));
  await timed('bare', () => client.callTool({ name: 'echo', arguments: args }));
  await client.close();
} else {
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'bench/server', create: true, data: { mcpServers: { s: config } } });
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: ['bench/server'] } });
  const run = await NativeRun.start({ agent: 'bench/agent', service, policy: policies.autoAllow('*'), timeouts: { handshakeMs: 60000 } });
  const name = run.tools().find((t) => t.name.endsWith('__echo')).name;
  let n = 0;
  await timed('agt', () =>
    run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${++n}`, calls: [{ callId: 'c', name, arguments: args }] }),
  );
  await run.close();
}
