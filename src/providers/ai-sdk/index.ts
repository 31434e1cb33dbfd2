/**
 * agt-mcp/ai-sdk: a run's tools as a Vercel AI SDK ToolSet whose execute goes
 * through the run's batch pipeline, and a ModelLike for runAgentLoop over
 * `generateText`. No `ai` import here: the host passes its own (docs/hosts.md).
 */
export { aiSdkTools, standardJsonSchema } from './tools.js';
export type { AiSdkTool, AiSdkToolsOptions, StandardJsonSchema } from './tools.js';
export { aiSdkModel } from './model.js';
export type { AiSdkModelOptions, AiSdkModelParts, GenerateTextResultLike } from './model.js';
export type { ConversationOptions } from '../conversation.js';
