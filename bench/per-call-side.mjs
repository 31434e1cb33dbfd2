/**
 * One side of the per-call benchmark (issues 49, 64) in a process of its own:
 * `node bench/per-call-side.mjs <target> <side>`, target py (the Python
 * fixture, 2025), v2 (the SDK v2 server of bench/kit-servers.ts, 2025) or
 * v2new (the same, 2026-07-28); side ours (NativeRun, autoAllow, concurrency
 * 10) or bare (the SDK v2 `Client`). bench/per-call.bench.ts runs it once per
 * side and round: a host runs one of the two, so neither side's garbage, GC
 * pauses or JIT state may land on the other's measure.
 *
 * It starts its server, warms up (PER_CALL_WARMUP single calls, default 2,000,
 * and a tenth as many groups of 10), then times PER_CALL_SEQUENTIAL (3,000)
 * single calls one after the other and PER_CALL_BATCHES (300) groups of 10
 * (one batch of 10, or `Promise.all` of 10 bare calls), and prints one JSON
 * line on stdout: `{one:{wall,cpu}, ten:{wall,cpu}}`, µs per operation, cpu =
 * this process's `process.cpuUsage` (user + system). Any failure: a message
 * on stderr, exit 1. It imports the built package (`npm run build` first;
 * PER_CALL_DIST=<dir> another build's dist). PER_CALL_BARE_SESSION=own
 * starts the bare side's server through `setsid`, in a session of its own as
 * agt-mcp starts every stdio server. Plain JS: no tsx in the client process.
 *
 * Profiling one side (it replaces bench/profile-per-call.mjs; PER_CALL_BATCHES=0
 * skips the groups):
 *   PER_CALL_SEQUENTIAL=20000 PER_CALL_BATCHES=0 node --cpu-prof --cpu-prof-dir=/tmp/prof bench/per-call-side.mjs py ours
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const count = (name, fallback) => Math.max(0, Number(process.env[name] ?? fallback));
const SEQUENTIAL = count('PER_CALL_SEQUENTIAL', 3000);
const BATCHES = count('PER_CALL_BATCHES', 300);
const WARMUP = count('PER_CALL_WARMUP', 2000);
const WARMUP_GROUPS = Math.ceil(WARMUP / 10);

const v2 = { command: process.execPath, args: ['--import', 'tsx', path.join(root, 'bench/kit-servers.ts'), 'bare'], cwd: root };
const TARGETS = {
  py: {
    config: { command: 'python3', args: [path.join(root, 'test/fixtures/mcp_server.py')], cwd: root, protocol: 'legacy' },
    modern: false,
    tool: 'echo',
    args: { message: 'x' },
  },
  v2: { config: { ...v2, protocol: 'legacy' }, modern: false, tool: 'add', args: { a: 1, b: 2 } },
  v2new: { config: { ...v2, protocol: '2026-07-28' }, modern: true, tool: 'add', args: { a: 1, b: 2 } },
};

// The bare SDK v2 Client on its own server: one callTool, and ten in parallel (the SDK loaded only on this side).
async function bare(target) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'bare', version: '1' }, target.modern ? { versionNegotiation: { mode: 'auto' } } : {});
  const { command, args, cwd } = target.config;
  const own = process.env.PER_CALL_BARE_SESSION === 'own';
  const spawned = own ? { command: 'setsid', args: [command, ...args] } : { command, args };
  await client.connect(new StdioClientTransport({ ...spawned, cwd, stderr: 'ignore' }));
  const call = () => client.callTool({ name: target.tool, arguments: target.args });
  return { one: call, ten: () => Promise.all(Array.from({ length: 10 }, call)), close: () => client.close() };
}

// A NativeRun on its own server: a batch of one call, and a batch of ten.
async function ours(target) {
  const built = path.resolve(process.env.PER_CALL_DIST ?? path.join(root, 'dist'), 'index.js');
  if (!fs.existsSync(built)) throw new Error(`bench per-call measures the built package: run npm run build first (no ${built})`);
  const { MemoryStore, NativeRun, policies, ResourceService } = await import(built);
  const service = new ResourceService({ store: new MemoryStore() });
  await service.write({ kind: 'mcp', reference: 'bench/server', create: true, data: { mcpServers: { s: target.config } } });
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: ['bench/server'] } });
  const run = await NativeRun.start({
    agent: 'bench/agent',
    service,
    policy: policies.autoAllow('*'),
    timeouts: { handshakeMs: 60_000 },
    concurrency: 10,
  });
  const name = run.tools().find((t) => t.name.endsWith(`__${target.tool}`))?.name;
  if (name === undefined) {
    await run.close();
    throw new Error(`no ${target.tool} tool`);
  }
  let batchNo = 0;
  const batch = async (size) => {
    batchNo += 1;
    const calls = Array.from({ length: size }, (_, i) => ({ callId: `c${i}`, name, arguments: target.args }));
    const { results } = await run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${batchNo}`, calls });
    if (results.some((r) => r.status !== 'ok')) throw new Error('a call failed');
  };
  return { one: () => batch(1), ten: () => batch(10), close: () => run.close() };
}

// Wall and CPU µs per operation of `op`, `times` times in a row (zeros when it is not run).
async function timed(op, times) {
  if (times === 0) return { wall: 0, cpu: 0 };
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < times; i++) await op();
  const wall = ((performance.now() - t) * 1000) / times;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / times };
}

const [targetName, sideName] = process.argv.slice(2);
const target = TARGETS[targetName];
const open = { ours, bare }[sideName];
if (target === undefined || open === undefined) {
  process.stderr.write(`usage: node bench/per-call-side.mjs <${Object.keys(TARGETS).join('|')}> <ours|bare>\n`);
  process.exit(1);
}

let side;
try {
  side = await open(target);
  for (let i = 0; i < WARMUP; i++) await side.one();
  for (let i = 0; i < WARMUP_GROUPS; i++) await side.ten();
  const one = await timed(side.one, SEQUENTIAL);
  const ten = await timed(side.ten, BATCHES);
  process.stdout.write(`${JSON.stringify({ one, ten })}\n`);
  await side.close();
  process.exit(0);
} catch (error) {
  process.stderr.write(
    `per-call-side ${targetName} ${sideName}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  await side?.close().catch(() => undefined);
  process.exit(1);
}
