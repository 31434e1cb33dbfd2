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
} from './requests/client-handlers.js';
export type { McpAuth } from './auth/auth.js';
export { McpProber } from './probe/prober.js';
export type { McpProberOptions, ProbeReport } from './probe/prober.js';
export type { ConnectSettings } from './settings/settings.js';
export { resolveConnectSettings } from './settings/resolved-settings.js';
export type { ResolvedConnectSettings } from './settings/resolved-settings.js';
export { DEFAULT_TIMEOUTS } from './settings/timeouts.js';
export type { Timeouts } from './settings/timeouts.js';
export type { McpPrompt, McpResource, McpResourceTemplate, ToolAnnotations } from './requests/lists.js';
export { LOG_LEVELS } from './requests/notifications.js';
export type { LogLevel, McpLogMessage } from './requests/notifications.js';
export { MemoryTokenStore } from './auth/token-store.js';
export { storedOAuth } from './auth/stored-oauth.js';
export type { StoredOAuthOptions } from './auth/stored-oauth.js';
export { loginMcp } from './auth/oauth-login.js';
export type { LoginOptions } from './auth/oauth-login.js';
export type { ProtocolEra } from './settings/era.js';
export { MemoryVerdictStore } from './settings/verdicts.js';
