/**
 * The authoring kit's cost per call (issue 39), `npm run bench -- kit`: the
 * same tool served by a kit server and by the bare SDK v2 `McpServer`
 * (bench/kit-servers.ts), each a real process on stdio, called by the SDK's
 * own client pinned to each era. Kit and bare alternate round by round, so a
 * drift of the machine hits both alike; medians per call. Target: the kit ≤
 * 1.15× bare in each era.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = 15;
const CALLS = 100;
type Era = 'legacy' | 'modern';
type Server = 'kit' | 'bare';

async function open(server: Server, era: Era): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '1' },
    { versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(root, 'bench/kit-servers.ts'), server],
      cwd: root,
    }),
  );
  return client;
}

async function perCall(client: Client, calls: number): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < calls; i++) {
    const result = await client.callTool({ name: 'add', arguments: { a: i, b: 1 } });
    if ((result.structuredContent as { sum?: number } | undefined)?.sum !== i + 1) throw new Error('a wrong sum');
  }
  return (performance.now() - t) / calls;
}

/** Runs the kit benchmark. */
export async function runKitBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const rows: string[] = [];
  for (const era of ['legacy', 'modern'] as const) {
    const clients = { kit: await open('kit', era), bare: await open('bare', era) };
    try {
      for (const c of Object.values(clients)) await perCall(c, 200); // warm-up: JIT, first schema compile
      const samples: Record<Server, number[]> = { kit: [], bare: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const server of round % 2 === 0 ? (['kit', 'bare'] as const) : (['bare', 'kit'] as const))
          samples[server].push(await perCall(clients[server], CALLS));
      }
      const [kit, bare] = [median(samples.kit), median(samples.bare)];
      const ratio = kit / bare;
      const label = era === 'legacy' ? '2025-11-25' : '2026-07-28';
      rows.push(`| ${label} | ${kit.toFixed(3)} ms | ${bare.toFixed(3)} ms | ${ratio.toFixed(2)}× |`);
      targets.push({
        name: `kit per call (${label}, stdio) ≤ 1.15× a bare SDK v2 McpServer`,
        ok: ratio <= 1.15,
        detail: `${ratio.toFixed(2)}×`,
      });
    } finally {
      await Promise.all(Object.values(clients).map((c) => c.close()));
    }
  }
  return {
    title: 'The authoring kit per call (issue 39): a kit server against a bare SDK v2 McpServer',
    targets,
    markdown: [
      `| era (stdio, SDK v2 client pinned) | kit server | bare McpServer (zod) | kit / bare |`,
      '| --- | --- | --- | --- |',
      ...rows,
      '',
      `Per call, median of ${ROUNDS} rounds of ${CALLS} calls, kit and bare alternating.`,
    ].join('\n'),
  };
}
