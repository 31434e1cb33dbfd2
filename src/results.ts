/**
 * One way to turn a handler's outcome into a tool result, for every path that
 * runs handlers: framework and delegate tools in runs, harness tools, and
 * servers built with the authoring kit. Text becomes a text part; an MCP tool
 * result (marked with `toolResult`, or an object of exactly its fields) goes
 * as given, `isError` and `structuredContent` kept; any other value is data —
 * its JSON as text, and an object also as structured content. A declared
 * failure (an AgtError or a ToolErrorSignal) keeps its code as a tool error;
 * anything else is a generic failure whose message says nothing of the cause.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { contentText, isAgtError, isToolErrorSignal, readToolError, type ResultError, toolErrorOf } from './errors.js';
import { defined, isPlainObject } from './json.js';

/** What a handler may return: text, data (a JSON value; an object is also sent as structuredContent), or an MCP tool result (the SDK's CallToolResult). */
export type HandlerOutput = string | Record<string, unknown> | CallToolResult;

const MARK = Symbol.for('agt-mcp.toolResult');
const RESULT_FIELDS: ReadonlySet<string> = new Set(['content', 'structuredContent', 'isError', '_meta']);

/** Marks `result` as an MCP tool result, sent as given (`isError`, `structuredContent` and `_meta` kept). */
export function toolResult(result: CallToolResult): CallToolResult {
  return Object.defineProperty({ ...result }, MARK, { value: true });
}

/**
 * True when `output` is an MCP tool result: marked with toolResult, or an
 * object with exactly its fields (a `content` list of typed parts). Data that
 * merely has a `content` field is not one.
 */
export function isMcpToolResult(output: unknown): output is CallToolResult {
  if (!isPlainObject(output) || !Array.isArray(output.content)) return false;
  if ((output as { [MARK]?: unknown })[MARK] === true) return true;
  return (
    Object.keys(output).every((key) => RESULT_FIELDS.has(key)) &&
    output.content.every((part) => isPlainObject(part) && typeof part.type === 'string') &&
    (output.isError === undefined || typeof output.isError === 'boolean') &&
    (output.structuredContent === undefined || isPlainObject(output.structuredContent)) &&
    (output._meta === undefined || isPlainObject(output._meta))
  );
}

/** The MCP tool result of a handler's output. */
export function outputContent(output: HandlerOutput | unknown[]): CallToolResult {
  if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
  if (isMcpToolResult(output)) {
    const { content, structuredContent, _meta } = output;
    return { content, ...defined({ structuredContent, _meta }), ...(output.isError === true ? { isError: true } : {}) };
  }
  return { content: [{ type: 'text', text: JSON.stringify(output) }], ...(isPlainObject(output) ? { structuredContent: output } : {}) };
}

/** A ToolError as the text a model or client reads (`{"error":{code,message,details}}`): one writing for the kit's results and the runtime's. */
export function toolErrorText(error: ResultError<string>): string {
  return JSON.stringify(toolErrorOf<string>(error.code, error.message, error.details));
}

/** The MCP tool result of a ToolError (`isError`, its JSON as text): what a kit server answers for a failed call; `errorOfContent` reads it back. */
export function toolErrorResult(error: ResultError<string>): CallToolResult {
  return { content: [{ type: 'text', text: toolErrorText(error) }], isError: true };
}

/** The error of an `isError` result: the ToolError convention (`{ error: { code, message } }` as text, the tool's own code) when present, else `tool_error` with its text. */
export function errorOfContent(content: unknown[]): ResultError<string> {
  const declared = readToolError(content);
  if (declared !== undefined) return { code: declared.code, message: declared.message, details: { content } };
  return { code: 'tool_error', message: contentText(content).slice(0, 2000) || 'the tool reported an error', details: { content } };
}

/** The failure a thrown error becomes: declared ones keep code, message and details; others get `fallback`. */
export function failureOf(
  error: unknown,
  fallback: string,
): { status: 'tool_error'; error: ResultError<string> } | { status: 'tool_failed'; error: ResultError<'tool_failed'> } {
  if (isAgtError(error) || isToolErrorSignal(error)) {
    return { status: 'tool_error', error: { code: error.code, message: error.message, ...defined({ details: error.details }) } };
  }
  return { status: 'tool_failed', error: { code: 'tool_failed', message: fallback } };
}
