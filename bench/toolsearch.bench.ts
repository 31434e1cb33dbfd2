/**
 * `npm run bench -- toolsearch` (issue 27): ToolIndex against a plain BM25
 * baseline (name + description, split on non-alphanumerics, no stemming, no
 * synonyms, no schema) in the same run, over the tools/list of 15 real MCP
 * servers from npm (bench/toolsearch/catalog.json, 172 tools) and 70
 * model-style queries written by hand with the tools that answer them
 * (bench/toolsearch/queries.json). Targets: ToolIndex beats the baseline on
 * recall@5 and on the first hit; an index of 1,000 tools builds in ≤ 20 ms;
 * a search over 1,000 tools takes ≤ 1 ms (median).
 */
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../src/index.js';
import type { ModelTool } from '../src/runtime/model-tools.js';
import { ToolIndex } from '../src/toolsearch/tool-index.js';
import { estimateTokens } from '../src/toolsearch/tokens.js';
import { type BenchReport, formatNs, median } from './harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
interface Catalog {
  servers: { server: string; tools: { name: string; description?: string; inputSchema: object }[] }[];
}
interface Queries {
  queries: { query: string; expected: string[] }[];
}

const alias = (qualified: string) => {
  const [server, tool] = qualified.split('/') as [string, string];
  return toolAlias(`servers/${server}`, tool);
};

/** The catalog's tools as a run would show them (aliases `servers__<server>__<tool>`). */
export function catalogTools(): ModelTool[] {
  const catalog = JSON.parse(fs.readFileSync(path.join(here, 'toolsearch/catalog.json'), 'utf8')) as Catalog;
  return catalog.servers.flatMap((s) =>
    s.tools.map((t) => ({ name: alias(`${s.server}/${t.name}`), description: t.description ?? '', inputSchema: t.inputSchema })),
  );
}

/** Plain BM25 over name + description: the baseline. */
class Bm25 {
  readonly #docs: Map<string, number>[];
  readonly #lengths: number[];
  readonly #df = new Map<string, number>();
  readonly #names: string[];
  readonly #avg: number;
  constructor(tools: ModelTool[]) {
    this.#names = tools.map((t) => t.name);
    this.#docs = tools.map((t) => {
      const tf = new Map<string, number>();
      for (const w of split(`${t.name} ${t.description ?? ''}`)) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.#df.set(w, (this.#df.get(w) ?? 0) + 1);
      return tf;
    });
    this.#lengths = this.#docs.map((d) => [...d.values()].reduce((a, b) => a + b, 0));
    this.#avg = this.#lengths.reduce((a, b) => a + b, 0) / this.#lengths.length;
  }
  search(query: string, limit: number): string[] {
    const n = this.#docs.length;
    const scored = this.#docs.map((doc, i) => {
      let score = 0;
      for (const w of new Set(split(query))) {
        const tf = doc.get(w) ?? 0;
        if (tf === 0) continue;
        const df = this.#df.get(w) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * this.#lengths[i]!) / this.#avg));
      }
      return { name: this.#names[i]!, score };
    });
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
      .slice(0, limit)
      .map((s) => s.name);
  }
}
const split = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');

function quality(search: (query: string) => string[], queries: Queries['queries']) {
  let recall5 = 0;
  let first = 0;
  for (const q of queries) {
    const expected = new Set(q.expected.map(alias));
    const hits = search(q.query);
    if (hits.some((h) => expected.has(h))) recall5 += 1;
    if (hits[0] !== undefined && expected.has(hits[0])) first += 1;
  }
  return { recall5: recall5 / queries.length, first: first / queries.length };
}

