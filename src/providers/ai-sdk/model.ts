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
import { type ConversationOptions, historyCall, systemPrompt } from '../conversation.js';
import type { SkillInfo } from '../../skills/skill-set.js';
import { providerSchema } from '../schema.js';
import { standardJsonSchema } from './tools.js';
import { defined } from '../../json.js';
import { invalidResponse, responseObject } from '../response.js';

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

// What generateText gave, read: its text (a string) and tool calls (each with a string id and name), or the error naming the field.
function generated(result: unknown): { text: string; toolCalls: { toolCallId: string; toolName: string; input: unknown }[] } {
  const read = responseObject('aiSdkModel', result);
  const { text, toolCalls } = read;
  if (text === undefined && toolCalls === undefined) throw invalidResponse('aiSdkModel', 'text', 'generateText gives text and toolCalls');
  if (text !== undefined && typeof text !== 'string') throw invalidResponse('aiSdkModel', 'text', 'a string was expected');
  if (toolCalls !== undefined && !Array.isArray(toolCalls)) throw invalidResponse('aiSdkModel', 'toolCalls', 'an array was expected');
  const calls = (toolCalls ?? []) as unknown[];
  calls.forEach((call, i) => {
    const c = call as { toolCallId?: unknown; toolName?: unknown } | null;
    if (typeof c?.toolCallId !== 'string' || typeof c.toolName !== 'string')
      throw invalidResponse('aiSdkModel', `toolCalls[${i}].toolCallId/toolName`, 'each tool call has a string id and name');
  });
  return { text: text ?? '', toolCalls: calls as { toolCallId: string; toolName: string; input: unknown }[] };
}

/** A model for runAgentLoop backed by the AI SDK. */
export function aiSdkModel(options: AiSdkModelOptions): ModelLike {
  return {
    async respond({ tools, history, skills }: { tools: ModelTool[]; history: readonly LoopMessage[]; skills?: readonly SkillInfo[] }) {
      const described = Object.fromEntries(
        tools.map((t) => [
          t.name,
          { ...defined({ description: t.description }), inputSchema: standardJsonSchema(providerSchema(t.inputSchema)) },
        ]),
      );
      const system = systemPrompt(options.instructions, skills);
      const input = options.input;
      const result = await options.generateText({
        ...options.request,
        model: options.model,
        ...(system ? { system } : {}),
        messages: messages(input, history),
        tools: described,
      });
      const { text, toolCalls: calls } = generated(result);
      const toolCalls = calls.map((c) => ({ callId: c.toolCallId, name: c.toolName, arguments: c.input }));
      return { ...(text ? { text } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
    },
  };
}
