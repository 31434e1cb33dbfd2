/**
 * Estimated token size of tool definitions: what a provider is sent for each
 * tool (name, description, input schema) as JSON, at about 4 characters a
 * token — the ratio the providers' own guides give for English and JSON. An
 * estimate for budgets, not a tokenizer.
 */
/** What search and token estimates read of a tool: its name, description and input schema. */
export interface SearchableTool {
  name: string;
  description?: string;
  inputSchema: object;
}

const CHARS_PER_TOKEN = 4;
const MAX_MEASURED_CHARS = 1_000_000; // a hostile schema is counted as this big, never serialised further

/** The estimated tokens of one tool's definition. */
export function estimateToolTokens(tool: SearchableTool): number {
  let chars: number;
  try {
    chars = JSON.stringify({ name: tool.name, description: tool.description ?? '', input_schema: tool.inputSchema }).length;
  } catch {
    chars = MAX_MEASURED_CHARS; // cyclic or too deep to serialise: counted as huge
  }
  return Math.ceil(Math.min(chars, MAX_MEASURED_CHARS) / CHARS_PER_TOKEN);
}

/** The estimated tokens of a list of tool definitions. */
export function estimateTokens(tools: readonly SearchableTool[]): number {
  return tools.reduce((sum, tool) => sum + estimateToolTokens(tool), 0);
}
