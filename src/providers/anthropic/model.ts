/**
 * anthropicModel: a ModelLike (for runAgentLoop) over an Anthropic client —
 * the official SDK's `Anthropic` instance or anything with `messages.create`.
 * The loop's history becomes alternating user and assistant messages: tool
 * results, and the loop's notices, go in user messages.
 */
import type { LoopMessage, ModelLike } from '../../runtime/agent-loop.js';
import type { ModelTool } from '../../runtime/model-tools.js';
import { type ConversationOptions, systemPrompt } from '../conversation.js';
import type { SkillInfo } from '../../skills/skill-set.js';
import { isPlainObject } from '../../json.js';
import { invalidResponse, responseObject } from '../response.js';
import { fromAnthropicToolUse, toAnthropicToolResult, toAnthropicTools, toAnthropicToolUse } from './format.js';

/** The part of an Anthropic client the model adapter uses (the official SDK's `Anthropic` fits). */
export interface AnthropicClientLike {
  messages: { create(body: never): PromiseLike<unknown> };
}

/** Options of {@link anthropicModel}. */
export interface AnthropicModelOptions extends ConversationOptions {
  client: AnthropicClientLike;
  model: string;
  maxTokens: number;
}

type Message = { role: 'user' | 'assistant'; content: object[] };

function messages(options: AnthropicModelOptions, history: readonly LoopMessage[]): Message[] {
  const out: Message[] = [{ role: 'user', content: [{ type: 'text', text: options.input }] }];
  const user = (block: object) => {
    const last = out[out.length - 1];
    if (last?.role === 'user') last.content.push(block);
    else out.push({ role: 'user', content: [block] });
  };
  for (const m of history) {
    if (m.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: [...(m.text ? [{ type: 'text', text: m.text }] : []), ...(m.toolCalls ?? []).map(toAnthropicToolUse)],
      });
    } else if (m.role === 'tool') {
      for (const r of m.results) user({ ...toAnthropicToolResult(r) });
    } else {
      user({ type: 'text', text: m.text });
    }
  }
  return out;
}

/** A model for runAgentLoop backed by an Anthropic client. */
export function anthropicModel(options: AnthropicModelOptions): ModelLike {
  return {
    async respond({ tools, history, skills }: { tools: ModelTool[]; history: readonly LoopMessage[]; skills?: readonly SkillInfo[] }) {
      const messagesApi = options.client.messages;
      const system = systemPrompt(options.instructions, skills);
      const response = (await (messagesApi.create as (body: Record<string, unknown>) => PromiseLike<unknown>).call(messagesApi, {
        ...options.request,
        model: options.model,
        max_tokens: options.maxTokens,
        ...(system ? { system } : {}),
        messages: messages(options, history),
        tools: toAnthropicTools(tools),
      })) as unknown;
      const content = responseObject('anthropicModel', response).content;
      if (!Array.isArray(content)) throw invalidResponse('anthropicModel', 'content', 'a Messages API response lists its content blocks');
      const text = content
        .filter((b): b is { type: 'text'; text: string } => isPlainObject(b) && b.type === 'text' && typeof b.text === 'string')
        .map((b) => b.text)
        .join('\n');
      const toolCalls = fromAnthropicToolUse({ content });
      return { ...(text ? { text } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
    },
  };
}
