/**
 * aiSdkModel: a ModelLike (for runAgentLoop) over the AI SDK's
 * `generateText` and any of its language models. Tools are described without
 * `execute`, so the SDK returns the calls and the loop runs them through the
 * run's pipeline; one `generateText` per step. The loop's notices (a
 * rejected step, a refresh) go in user messages, never system messages.
 */
import type { LoopMessage, ModelLike } from '../../runtime/agent-loop.js';
import type { ModelTool } from '../../runtime/model-tools.js';
import { resultText } from '../content.js';
import { type ConversationOptions, historyCall } from '../conversation.js';
import { providerSchema } from '../schema.js';
import { standardJsonSchema } from './tools.js';
import { defined } from '../../json.js';

/** The part of the AI SDK's `generateText` result the adapter reads. */
export interface GenerateTextResultLike {
  text?: string;
  toolCalls?: readonly { toolCallId: string; toolName: string; input: unknown }[];
}

/** Options of {@link aiSdkModel}. */
export type AiSdkModelOptions = AiSdkModelParts & ConversationOptions;

/** What the AI SDK adapter needs besides the conversation. */
export interface AiSdkModelParts {
  /** The AI SDK's `generateText` (import it from "ai"). */
  generateText(request: Record<string, unknown>): PromiseLike<GenerateTextResultLike>;
  /** A language model of any AI SDK provider. */
  model: unknown;
}

function messages(prompt: string, history: readonly LoopMessage[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ role: 'user', content: prompt }];
  const names = new Map<string, string>();
  for (const m of history) {
    if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => {
        const { callId, name, arguments: input } = historyCall(c);
        names.set(callId, name);
        return { type: 'tool-call', toolCallId: callId, toolName: name, input };
      });
      out.push({ role: 'assistant', content: [...(m.text ? [{ type: 'text', text: m.text }] : []), ...calls] });
    } else if (m.role === 'tool') {
      out.push({
        role: 'tool',
        content: m.results.map((r) => ({
          type: 'tool-result',
          toolCallId: r.callId,
          toolName: names.get(r.callId) ?? '',
          output: { type: r.status === 'ok' ? 'text' : 'error-text', value: resultText(r) },
        })),
      });
    } else {
      // The loop's notices (a rejected step, a refresh) go in the next user turn, as tool-side information:
      // AI SDK 6 warns of prompt injection for every system message after the first turn.
      out.push({ role: 'user', content: [{ type: 'text', text: `[agt-mcp notice] ${m.text}` }] });
    }
  }
  return out;
}

/** A model for runAgentLoop backed by the AI SDK. */
export function aiSdkModel(options: AiSdkModelOptions): ModelLike {
  return {
    async respond({ tools, history }: { tools: ModelTool[]; history: readonly LoopMessage[] }) {
      const described = Object.fromEntries(
        tools.map((t) => [
          t.name,
          { ...defined({ description: t.description }), inputSchema: standardJsonSchema(providerSchema(t.inputSchema)) },
        ]),
      );
      const system = options.instructions;
      const input = options.input;
      const result = await options.generateText({
        ...options.request,
        model: options.model,
        ...(system ? { system } : {}),
        messages: messages(input, history),
        tools: described,
      });
      const toolCalls = (result.toolCalls ?? []).map((c) => ({ callId: c.toolCallId, name: c.toolName, arguments: c.input }));
      return { ...(result.text ? { text: result.text } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
    },
  };
}
