/**
 * What the three model adapters (openAIModel, anthropicModel, aiSdkModel)
 * are told of a conversation, under the same option names in all three; the
 * provider's own words (`system`, `messages`, `tool_call_id`) appear only
 * inside the provider-shaped payloads they build.
 */
import { type ModelCall, modelCallId } from '../runtime/model-calls.js';
import { renderSkills } from '../skills/skill-read.js';
import type { SkillInfo } from '../skills/skill-set.js';

/** The options every model adapter takes for the conversation. */
export interface ConversationOptions {
  /** The instructions (the system prompt) the model works under. */
  instructions?: string;
  /** The user's request that starts the conversation. */
  input: string;
  /** More request fields (temperature, …), sent as they are. */
  request?: Record<string, unknown>;
}

/** A model call's id, name and arguments as text for a history entry (`arguments` as a JSON string or the object). */
export function historyCall(call: ModelCall): { callId: string; name: string; arguments: unknown } {
  return { callId: modelCallId(call), name: typeof call.name === 'string' ? call.name : '', arguments: call.arguments ?? {} };
}

/** The system prompt an adapter sends: the instructions, then the run's skills as {@link renderSkills} tells them (K3). */
export function systemPrompt(instructions: string | undefined, skills: readonly SkillInfo[] | undefined): string | undefined {
  const told = renderSkills(skills ?? []);
  if (told === '') return instructions;
  return instructions ? `${instructions}\n\n${told}` : told;
}
