export { connectMcp } from './connect.js';
export type { ConnectOptions } from './connect.js';
export type {
  CallOptions,
  Completion,
  CompletionRef,
  ListChangedKind,
  McpCallResult,
  McpConnection,
  McpInputRequired,
  PromptResult,
  RequestOptions,
  ResourceContents,
} from './connection.js';
export type {
  ClientHandlers,
  CreateMessageResult,
  ElicitationRequest,
  ElicitResult,
  McpRoot,
  SamplingRequest,
  ServerRequestContext,
} from './client-handlers.js';
export type { McpAuth } from './auth.js';
export { McpProber } from './prober.js';
export type { McpProberOptions, ProbeReport } from './prober.js';
export type { ConnectSettings } from './settings.js';
export { resolveConnectSettings } from './resolved-settings.js';
export type { ResolvedConnectSettings } from './resolved-settings.js';
export { DEFAULT_TIMEOUTS } from './timeouts.js';
export type { Timeouts } from './timeouts.js';
export type { McpPrompt, McpResource, McpResourceTemplate, ToolAnnotations } from './lists.js';
export { LOG_LEVELS } from './notifications.js';
export type { LogLevel, McpLogMessage } from './notifications.js';
export { MemoryTokenStore } from './token-store.js';
export { storedOAuth } from './stored-oauth.js';
export type { StoredOAuthOptions } from './stored-oauth.js';
export { loginMcp } from './oauth-login.js';
export type { LoginOptions } from './oauth-login.js';
export type { ProtocolEra } from './era.js';
export { MemoryVerdictStore } from './verdicts.js';
