/**
 * agt-mcp/anthropic: Anthropic Messages API formats for a run's tools, calls
 * and results, and a ModelLike for runAgentLoop. No Anthropic package is
 * needed (docs/hosts.md).
 */
export { fromAnthropicToolUse, toAnthropicToolResult, toAnthropicToolResults, toAnthropicTools, toAnthropicToolUse } from './format.js';
export type { AnthropicResultContent, AnthropicTool, AnthropicToolResultBlock, AnthropicToolUseBlock } from './format.js';
export { anthropicModel } from './model.js';
export type { AnthropicClientLike, AnthropicModelOptions } from './model.js';
export type { ConversationOptions } from '../conversation.js';
