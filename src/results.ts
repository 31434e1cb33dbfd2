/**
 * One way to turn a handler's outcome into a tool result, for every path that
 * runs handlers: framework and delegate tools in runs, harness tools, and
 * servers built with the authoring kit. Output becomes MCP content (text,
 * JSON with structured content, or content as given); a declared failure (an
 * AgtError or a ToolErrorSignal) keeps its code as a tool error; anything else
 * is a generic failure whose message says nothing of the cause.
 */
import { isAgtError, isToolErrorSignal } from './errors.js';
import { defined, isPlainObject } from './json.js';

/** What a handler may return: text, a JSON object (also sent as structured content), or MCP content. */
export type HandlerOutput = string | Record<string, unknown> | { content: unknown[] };

/** MCP content for a handler's output. */
export function outputContent(output: HandlerOutput | unknown[]): { content: unknown[]; structuredContent?: Record<string, unknown> } {
  if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
  if (isPlainObject(output) && Array.isArray(output.content)) return { content: output.content };
  return { content: [{ type: 'text', text: JSON.stringify(output) }], ...(isPlainObject(output) ? { structuredContent: output } : {}) };
}

/** The failure a thrown error becomes: declared ones keep code, message and details; others get `fallback`. */
export function failureOf(
  error: unknown,
  fallback: string,
): { status: 'tool_error' | 'tool_failed'; error: { code: string; message: string; details?: Record<string, unknown> } } {
  if (isAgtError(error) || isToolErrorSignal(error)) {
    return { status: 'tool_error', error: { code: error.code, message: error.message, ...defined({ details: error.details }) } };
  }
  return { status: 'tool_failed', error: { code: 'tool_failed', message: fallback } };
}
