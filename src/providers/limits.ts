/**
 * Providers' documented limits on the tools of one request. An adapter keeps
 * what fits and says what it left out, with the fix, instead of sending a
 * request the provider answers with a 400.
 */
import type { ModelTool } from '../runtime/model-tools.js';

/** What a provider accepts in one request. */
export interface ProviderToolLimits {
  provider: string;
  /** Most tools per request. */
  maxTools?: number;
  /** Tool names it accepts. */
  toolName?: RegExp;
}

/** OpenAI (Chat Completions and Responses): at most 128 functions; names of 1–64 letters, digits, `_` and `-`. */
export const OPENAI_TOOL_LIMITS: ProviderToolLimits = Object.freeze({
  provider: 'OpenAI',
  maxTools: 128,
  toolName: /^[a-zA-Z0-9_-]{1,64}$/,
});

/** The tools that fit `limits`, in order, and a notice naming what was left out and how to fix it. */
export function fitTools(tools: readonly ModelTool[], limits: ProviderToolLimits): { tools: ModelTool[]; notice?: string } {
  const badNames = limits.toolName === undefined ? [] : tools.filter((t) => !(limits.toolName as RegExp).test(t.name)).map((t) => t.name);
  const named = badNames.length === 0 ? [...tools] : tools.filter((t) => !badNames.includes(t.name));
  const max = limits.maxTools ?? Number.POSITIVE_INFINITY;
  const kept = named.slice(0, max);
  const dropped = named.slice(kept.length).map((t) => t.name);
  const parts: string[] = [];
  if (badNames.length > 0)
    parts.push(
      `${badNames.length} tool name(s) ${limits.provider} does not accept were left out (${preview(badNames)}); rename the delegate tools or the servers' tools`,
    );
  if (dropped.length > 0) {
    parts.push(
      `${limits.provider} takes at most ${max} tools per request: ${dropped.length} of ${named.length} were left out (${preview(dropped)}); mount fewer servers, give the agent only the tools it needs, or turn on tool search`,
    );
  }
  return parts.length === 0 ? { tools: kept } : { tools: kept, notice: parts.join('; ') };
}

function preview(names: readonly string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}
