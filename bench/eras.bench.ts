/**
 * Protocol eras (issue 36), `npm run bench -- eras`, against one SDK v2 server
 * that serves both eras (test/mcp/fixtures/v2-server.ts), over loopback HTTP
 * and over stdio:
 * - connect + tools/list + the first call, for the modern era with a
 *   remembered verdict (no discovery), the modern era with discovery, and the
 *   legacy era; target (HTTP): modern with a verdict ≤ 0.8× legacy;
 * - per call on an open modern connection against a bare SDK v2 `Client`
 *   calling the same tool; target ≤ 1.2×;
 * - NativeRun.start of an agent with 8 modern mounts warm from an McpPool;
 *   target ≤ 2 ms median.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connectMcp, McpPool, type McpServerConfig, MemoryStore, NativeRun, policies, ResourceService } from '../src/index.js';
import { type EraVerdict } from '../src/adapters.js';
import { startV2Http } from '../test/mcp/fixtures/v2-server.js';
import { type BenchReport, median, medianStartMs } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stdioConfig = {
  command: process.execPath,
  args: ['--import', 'tsx', path.join(root, 'test/mcp/fixtures/v2-server.ts'), '--stdio'],
  cwd: root,
};
const ms = (n: number) => `${n.toFixed(2)} ms`;
// HTTP rounds are cheap: enough of them that one busy moment of the machine moves no median.
const HTTP_ROUNDS = 41;

type Way = 'modern, remembered verdict' | 'modern, discovery' | 'legacy';
const WAYS: Way[] = ['modern, remembered verdict', 'modern, discovery', 'legacy'];

// connect + list + first call, in each way in turn (so a drift of the machine hits all alike); medians.
async function firstResult(config: McpServerConfig, verdict: EraVerdict, rounds: number, warmup = 0): Promise<Record<Way, number>> {
  const samples: Record<Way, number[]> = { 'modern, remembered verdict': [], 'modern, discovery': [], legacy: [] };
  for (let r = -warmup; r < rounds; r++) {
    for (const way of WAYS) {
      const t = performance.now();
      const connection = await connectMcp(way === 'legacy' ? { ...config, protocol: 'legacy' } : config, {
        ...(way === 'modern, remembered verdict' ? { verdict } : {}),
        timeouts: { handshakeMs: 30_000 },
      });
      await connection.listTools();
      await connection.callTool('echo', { text: 'x' });
      if (r >= 0) samples[way].push(performance.now() - t); // warm-up rounds are not counted
      await connection.close();
    }
  }
  return {
    'modern, remembered verdict': median(samples['modern, remembered verdict']),
    'modern, discovery': median(samples['modern, discovery']),
    legacy: median(samples.legacy),
  };
}

/** Runs the era benchmarks. */
export async function runErasBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const server = await startV2Http({ legacy: 'stateless' });
  try {
    const probe = await connectMcp({ url: server.url });
    const verdict = probe.verdict;
    await probe.close();
    const http = await firstResult({ url: server.url }, verdict, HTTP_ROUNDS, 3);
    const stdioProbe = await connectMcp(stdioConfig, { timeouts: { handshakeMs: 30_000 } });
    const stdioVerdict = stdioProbe.verdict;
    await stdioProbe.close();
    const stdio = await firstResult(stdioConfig, stdioVerdict, 5);
    const httpRatio = http['modern, remembered verdict'] / http.legacy;
    targets.push({
      name: 'HTTP first result: modern with a remembered verdict ≤ 0.8× legacy',
      ok: httpRatio <= 0.8,
      detail: `${httpRatio.toFixed(2)}×`,
    });

    // Per call: our connection vs a bare v2 Client, both modern on the same server, alternating rounds.
    const ours = await connectMcp({ url: server.url }, { verdict });
    const bare = new Client({ name: 'bare', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await bare.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const oursMs: number[] = [];
    const bareMs: number[] = [];
    for (let round = 0; round < 11; round++) {
      let t = performance.now();
      for (let i = 0; i < 50; i++) await ours.callTool('echo', { text: 'x' });
      oursMs.push((performance.now() - t) / 50);
      t = performance.now();
      for (let i = 0; i < 50; i++) await bare.callTool({ name: 'echo', arguments: { text: 'x' } });
      bareMs.push((performance.now() - t) / 50);
    }
    await ours.close();
    await bare.close();
    const callRatio = median(oursMs) / median(bareMs);
    targets.push({ name: 'per call (modern, HTTP) ≤ 1.2× a bare SDK v2 Client', ok: callRatio <= 1.2, detail: `${callRatio.toFixed(2)}×` });

    // A pooled warm start of 8 modern mounts: a server that lets its list be reused for 5 minutes, and one that says 0 (E3).
    const warmStart = async (url: string) => {
      const service = new ResourceService({ store: new MemoryStore() });
      const refs = Array.from({ length: 8 }, (_, i) => `bench/v2-${i}`);
      for (const reference of refs)
        await service.write({ kind: 'mcp', reference, create: true, data: { mcpServers: { v2: { url: `${url}?m=${reference}` } } } });
      await service.write({ kind: 'agent', reference: 'bench/eras', create: true, data: { mcps: refs } });
      const policy = policies.autoAllow('*');
      await using pool = new McpPool({ service });
      await (await NativeRun.start({ agent: 'bench/eras', service, policy, pool, scope: 'bench' })).close();
      return await medianStartMs(25, () => NativeRun.start({ agent: 'bench/eras', service, policy, pool, scope: 'bench' }));
    };
    const cached = await startV2Http({ legacy: 'reject', toolsTtlMs: 300_000 });
    const warm = await warmStart(cached.url).finally(() => cached.close());
    const warmTtl0 = await warmStart(server.url);
    targets.push({ name: 'start with 8 warm pooled modern mounts (list ttl 5 min) ≤ 2 ms median', ok: warm <= 2, detail: ms(warm) });

    const row = (way: Way) => `| ${way} | ${ms(http[way])} | ${ms(stdio[way])} |`;
    return {
      title: 'Protocol eras (issue 36): one server of both eras, SDK v2',
      targets,
      markdown: [
        `| connect + tools/list + first call (median) | HTTP, of ${HTTP_ROUNDS} (after 3 warm-up rounds) | stdio, of 5 |`,
        '| --- | --- | --- |',
        ...WAYS.map(row),
        '',
        `HTTP modern with a remembered verdict / legacy: ${httpRatio.toFixed(2)}× (stdio: ${(stdio['modern, remembered verdict'] / stdio.legacy).toFixed(2)}×; stdio times are dominated by starting the server process).`,
        '',
        '| per call on an open modern connection (median of 11 rounds of 50) | time |',
        '| --- | --- |',
        `| connectMcp's connection | ${ms(median(oursMs))} |`,
        `| bare SDK v2 Client | ${ms(median(bareMs))} |`,
        '',
        `Ratio: ${callRatio.toFixed(2)}×.`,
        '',
        '| NativeRun.start, 8 warm pooled modern mounts (median of 25) | time |',
        '| --- | --- |',
        `| the server lets its tool list be reused 5 min (\`ttlMs: 300000\`) | ${ms(warm)} |`,
        `| the server says \`ttlMs: 0\` (the SDK server's default): every start lists each mount again (E3) | ${ms(warmTtl0)} |`,
      ].join('\n'),
    };
  } finally {
    await server.close();
  }
}