/** Runs the tool-search benchmark. */
export async function runToolSearchBench(): Promise<BenchReport> {
  const targets: BenchReport['targets'] = [];
  const tools = catalogTools();
  const { queries } = JSON.parse(fs.readFileSync(path.join(here, 'toolsearch/queries.json'), 'utf8')) as Queries;
  const index = new ToolIndex(tools);
  const baseline = new Bm25(tools);
  const ours = quality((q) => index.search(q, { limit: 5 }).map((h) => h.name), queries);
  const base = quality((q) => baseline.search(q, 5), queries);
  targets.push({
    name: 'ToolIndex beats plain BM25 on recall@5',
    ok: ours.recall5 > base.recall5,
    detail: `${pct(ours.recall5)} vs ${pct(base.recall5)}`,
  });
  targets.push({
    name: 'ToolIndex beats plain BM25 on the first hit',
    ok: ours.first > base.first,
    detail: `${pct(ours.first)} vs ${pct(base.first)}`,
  });

  // 1,000 tools: the catalog repeated under other mounts.
  const thousand = Array.from({ length: 1000 }, (_, i) => {
    const t = tools[i % tools.length]!;
    return { ...t, name: t.name.replace('servers__', `servers${Math.floor(i / tools.length)}__`) };
  });
  const builds: number[] = [];
  const gc = collector();
  for (let r = 0; r < 15; r++) {
    gc(); // each build is measured on its own, not with the collection of the builds before it
    const started = performance.now();
    new ToolIndex(thousand);
    builds.push(performance.now() - started);
  }
  const big = new ToolIndex(thousand);
  const searches: number[] = [];
  for (let r = 0; r < 5; r++)
    for (const q of queries) {
      const started = performance.now();
      big.search(q.query, { limit: 5 });
      searches.push((performance.now() - started) * 1e6);
    }
  const buildMs = median(builds);
  const searchNs = median(searches);
  targets.push({ name: 'index build for 1,000 tools ≤ 20 ms', ok: buildMs <= 20, detail: `${buildMs.toFixed(2)} ms` });
  targets.push({ name: 'search over 1,000 tools ≤ 1 ms (median)', ok: searchNs <= 1e6, detail: formatNs(searchNs) });
  const run = await runRows(targets);
  const markdown = [
    `${tools.length} tools of ${new Set(tools.map((t) => t.name.split('__')[1])).size} servers, ${queries.length} queries; estimated definitions: ${estimateTokens(tools).toLocaleString('en')} tokens.`,
    '',
    '| ranking | recall@5 | first hit |',
    '| --- | --- | --- |',
    `| ToolIndex | ${pct(ours.recall5)} | ${pct(ours.first)} |`,
    `| plain BM25 (name + description) | ${pct(base.recall5)} | ${pct(base.first)} |`,
    '',
    '| 1,000 tools | median |',
    '| --- | --- |',
    `| build the index | ${buildMs.toFixed(2)} ms |`,
    `| one search (limit 5) | ${formatNs(searchNs)} |`,
    '',
    ...run,
  ].join('\n');
  return { title: 'Tool search (issue 27)', markdown, targets };
}

// The garbage collector as a function (Node exposes it to a new context once the flag is set).
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/**
 * A real run over the catalog: 15 mounts, each a Python fixture process serving one server's tools/list as
 * captured. The first step's tools against every definition, and a search + load + call round trip in batches.
 */
async function runRows(targets: BenchReport['targets']): Promise<string[]> {
  const catalog = path.join(here, 'toolsearch/catalog.json');
  const server = path.join(here, '..', 'test/fixtures/mcp_server.py');
  const { servers } = JSON.parse(fs.readFileSync(catalog, 'utf8')) as Catalog;
  const service = new ResourceService({ store: new MemoryStore() });
  const mounts = servers.map((s) => `servers/${s.server}`);
  for (const s of servers) {
    const config = { command: 'python3', args: [server, '--catalog', catalog, '--catalog-server', s.server], cwd: here };
    await service.write({ kind: 'mcp', reference: `servers/${s.server}`, create: true, data: { mcpServers: { [s.server]: config } } });
  }
  await service.write({ kind: 'agent', reference: 'bench/agent', create: true, data: { mcps: mounts } });
  const run = await NativeRun.start({ agent: 'bench/agent', service, policy: policies.autoAllow('*') });
  try {
    const full = estimateTokens(run.tools({ includeDeferred: true }));
    const shown = run.tools();
    const first = estimateTokens(shown);
    let batches = 0;
    const step = async (calls: { callId: string; name: string; arguments: Record<string, unknown> }[]) => {
      batches += 1;
      return run.executeBatch({ runId: run.id, agent: run.agent, batchId: `b${batches}`, calls });
    };
    const found = await step([{ callId: 's', name: 'tool_search', arguments: { query: 'create a github issue', limit: 3 } }]);
    const target = toolAlias('servers/github', 'create_issue');
    const loaded = found.toolsLoaded?.loaded.includes(target) === true;
    const called = await step([{ callId: 'c', name: target, arguments: { owner: 'o', repo: 'r', title: 't' } }]);
    const ok = loaded && called.results[0]?.status === 'ok';
    const share = first / full;
    targets.push({
      name: `a run over ${servers.length} servers: first step ≤ 10 % of the full definitions' estimated tokens`,
      ok: share <= 0.1,
      detail: `${(share * 100).toFixed(2)} %`,
    });
    targets.push({
      name: 'search + load + call adds exactly one batch',
      ok: ok && batches === 2,
      detail: `${batches} batches, call ${ok ? 'ok' : 'failed'}`,
    });
    return [
      `A run over ${servers.length} mounts (each a Python fixture serving one server's captured tools/list): ${run.tools({ includeDeferred: true }).length} tools.`,
      '',
      '| first step | estimated tokens |',
      '| --- | --- |',
      `| every definition (tool search off) | ${full.toLocaleString('en')} |`,
      `| with tool search (auto): ${shown.map((t) => t.name).join(', ')} | ${first.toLocaleString('en')} (${(share * 100).toFixed(2)} %) |`,
      '',
      `Search "create a github issue" → loaded at the boundary → called: ${batches} batches (1 without search).`,
    ];
  } finally {
    await run.close();
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
