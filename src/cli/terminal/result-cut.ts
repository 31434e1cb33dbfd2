/**
 * What `agt mcp call` prints of a large result (B8, the terminal's side): the
 * result cut at the result budget the way a run cuts it for the model — the
 * same line of positions and the same first page (runtime/results/pages.ts) —
 * with a notice for the person at the terminal instead of the model's (there
 * is no result_read here: `--full` prints the whole, `--budget` moves the cut).
 */
import { AgtError } from '../../errors.js';
import { MAX_RESULT_BUDGET_TOKENS } from '../../bounds.js';
import { CHARS_PER_TOKEN, RESULT_BUDGET_DEFAULTS } from '../../runtime/results/budget.js';
import { budgetedContent, cutTo, lineCost } from '../../runtime/results/cut.js';
import { pageOf, resultLine } from '../../runtime/results/pages.js';
import type { ToolResult } from '../../runtime/types.js';

/**
 * The tokens `--full` / `--budget TOKENS` leave a printed result (undefined: `--full`, no cut); the default budget
 * without either. A value that is not a whole number of tokens in the runtime's range is invalid_input naming the flag.
 */
export function budgetFlag(budget: string | undefined, full: boolean | undefined): number | undefined {
  if (full === true && budget !== undefined)
    throw new AgtError('invalid_input', 'give --full (the whole result) or --budget TOKENS (a cut), not both', {
      details: { flag: '--budget' },
    });
  if (full === true) return undefined;
  if (budget === undefined) return RESULT_BUDGET_DEFAULTS.tokens;
  // Digits only: "1e3", "0x10", " 5" and "5.0" are not a count of tokens a person types; the range is the runtime's.
  const tokens = /^[0-9]{1,9}$/.test(budget) ? Number(budget) : Number.NaN;
  if (tokens >= 1 && tokens <= MAX_RESULT_BUDGET_TOKENS) return tokens;
  throw new AgtError('invalid_input', `--budget must be a whole number of tokens from 1 to ${MAX_RESULT_BUDGET_TOKENS}`, {
    details: { flag: '--budget' },
  });
}

/** A result over `tokens` (4 characters each), cut to its first page with `cut`; any other result as it is. */
export function cutResult(result: ToolResult, tokens: number): ToolResult {
  const readable = budgetedContent(result);
  if (readable === undefined) return result;
  const room = tokens * CHARS_PER_TOKEN;
  const line = resultLine(readable.content, readable.structured);
  if (lineCost(line, room) <= room) return result;
  // No `refer`: an image or a binary resource on the page is printed as itself (by kind and size), not as a reference.
  const page = pageOf(line, 0, room);
  return cutTo(result, page.parts, { keptChars: page.end, totalChars: line.total }, room);
}

/** The notice a cut result's output ends with (numbers and flags only: nothing of the server's). */
export function cutNotice(before: ToolResult, after: ToolResult, tokens: number): string {
  const cut = after.status === 'ok' || after.status === 'tool_error' ? after.cut : undefined;
  if (cut === undefined) return '';
  const structured =
    before.status === 'ok' && before.structuredContent !== undefined && after.status === 'ok' && after.structuredContent === undefined
      ? ' and not its structuredContent'
      : '';
  return (
    `[cut at the result budget of ${tokens} tokens: showing ${cut.keptChars} of ${cut.totalChars} characters${structured}; ` +
    '--full prints the whole, --budget N sets the tokens]'
  );
}
