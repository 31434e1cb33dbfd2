/**
 * ToolIndex: lexical search over a run's tools, for large tool sets (a model
 * sees a few tools and `tool_search`, and loads what it finds). Ranking is
 * BM25F over the fields of each tool — its name (split on `_`, `-`, `.`, `/`
 * and camel case), its mount, its description, and its inputSchema's property
 * names and descriptions — with stemming and small groups of synonyms for the
 * words models use for the same action. Deterministic, in memory: no network,
 * no model. Schemas are server data: read to a bounded depth and size.
 */
import { DEFAULT_TOOL_SEARCH_HITS, MAX_SCHEMA_PROPERTIES, MAX_TOOL_FIELD_CHARS, MAX_TOOL_SEARCH_HITS } from '../bounds.js';
import { isPlainObject } from '../json.js';

/** The name of the framework tool that searches deferred tools (framework/search-tool.ts). */
export const TOOL_SEARCH = 'tool_search';
import type { SearchableTool } from './tokens.js';
import { synonyms, words } from './words.js';

/** One search hit: the tool's name and its score (higher is better). */
export interface ToolHit {
  name: string;
  score: number;
}

type Field = 'name' | 'mount' | 'description' | 'params' | 'paramText';

// How much a word counts in each field, and how BM25 normalises the field's length.
const WEIGHTS: Record<Field, number> = { name: 3, mount: 1, description: 1, params: 1.5, paramText: 0.5 };
const FIELDS = Object.keys(WEIGHTS) as Field[];
const K1 = 1.2;
const B = 0.75;
const SYNONYM_WEIGHT = 0.4;
// Ranking tuning, like the weights above: property names deeper than this add little to a tool's text.
const MAX_SCHEMA_DEPTH = 3;

/** The tools a word occurs in, and its length-normalised, field-weighted frequency in each (BM25F): parallel lists, no object per entry. */
interface Postings {
  docs: number[];
  tfs: number[];
}

/** A search index over tools; build once per tool list (about 10 µs a tool), search in well under a millisecond. */
export class ToolIndex {
  readonly #names: string[];
  readonly #nameWords: string[][];
  readonly #postings = new Map<string, Postings>();

  /** Indexes `tools` (name, description, inputSchema, as `run.tools()` gives them; a run's alias gives the mount). */
  constructor(tools: readonly SearchableTool[]) {
    this.#names = tools.map((t) => t.name);
    const docs = tools.map(fieldsOf);
    this.#nameWords = docs.map((d) => d.name);
    const average = Object.fromEntries(
      FIELDS.map((f) => [f, docs.reduce((sum, d) => sum + d[f].length, 0) / Math.max(1, docs.length) || 1]),
    ) as Record<Field, number>;
    const weighted = new Map<string, number>(); // reused: one map for all tools
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      weighted.clear();
      for (const field of FIELDS) {
        const add = WEIGHTS[field] / (1 - B + (B * doc[field].length) / average[field]);
        for (const word of doc[field]) weighted.set(word, (weighted.get(word) ?? 0) + add);
      }
      for (const [word, tf] of weighted) {
        let list = this.#postings.get(word);
        if (list === undefined) this.#postings.set(word, (list = { docs: [], tfs: [] }));
        list.docs.push(i);
        list.tfs.push(tf);
      }
    }
  }

  /** The number of tools indexed. */
  get size(): number {
    return this.#names.length;
  }

  /** The best tools for `query`, best first (ties by name); at most `limit` (default 5), only tools that match. */
  search(query: string, options: { limit?: number } = {}): ToolHit[] {
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_TOOL_SEARCH_HITS, MAX_TOOL_SEARCH_HITS));
    const asked = [...new Set(words(query))];
    if (asked.length === 0) return [];
    const terms = new Map<string, number>(asked.map((w) => [w, 1]));
    for (const word of asked) for (const other of synonyms(word)) if (!terms.has(other)) terms.set(other, SYNONYM_WEIGHT);
    const scores = new Map<number, number>();
    const n = this.#names.length;
    for (const [term, weight] of terms) {
      const list = this.#postings.get(term);
      if (list === undefined) continue;
      const df = list.docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let j = 0; j < df; j++) {
        const doc = list.docs[j]!;
        const tf = list.tfs[j]!;
        scores.set(doc, (scores.get(doc) ?? 0) + (weight * idf * tf * (K1 + 1)) / (tf + K1));
      }
    }
    const hits: ToolHit[] = [];
    for (const [doc, base] of scores) {
      // Every word of the query in the tool's name: the name says what the model asked for.
      const named = asked.filter((w) => this.#nameWords[doc]!.includes(w)).length;
      const score = base * (1 + (0.5 * named) / asked.length);
      hits.push({ name: this.#names[doc]!, score: Math.round(score * 1000) / 1000 });
    }
    return hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, limit);
  }
}

// The words of each field of one tool.
function fieldsOf(tool: SearchableTool): Record<Field, string[]> {
  // A run's alias is `category__name__tool`: the mount, then the server's own tool name.
  const cut = tool.name.lastIndexOf('__');
  const mount = cut > 0 ? tool.name.slice(0, cut) : '';
  const own = cut > 0 ? tool.name.slice(cut + 2) : tool.name;
  const params: string[] = [];
  const paramText: string[] = [];
  collectProperties(tool.inputSchema, 0, { count: 0 }, params, paramText);
  return {
    name: words(own),
    mount: words(mount),
    description: words(tool.description ?? ''),
    params: params.length === 0 ? [] : words(params.join(' ')),
    paramText: words(paramText.join(' ').slice(0, MAX_TOOL_FIELD_CHARS)),
  };
}

// Property names and descriptions of a schema, to depth 3 and 200 properties (server data: bounded before recursion).
function collectProperties(schema: unknown, depth: number, seen: { count: number }, names: string[], texts: string[]): void {
  if (!isPlainObject(schema) || depth > MAX_SCHEMA_DEPTH) return;
  const properties = schema.properties;
  if (isPlainObject(properties)) {
    for (const [name, sub] of Object.entries(properties)) {
      if (seen.count++ >= MAX_SCHEMA_PROPERTIES) return;
      names.push(name);
      if (isPlainObject(sub) && typeof sub.description === 'string') texts.push(sub.description.slice(0, 300));
      collectProperties(sub, depth + 1, seen, names, texts);
    }
  }
  if (isPlainObject(schema.items)) collectProperties(schema.items, depth + 1, seen, names, texts);
}
