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

describe('the layout of src (DESIGN.md: arrows point one way)', () => {
  it('no import circle anywhere in src, type-only imports included', () => {
    expect(graph.size).toBeGreaterThan(150); // the walk found the sources
    expect(circles()).toEqual([]);
  });

  it('src/toolsearch imports nothing of ours beyond json', () => {
    const outside = [...graph]
      .filter(([file]) => name(file).startsWith('toolsearch/'))
      .flatMap(([file, targets]) =>
        targets.filter((t) => !name(t).startsWith('toolsearch/') && name(t) !== 'json.ts').map((t) => `${name(file)} → ${name(t)}`),
      );
    expect(outside).toEqual([]);
  });
});
