/**
 * The layout of DESIGN.md, read from the source itself: no import circle in
 * src (type-only imports count: a circle of types is still a tangle to read),
 * and src/toolsearch pure (it imports nothing of ours beyond json).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/index.js';

const SRC = path.join(REPO_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

// Every relative module a file imports or re-exports (static `from '…'` and dynamic `import('…')`).
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g), ...text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map(
    (m) => m[1] as string,
  );
  return specs.map((spec) => path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'))).filter((target) => fs.existsSync(target));
}

const graph = new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)]));
const name = (file: string) => path.relative(SRC, file);

// The circles of the graph, each once (depth-first, iterative: no recursion on the graph).
function circles(): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  for (const start of graph.keys()) {
    if (done.has(start)) continue;
    const onPath = new Map<string, number>();
    const trail: string[] = [];
    const stack: [string, number][] = [[start, 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [file, next] = top;
      if (next === 0) {
        onPath.set(file, trail.length);
        trail.push(file);
      }
      const targets = graph.get(file) ?? [];
      if (next < targets.length) {
        top[1] += 1;
        const target = targets[next]!;
        if (onPath.has(target)) found.push(trail.slice(onPath.get(target)).map(name));
        else if (!done.has(target)) stack.push([target, 0]);
      } else {
        stack.pop();
        trail.pop();
        onPath.delete(file);
        done.add(file);
      }
    }
  }
  return found;
}

// The layers the README draws, lowest first: a file imports only from its own folder or a lower layer.
const LAYERS: readonly (readonly string[])[] = [
  ['(leaf files)'], // errors, bounds, check-ms, json, results, secret-rule, tool-names, files: the root's files, one unit
  ['schema', 'toolsearch'],
  ['config'],
  ['resources'],
  ['mcp'],
  ['pool', 'authoring', 'framework'], // one layer: none of the three imports another (the runtime does not import the server kit)
  ['skills'], // a run's skills and skill_read (a framework tool over them)
  ['runtime'],
  ['harness', 'storage', 'providers', 'otel', 'apps'], // apps: the MCP Apps host bridge (agt-mcp/apps), over a run
  ['testing'],
  ['cli'],
];
// The entry files only re-export: they sit above every layer.
const ENTRIES = new Set(['index.ts', 'adapters.ts', 'config.ts']);
const unitOf = (file: string) => {
  const [first, ...rest] = name(file).split('/');
  return rest.length > 0 || ENTRIES.has(first as string) ? (first as string) : '(leaf files)';
};
const rankOf = (unit: string) => LAYERS.findIndex((layer) => layer.includes(unit));

describe('the layout of src (DESIGN.md: arrows point one way)', () => {
  it("every import points down the README's drawing of layers (or stays in its folder)", () => {
    const units = new Set([...graph.keys()].map(unitOf).filter((u) => !ENTRIES.has(u)));
    expect([...units].filter((u) => rankOf(u) < 0)).toEqual([]); // every folder and leaf file has its layer
    const upward = [...graph]
      .filter(([file]) => !ENTRIES.has(unitOf(file)))
      .flatMap(([file, targets]) =>
        targets
          .filter((t) => unitOf(t) !== unitOf(file) && (ENTRIES.has(unitOf(t)) || rankOf(unitOf(t)) >= rankOf(unitOf(file))))
          .map((t) => `${name(file)} → ${name(t)}`),
      );
    expect(upward).toEqual([]);
  });

  it('no import circle anywhere in src, type-only imports included', () => {
    expect(graph.size).toBeGreaterThan(150); // the walk found the sources
    expect(circles()).toEqual([]);
  });

  it('the runtime does not import the server kit: nothing under framework/, runtime/ or pool/ reaches authoring/', () => {
    const kit = [...graph]
      .filter(([file]) => /^(framework|runtime|pool)\//.test(name(file)))
      .flatMap(([file, targets]) => targets.filter((t) => name(t).startsWith('authoring/')).map((t) => `${name(file)} → ${name(t)}`));
    expect(kit).toEqual([]);
  });

  it('inside runtime/ the pipeline knows nothing of waiting calls: pipeline/ imports nothing of pending/, pending/ nothing of the run above it', () => {
    const edges = (from: string, to: RegExp) =>
      [...graph]
        .filter(([file]) => name(file).startsWith(from))
        .flatMap(([file, targets]) => targets.filter((t) => to.test(name(t))).map((t) => `${name(file)} → ${name(t)}`));
    // A stage that must wait returns the wait as data (pipeline/call.ts CallWait); the run's WaitingCalls keeps it.
    expect(edges('runtime/pipeline/', /^runtime\/(pending\/|native-run|run-batches)/)).toEqual([]);
    expect(edges('runtime/pending/', /^runtime\/(native-run|run-batches|agent-loop)/)).toEqual([]);
    expect(edges('runtime/pending/', /^runtime\/pipeline\//).length).toBeGreaterThan(0); // pending → pipeline, the one direction
  });

  it('src/toolsearch imports nothing of ours beyond json and bounds', () => {
    const outside = [...graph]
      .filter(([file]) => name(file).startsWith('toolsearch/'))
      .flatMap(([file, targets]) =>
        targets
          .filter((t) => !name(t).startsWith('toolsearch/') && name(t) !== 'json.ts' && name(t) !== 'bounds.ts')
          .map((t) => `${name(file)} → ${name(t)}`),
      );
    expect(outside).toEqual([]);
  });
});

// At most this many source files directly in one folder: past it, a reader cannot tell the folder's parts apart, and it gets rooms.
const MAX_FOLDER_TOP = 15;

// Every folder of src (src itself as '.') with the number of `.ts` files directly in it.
function folderTops(dir: string): [string, number][] {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  const own = entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).length;
  const below = entries.filter((e) => e.isDirectory()).flatMap((e) => folderTops(path.join(dir, e.name)));
  return [[path.relative(SRC, dir) || '.', own], ...below];
}

describe('the rooms of src', () => {
  const tops = folderTops(SRC);

  it(`no folder has more than ${MAX_FOLDER_TOP} files at its top (mcp/ and its rooms included)`, () => {
    const over = tops.filter(([, count]) => count > MAX_FOLDER_TOP);
    expect(over).toEqual([]);
    expect(tops.filter(([folder]) => folder === 'mcp' || folder.startsWith('mcp/')).length).toBeGreaterThan(5); // the walk found mcp's rooms
  });
});
