/** The ```ts blocks of a docs page, and a way to run one as a module of the repository (`.scratch/`, git-ignored). */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/** The first ```ts block of `page` (relative to the repository) that contains `marker`. */
export function docBlock(page: string, marker: string): string {
  const text = fs.readFileSync(path.join(REPO_ROOT, page), 'utf8');
  const block = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((b) => b.includes(marker));
  if (block === undefined) throw new Error(`${page} has no ts block with ${marker}`);
  return block;
}

/** Writes `source` as `.scratch/<name>.ts` and imports it (vitest resolves `agt-mcp/…` to the sources). */
export async function importBlock<T>(name: string, source: string): Promise<T> {
  const dir = path.join(REPO_ROOT, '.scratch');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.ts`);
  fs.writeFileSync(file, source);
  return (await import(/* @vite-ignore */ file)) as T;
}
