/** Shared test helper: the text a tool result carries. */

/** The text of a result's first content block (a run's `ok` result or an MCP call result); throws if it has none. */
export function text(result: unknown): string {
  const first = (result as { content?: { text?: unknown }[] } | undefined)?.content?.[0]?.text;
  if (typeof first !== 'string') throw new Error(`expected a result whose first content block is text: ${JSON.stringify(result)}`);
  return first;
}
