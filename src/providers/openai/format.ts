/**
 * A run's tools, calls and results in OpenAI's formats, for
 * Chat Completions (`api: 'chat'`) and the Responses API (`api: 'responses'`).
 * No OpenAI package is needed: the shapes are declared here, structurally
 * (the tests check them against the official SDK's types).
 *
 * Strict mode (default on): a tool whose schema has a faithful strict form is
 * sent `strict: true` in that form (schema.ts); `fromOpenAIToolCalls` undoes
 * it (the nulls of left-out properties), so the run validates the arguments
 * against the server's own schema.
 */
import { fitTools, OPENAI_TOOL_LIMITS } from '../limits.js';
import { isPlainObject } from '../../json.js';
import type { ModelCall } from '../../runtime/model-calls.js';
import type { ModelTool } from '../../runtime/model-tools.js';
import type { BatchResult } from '../../runtime/types.js';
import { resultText } from '../content.js';
import { historyCall } from '../conversation.js';
import { decodeStrict, providerSchema, type StrictDecoder, toStrictSchema } from '../schema.js';

/** Which OpenAI API. */
export type OpenAIApi = 'chat' | 'responses';

/** A Chat Completions function tool. */
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict: boolean };
}

/** A Responses API function tool (`strict` is always given: the API defaults it to true). */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** A Chat Completions tool call of an assistant message. */
export interface OpenAIChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A Chat Completions assistant message (what `choices[0].message` holds). */
export interface OpenAIChatAssistantMessage {
  role: 'assistant';
  content?: string | null;
  tool_calls?: OpenAIChatToolCall[] | null;
}

/** A Responses API function call output item. */
export interface OpenAIFunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
}

/** A Chat Completions tool message. */
export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** A Responses API function call output (an input item of the next request). */
export interface OpenAIFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string;
}

/** Options of the OpenAI conversions. */
export interface OpenAIOptions {
  /** Strict mode where a tool's schema allows it. Default true. */
  strict?: boolean;
  /**
   * Told what had to be left out to stay within OpenAI's documented limits
   * (128 tools, names of 1–64 `[a-zA-Z0-9_-]`), with the fix. The tools that
   * fit are sent either way; without this the host never hears of the rest.
   */
  onNotice?(notice: string): void;
}

interface Form {
  parameters: Record<string, unknown>;
  strict: boolean;
  decoder?: StrictDecoder;
}

// One conversion per schema object (run.tools() hands out the snapshot's own schema objects).
const forms = new WeakMap<object, { strict: Form; loose: Form }>();
function form(tool: ModelTool, options: OpenAIOptions): Form {
  let entry = forms.get(tool.inputSchema);
  if (entry === undefined) {
    const loose: Form = { parameters: providerSchema(tool.inputSchema), strict: false };
    const converted = toStrictSchema(tool.inputSchema);
    entry = { loose, strict: converted ? { parameters: converted.schema, strict: true, decoder: converted.decoder } : loose };
    forms.set(tool.inputSchema, entry);
  }
  return options.strict === false ? entry.loose : entry.strict;
}

/** The run's tools as Chat Completions tools. */
export function toOpenAITools(tools: readonly ModelTool[], options: OpenAIOptions & { api: 'chat' }): OpenAIChatTool[];
/** The run's tools as Responses API tools. */
export function toOpenAITools(tools: readonly ModelTool[], options: OpenAIOptions & { api: 'responses' }): OpenAIResponsesTool[];
/** The run's tools in the format of `options.api`. */
export function toOpenAITools(
  tools: readonly ModelTool[],
  options: OpenAIOptions & { api: OpenAIApi },
): (OpenAIChatTool | OpenAIResponsesTool)[] {
  const fitted = fitTools(tools, OPENAI_TOOL_LIMITS);
  if (fitted.notice !== undefined) options.onNotice?.(fitted.notice);
  return fitted.tools.map((tool) => {
    const { parameters, strict } = form(tool, options);
    const description = tool.description === undefined ? {} : { description: tool.description };
    return options.api === 'chat'
      ? { type: 'function', function: { name: tool.name, ...description, parameters, strict } }
      : { type: 'function', name: tool.name, ...description, parameters, strict };
  });
}

