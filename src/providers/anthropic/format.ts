/**
 * A run's tools, calls and results in Anthropic's Messages API formats: tools
 * with `input_schema`, `tool_use` content blocks, `tool_result` blocks (with
 * `is_error` for failed calls, and images passed on as image blocks). The
 * shapes are declared here, structurally (the tests check them against the
 * official SDK's types).
 */
import { defined, isPlainObject } from '../../json.js';
import type { ModelCall, ModelCallsResult } from '../../runtime/model-calls.js';
import type { ModelTool } from '../../runtime/model-tools.js';
import { TOOL_SEARCH } from '../../toolsearch/tool-index.js';
import type { BatchResult, ToolResult } from '../../runtime/types.js';
import { imagePart, resultText } from '../content.js';
import { historyCall } from '../conversation.js';
import { providerSchema } from '../schema.js';

/** An Anthropic tool definition. */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: { type: 'object'; [key: string]: unknown };
  /** With `deferLoading`: the tool is not shown until Anthropic's own tool search finds it. */
  defer_loading?: true;
}

/** Anthropic's own BM25 tool search (beta `advanced-tool-use-2025-11-20`), sent first with `deferLoading`. */
export interface AnthropicToolSearchTool {
  type: 'tool_search_tool_bm25_20251119';
  name: 'tool_search_tool_bm25';
}

/** A `tool_use` block of an assistant message. */
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** Content of a tool result. */
export type AnthropicResultContent =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string } };

/** A `tool_result` block (goes in the next user message). */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: AnthropicResultContent[];
  is_error?: boolean;
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * The run's tools as Anthropic tools (`input_schema`: the server's schema,
 * object root, no `$schema`). With `deferLoading` (an opt-in: the request
 * needs the beta header `advanced-tool-use-2025-11-20`), pass
 * `run.tools({ includeDeferred: true })`: deferred tools get `defer_loading`
 * and Anthropic's own tool search is sent instead of `tool_search`.
 */
export function toAnthropicTools(tools: readonly ModelTool[], options?: { deferLoading?: false }): AnthropicTool[];
/** The same with Anthropic's own tool search. */
export function toAnthropicTools(tools: readonly ModelTool[], options: { deferLoading: true }): (AnthropicTool | AnthropicToolSearchTool)[];
export function toAnthropicTools(
  tools: readonly ModelTool[],
  options: { deferLoading?: boolean } = {},
): (AnthropicTool | AnthropicToolSearchTool)[] {
  const native = options.deferLoading === true && tools.some((t) => t.deferred === true);
  const out: (AnthropicTool | AnthropicToolSearchTool)[] = native
    ? [{ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }]
    : [];
  for (const tool of tools) {
    if (native && tool.name === TOOL_SEARCH) continue; // Anthropic's own search replaces it
    out.push({
      name: tool.name,
      ...defined({ description: tool.description }),
      input_schema: providerSchema(tool.inputSchema) as AnthropicTool['input_schema'],
      ...(native && tool.deferred === true ? { defer_loading: true as const } : {}),
    });
  }
  return out;
}

/** The tool calls of an assistant message (or of its `content` blocks). Never throws. */
export function fromAnthropicToolUse(source: unknown): ModelCall[] {
  const blocks = Array.isArray(source) ? source : isPlainObject(source) && Array.isArray(source.content) ? source.content : [];
  return blocks.filter((b) => isPlainObject(b) && b.type === 'tool_use').map((b) => ({ callId: b.id, name: b.name, arguments: b.input }));
}

/** A model call as the assistant's tool_use block (the history a model is shown again). */
export function toAnthropicToolUse(call: ModelCall): AnthropicToolUseBlock {
  const { callId, name, arguments: input } = historyCall(call);
  return { type: 'tool_use', id: callId, name, input };
}

/** One result as a tool_result block. */
export function toAnthropicToolResult(result: ToolResult): AnthropicToolResultBlock {
  if (result.status !== 'ok')
    return { type: 'tool_result', tool_use_id: result.callId, content: [{ type: 'text', text: resultText(result) }], is_error: true };
  if (!result.content.some((part) => imagePart(part) !== undefined)) {
    const text = resultText(result);
    return { type: 'tool_result', tool_use_id: result.callId, content: [{ type: 'text', text: text === '' ? '(no output)' : text }] };
  }
  const block = (part: unknown) => {
    const image = imagePart(part);
    return image && IMAGE_TYPES.has(image.mediaType) ? image : undefined;
  };
  const images: AnthropicResultContent[] = [];
  for (const part of result.status === 'ok' ? result.content : []) {
    const image = block(part);
    if (image) images.push({ type: 'image', source: { type: 'base64', media_type: image.mediaType as 'image/png', data: image.data } });
  }
  const text = resultText(result, { apart: (part) => block(part) !== undefined });
  const content: AnthropicResultContent[] = [
    ...(text === '' && images.length > 0 ? [] : [{ type: 'text' as const, text: text === '' ? '(no output)' : text }]),
    ...images,
  ];
  return { type: 'tool_result', tool_use_id: result.callId, content, ...(result.status === 'ok' ? {} : { is_error: true }) };
}

/** The results of a step as tool_result blocks, in call order (put them in one user message). */
export function toAnthropicToolResults(result: BatchResult | ModelCallsResult): AnthropicToolResultBlock[] {
  return result.results.map(toAnthropicToolResult);
}
