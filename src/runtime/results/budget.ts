/**
 * The result budget of a run (B8): how many tokens of one result reach the
 * model, how tokens are counted, and how much of the cut results the run keeps
 * for `result_read`. Checked once with the run's options.
 */
import { AgtError } from '../../errors.js';
import {
  DEFAULT_KEPT_RESULT_BYTES,
  DEFAULT_RESULT_BUDGET_TOKENS,
  MAX_CHARS_PER_TOKEN,
  MAX_KEPT_RESULT_BYTES,
  MAX_RESULT_BUDGET_TOKENS,
  MIN_CHARS_PER_TOKEN,
} from '../../bounds.js';

/** `NativeRunOptions.resultBudget`: a result over `tokens` reaches the model cut, the rest read with `result_read`. */
export interface ResultBudgetOptions {
  /** The most tokens of one result the model is given (a whole number, 1 or more; the notice that says what was left out comes on top). Default 25,000. */
  tokens?: number;
  /** The most bytes (JSON) of cut results the run keeps for result_read; the oldest dropped first. Default 16 MiB. */
  keptBytes?: number;
  /** Counts the tokens of a text (a provider's tokenizer); default: characters / 4. */
  countTokens?: (text: string) => number;
}

/** The budget a run applies: every field resolved. */
export interface ResolvedResultBudget {
  readonly tokens: number;
  readonly keptBytes: number;
  readonly countTokens: ((text: string) => number) | undefined;
}

/** The defaults: 25,000 tokens (as Claude Code caps an MCP result), 16 MiB kept per run. */
export const RESULT_BUDGET_DEFAULTS = Object.freeze({ tokens: DEFAULT_RESULT_BUDGET_TOKENS, keptBytes: DEFAULT_KEPT_RESULT_BYTES });

/** The characters a token counts for without a tokenizer (the documented estimate). */
export const CHARS_PER_TOKEN = 4;

/** The keys of ResultBudgetOptions (the unknown-keys check). */
export const RESULT_BUDGET_KEYS = { tokens: true, keptBytes: true, countTokens: true } as const satisfies Record<
  keyof ResultBudgetOptions,
  true
>;

const field = (name: string, message: string) =>
  new AgtError('invalid_input', `resultBudget.${name} ${message}`, { details: { field: `resultBudget.${name}` } });

/** The budget of `options` (undefined: `false`, no budget); a bad value is invalid_input naming its field. */
export function resolveResultBudget(options: unknown): ResolvedResultBudget | undefined {
  if (options === false) return undefined;
  if (options === undefined || options === true) return Object.freeze({ ...RESULT_BUDGET_DEFAULTS, countTokens: undefined });
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new AgtError('invalid_input', 'resultBudget must be { tokens?, keptBytes?, countTokens? } or false', {
      details: { field: 'resultBudget' },
    });
  const o = options as ResultBudgetOptions;
  const tokens = o.tokens ?? RESULT_BUDGET_DEFAULTS.tokens;
  if (!Number.isInteger(tokens) || tokens < 1 || tokens > MAX_RESULT_BUDGET_TOKENS)
    throw field('tokens', `must be a whole number of tokens from 1 to ${MAX_RESULT_BUDGET_TOKENS}`);
  const keptBytes = o.keptBytes ?? RESULT_BUDGET_DEFAULTS.keptBytes;
  if (!Number.isInteger(keptBytes) || keptBytes < 0 || keptBytes > MAX_KEPT_RESULT_BYTES)
    throw field('keptBytes', `must be a whole number of bytes from 0 (keep nothing) to ${MAX_KEPT_RESULT_BYTES}`);
  if (o.countTokens !== undefined && typeof o.countTokens !== 'function') throw field('countTokens', 'must be a function (text) => number');
  return Object.freeze({ tokens, keptBytes, countTokens: o.countTokens });
}

/** The characters a token counts for in `sample`: CHARS_PER_TOKEN, or the counter's ratio (a counter that fails or answers nonsense: the estimate). */
export function charsPerToken(budget: ResolvedResultBudget, sample: string): number {
  if (budget.countTokens === undefined || sample.length === 0) return CHARS_PER_TOKEN;
  let tokens: unknown;
  try {
    tokens = budget.countTokens(sample);
  } catch {
    return CHARS_PER_TOKEN;
  }
  if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens <= 0) return CHARS_PER_TOKEN;
  return Math.min(MAX_CHARS_PER_TOKEN, Math.max(MIN_CHARS_PER_TOKEN, sample.length / tokens));
}
