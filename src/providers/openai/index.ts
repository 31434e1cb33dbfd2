/**
 * agt-mcp/openai: OpenAI Chat Completions and Responses API formats for a
 * run's tools, calls and results, and a ModelLike for runAgentLoop. No OpenAI
 * package is needed (docs/hosts.md).
 */
export { fromOpenAIToolCalls, toOpenAIToolCallItems, toOpenAITools, toOpenAIToolMessages } from './format.js';
export { OPENAI_TOOL_LIMITS } from '../limits.js';
export type { ProviderToolLimits } from '../limits.js';
export type {
  OpenAIApi,
  OpenAIChatAssistantMessage,
  OpenAIChatTool,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIFunctionCallItem,
  OpenAIFunctionCallOutput,
  OpenAIOptions,
  OpenAIResponsesTool,
} from './format.js';
export { openAIModel } from './model.js';
export type { OpenAIClientLike, OpenAIModelOptions } from './model.js';
export type { ConversationOptions } from '../conversation.js';
