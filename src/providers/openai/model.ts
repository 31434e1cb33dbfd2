/**
 * openAIModel: a ModelLike (for runAgentLoop) over an OpenAI client — the
 * official SDK's `OpenAI` instance or anything with the same two methods. The
 * loop's history becomes Chat Completions messages or Responses API input
 * items; each step is one request.
 */
import { AgtError } from '../../errors.js';
import type { LoopMessage, ModelLike } from '../../runtime/agent-loop.js';
import type { ModelCall } from '../../runtime/model-calls.js';
import type { ModelTool } from '../../runtime/run-options.js';
import { resultText } from '../content.js';
import { fromOpenAIToolCalls, type OpenAIApi, type OpenAIOptions, toOpenAITools } from './format.js';

/**
 * The part of an OpenAI client the model adapter uses (the official SDK's
 * `OpenAI` fits; `never` lets any typed `create` be given, the adapter builds the body).
 */
export interface OpenAIClientLike {
  chat?: { completions: { create(body: never): PromiseLike<unknown> } };
  responses?: { create(body: never): PromiseLike<unknown> };
}

type Create = (body: Record<string, unknown>) => PromiseLike<unknown>;

/** Options of {@link openAIModel}. */
export interface OpenAIModelOptions extends OpenAIOptions {
  client: OpenAIClientLike;
  api: OpenAIApi;
  model: string;
  /** The system (chat) or instructions (responses) text. */
  instructions?: string;
  /** The user's request that starts the conversation. */
  input: string;
  /** More request fields (temperature, …), sent as they are. */
  request?: Record<string, unknown>;
}

const args = (call: ModelCall) => (typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}));

function chatMessages(options: OpenAIModelOptions, history: readonly LoopMessage[]): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [
    ...(options.instructions ? [{ role: 'system', content: options.instructions }] : []),
    { role: 'user', content: options.input },
  ];
  for (const m of history) {
    if (m.role === 'assistant') {
      messages.push({
        role: 'assistant', content: m.text ?? null,
        ...(m.toolCalls?.length ? { tool_calls: m.toolCalls.map((c) => ({ id: String(c.id ?? ''), type: 'function', function: { name: String(c.name ?? ''), arguments: args(c) } })) } : {}),
      });
    } else if (m.role === 'tool') {
      for (const r of m.results) messages.push({ role: 'tool', tool_call_id: r.tool_call_id, content: resultText(r) });
    } else {
      messages.push({ role: 'system', content: m.text });
    }
  }
  return messages;
}

function responsesInput(options: OpenAIModelOptions, history: readonly LoopMessage[]): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [{ role: 'user', content: options.input }];
  for (const m of history) {
    if (m.role === 'assistant') {
      if (m.text) items.push({ role: 'assistant', content: m.text });
      for (const c of m.toolCalls ?? []) items.push({ type: 'function_call', call_id: String(c.id ?? ''), name: String(c.name ?? ''), arguments: args(c) });
    } else if (m.role === 'tool') {
      for (const r of m.results) items.push({ type: 'function_call_output', call_id: r.tool_call_id, output: resultText(r) });
    } else {
      items.push({ role: 'system', content: m.text });
    }
  }
  return items;
}

// The text of a Responses API output: its message items' output_text parts.
function outputText(output: unknown[] | undefined): string {
  const parts: string[] = [];
  for (const item of output ?? []) {
    const content = (item as { type?: unknown; content?: unknown }).type === 'message' ? (item as { content?: unknown }).content : undefined;
    for (const part of Array.isArray(content) ? content : []) if (part?.type === 'output_text' && typeof part.text === 'string') parts.push(part.text);
  }
  return parts.join('');
}

/** A model for runAgentLoop backed by an OpenAI client. */
export function openAIModel(options: OpenAIModelOptions): ModelLike {
  return {
    async respond({ tools, history }: { tools: ModelTool[]; history: readonly LoopMessage[] }) {
      const strict = { ...(options.strict === undefined ? {} : { strict: options.strict }), ...(options.onNotice ? { onNotice: options.onNotice } : {}) };
      if (options.api === 'chat') {
        const completions = options.client.chat?.completions;
        if (!completions) throw new AgtError('invalid_input', 'openAIModel: the client has no chat.completions (pass an OpenAI client)');
        const response = (await (completions.create as Create).call(completions, { ...options.request, model: options.model, messages: chatMessages(options, history), tools: toOpenAITools(tools, { api: 'chat', ...strict }) })) as { choices?: { message?: { content?: string | null } }[] };
        const message = response.choices?.[0]?.message ?? {};
        const toolCalls = fromOpenAIToolCalls(message, { tools, ...strict });
        return { ...(typeof message.content === 'string' ? { text: message.content } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
      }
      const responses = options.client.responses;
      if (!responses) throw new AgtError('invalid_input', 'openAIModel: the client has no responses (pass an OpenAI client)');
      const response = (await (responses.create as Create).call(responses, {
        ...options.request, model: options.model, ...(options.instructions ? { instructions: options.instructions } : {}),
        input: responsesInput(options, history), tools: toOpenAITools(tools, { api: 'responses', ...strict }),
      })) as { output_text?: string; output?: unknown[] };
      const toolCalls = fromOpenAIToolCalls(response, { tools, ...strict });
      const text = response.output_text ?? outputText(response.output); // output_text is the official SDK's convenience
      return { ...(text ? { text } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
    },
  };
}
