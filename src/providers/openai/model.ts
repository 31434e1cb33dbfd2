/**
 * openAIModel: a ModelLike (for runAgentLoop) over an OpenAI client — the
 * official SDK's `OpenAI` instance or anything with the same two methods. The
 * loop's history becomes Chat Completions messages or Responses API input
 * items; each step is one request.
 */
import { AgtError } from '../../errors.js';
import type { LoopMessage, ModelLike } from '../../runtime/agent-loop.js';
import type { ModelTool } from '../../runtime/model-tools.js';
import { type ConversationOptions, systemPrompt } from '../conversation.js';
import type { SkillInfo } from '../../skills/skill-set.js';
import {
  fromOpenAIToolCalls,
  type OpenAIApi,
  type OpenAIOptions,
  toOpenAIToolCallItems,
  toOpenAIToolMessages,
  toOpenAITools,
} from './format.js';
import { defined, isPlainObject } from '../../json.js';
import { invalidResponse, responseObject } from '../response.js';

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
export interface OpenAIModelOptions extends OpenAIOptions, ConversationOptions {
  client: OpenAIClientLike;
  api: OpenAIApi;
  model: string;
}

function chatMessages(options: OpenAIModelOptions, history: readonly LoopMessage[], system: string | undefined): object[] {
  const messages: object[] = [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content: options.input }];
  for (const m of history) {
    if (m.role === 'assistant') {
      const toolCalls = toOpenAIToolCallItems(m.toolCalls ?? [], { api: 'chat' });
      messages.push({ role: 'assistant', content: m.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) });
    } else if (m.role === 'tool') {
      messages.push(...toOpenAIToolMessages(m, { api: 'chat' }));
    } else {
      messages.push({ role: 'system', content: m.text });
    }
  }
  return messages;
}

function responsesInput(options: OpenAIModelOptions, history: readonly LoopMessage[]): object[] {
  const items: object[] = [{ role: 'user', content: options.input }];
  for (const m of history) {
    if (m.role === 'assistant') {
      if (m.text) items.push({ role: 'assistant', content: m.text });
      items.push(...toOpenAIToolCallItems(m.toolCalls ?? [], { api: 'responses' }));
    } else if (m.role === 'tool') {
      items.push(...toOpenAIToolMessages(m, { api: 'responses' }));
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
    const content =
      (item as { type?: unknown; content?: unknown }).type === 'message' ? (item as { content?: unknown }).content : undefined;
    for (const part of Array.isArray(content) ? content : [])
      if (part?.type === 'output_text' && typeof part.text === 'string') parts.push(part.text);
  }
  return parts.join('');
}

// The first choice's message of a Chat Completions response, or the error naming what is missing.
function chatMessage(response: unknown): { content?: string | null; tool_calls?: unknown } {
  const choices = responseObject('openAIModel', response).choices;
  if (!Array.isArray(choices) || choices.length === 0)
    throw invalidResponse('openAIModel', 'choices', 'a Chat Completions response has at least one choice');
  const message: unknown = (choices[0] as { message?: unknown } | null)?.message;
  if (!isPlainObject(message)) throw invalidResponse('openAIModel', 'choices[0].message', 'the first choice carries the message');
  return message;
}

/** A model for runAgentLoop backed by an OpenAI client. */
export function openAIModel(options: OpenAIModelOptions): ModelLike {
  return {
    async respond({ tools, history, skills }: { tools: ModelTool[]; history: readonly LoopMessage[]; skills?: readonly SkillInfo[] }) {
      const system = systemPrompt(options.instructions, skills);
      const strict = { ...defined({ strict: options.strict }), ...defined({ onNotice: options.onNotice }) };
      if (options.api === 'chat') {
        const completions = options.client.chat?.completions;
        if (!completions) throw new AgtError('invalid_input', 'openAIModel: the client has no chat.completions (pass an OpenAI client)');
        const response = (await (completions.create as Create).call(completions, {
          ...options.request,
          model: options.model,
          messages: chatMessages(options, history, system),
          tools: toOpenAITools(tools, { api: 'chat', ...strict }),
        })) as unknown;
        const message = chatMessage(response);
        const toolCalls = fromOpenAIToolCalls(message, { tools, ...strict });
        return { ...(typeof message.content === 'string' ? { text: message.content } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
      }
      const responses = options.client.responses;
      if (!responses) throw new AgtError('invalid_input', 'openAIModel: the client has no responses (pass an OpenAI client)');
      const response = (await (responses.create as Create).call(responses, {
        ...options.request,
        model: options.model,
        ...(system ? { instructions: system } : {}),
        input: responsesInput(options, history),
        tools: toOpenAITools(tools, { api: 'responses', ...strict }),
      })) as unknown;
      const read = responseObject('openAIModel', response);
      if (!Array.isArray(read.output)) throw invalidResponse('openAIModel', 'output', 'a Responses API response lists its output items');
      const toolCalls = fromOpenAIToolCalls(response, { tools, ...strict });
      // output_text is the official SDK's convenience
      const text = typeof read.output_text === 'string' ? read.output_text : outputText(read.output);
      return { ...(text ? { text } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
    },
  };
}
