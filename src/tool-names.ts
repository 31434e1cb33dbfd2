/** The names models see, shared by every layer that publishes tools. */
import { MAX_NAME_LENGTH } from './bounds.js';

/** The pattern every alias (and every tool name a model sees) matches: valid for OpenAI, Anthropic and Gemini. */
export const MODEL_TOOL_NAME = new RegExp(`^[a-zA-Z_][a-zA-Z0-9_-]{0,${MAX_NAME_LENGTH - 1}}$`);

/** The run tool that reads the rest of a result cut at the budget (B8): a name no delegate tool may take. */
export const RESULT_READ = 'result_read';

/** The edit distance of two names, case ignored (insert, delete, replace; at most MAX_NAME_LENGTH characters each are compared). */
export function nameDistance(a: string, b: string): number {
  const x = a.slice(0, MAX_NAME_LENGTH).toLowerCase();
  const y = b.slice(0, MAX_NAME_LENGTH).toLowerCase();
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) {
      next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[y.length] as number;
}

/** Up to `limit` of `names`, closest to `name` first (a name containing it counts as close); ties keep their order. */
export function closestNames(name: string, names: readonly string[], limit: number): string[] {
  if (names.length === 0) return [];
  const needle = name.slice(0, MAX_NAME_LENGTH).toLowerCase(); // a name is compared in its first MAX_NAME_LENGTH characters
  const scored = names.map((n, i) => ({ n, i, d: n.toLowerCase().includes(needle) ? 0 : nameDistance(needle, n) }));
  return scored
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, limit)
    .map((s) => s.n);
}