/**
 * The tool calls of a Chat Completions assistant message, or of a Responses
 * API response (its `output`, or the output array). Arguments are parsed
 * (left as the string when they are not JSON, for the run to report) and
 * decoded from strict mode. Never throws.
 */
export function fromOpenAIToolCalls(source: unknown, options: OpenAIOptions & { tools: readonly ModelTool[] }): ModelCall[] {
  const byName = new Map(options.tools.map((t) => [t.name, t]));
  const call = (id: unknown, name: unknown, args: unknown): ModelCall => {
    const tool = typeof name === 'string' ? byName.get(name) : undefined;
    const decoder = tool ? form(tool, options).decoder : undefined;
    return { callId: id, name, arguments: parseArguments(args, decoder) };
  };
  if (isPlainObject(source) && Array.isArray(source.tool_calls)) {
    return source.tool_calls.map((c) =>
      isPlainObject(c) && isPlainObject(c.function)
        ? call(c.id, c.function.name, c.function.arguments)
        : call(isPlainObject(c) ? c.id : undefined, undefined, undefined),
    );
  }
  const output = Array.isArray(source) ? source : isPlainObject(source) && Array.isArray(source.output) ? source.output : [];
  return output
    .filter((item) => isPlainObject(item) && item.type === 'function_call')
    .map((item) => call(item.call_id, item.name, item.arguments));
}

// Only strict mode's nulls need undoing; anything else goes to the run as sent (stage 2
// parses JSON strings, and reports the ones that are not JSON for that call only).
function parseArguments(args: unknown, decoder: StrictDecoder | undefined): unknown {
  if (typeof args !== 'string' || decoder === undefined || !args.includes('null')) return args;
  try {
    return decodeStrict(JSON.parse(args), decoder);
  } catch {
    return args;
  }
}

/** The results of a step as Chat Completions tool messages, in call order. */
export function toOpenAIToolMessages(result: Pick<BatchResult, 'results'>, options: { api: 'chat' }): OpenAIChatToolMessage[];
/** The results of a step as Responses API function call outputs, in call order. */
export function toOpenAIToolMessages(result: Pick<BatchResult, 'results'>, options: { api: 'responses' }): OpenAIFunctionCallOutput[];
/** The results of a step in the format of `options.api`. */
export function toOpenAIToolMessages(
  result: Pick<BatchResult, 'results'>,
  options: { api: OpenAIApi },
): (OpenAIChatToolMessage | OpenAIFunctionCallOutput)[];
export function toOpenAIToolMessages(
  result: Pick<BatchResult, 'results'>,
  options: { api: OpenAIApi },
): (OpenAIChatToolMessage | OpenAIFunctionCallOutput)[] {
  return result.results.map((r) =>
    options.api === 'chat'
      ? { role: 'tool', tool_call_id: r.callId, content: resultText(r) }
      : { type: 'function_call_output', call_id: r.callId, output: resultText(r) },
  );
}

const argumentsText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

/** A step's calls as the assistant's Chat Completions tool calls (the history a model is shown again). */
export function toOpenAIToolCallItems(calls: readonly ModelCall[], options: { api: 'chat' }): OpenAIChatToolCall[];
/** A step's calls as Responses API function call items. */
export function toOpenAIToolCallItems(calls: readonly ModelCall[], options: { api: 'responses' }): OpenAIFunctionCallItem[];
/** A step's calls in the format of `options.api`. */
export function toOpenAIToolCallItems(
  calls: readonly ModelCall[],
  options: { api: OpenAIApi },
): (OpenAIChatToolCall | OpenAIFunctionCallItem)[];
export function toOpenAIToolCallItems(
  calls: readonly ModelCall[],
  options: { api: OpenAIApi },
): (OpenAIChatToolCall | OpenAIFunctionCallItem)[] {
  return calls.map((call) => {
    const { callId, name, arguments: args } = historyCall(call);
    return options.api === 'chat'
      ? { id: callId, type: 'function', function: { name, arguments: argumentsText(args) } }
      : { type: 'function_call', call_id: callId, name, arguments: argumentsText(args) };
  });
}
