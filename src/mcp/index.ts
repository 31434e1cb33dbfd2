export { connectMcp } from './connect.js';
export type { ConnectOptions } from './connect.js';
export { DEFAULT_CALL_TIMEOUT_MS } from './connection.js';
export type {
  CallOptions,
  Completion,
  CompletionRef,
  ListChangedKind,
  McpCallResult,
  McpConnection,
  PromptResult,
  RequestOptions,
  ResourceContents,
} from './connection.js';
export { clientCapabilities } from './client-handlers.js';
export type {
  ClientHandlers,
  CreateMessageResult,
  ElicitationRequest,
  ElicitResult,
  McpRoot,
  SamplingRequest,
  ServerRequestContext,
} from './client-handlers.js';
export type { BearerTokenProvider, McpAuth, McpOAuthProvider } from './auth.js';
export { McpProber } from './prober.js';
export type { McpProberOptions, ProbedList, ProbedSchemaError, ProbedTool, ProbePhase, ProbeReport } from './prober.js';
export type { AuthSetting, ConnectSettings } from './settings.js';
export { resolveConnectSettings } from './resolved-settings.js';
export type { ResolvedConnectSettings } from './resolved-settings.js';
export { DEFAULT_TIMEOUTS } from './timeouts.js';
export type { Timeouts } from './timeouts.js';
export type { McpPrompt, McpResource, McpResourceTemplate, RawTool, ToolAnnotations } from './lists.js';
export { LOG_LEVELS } from './notifications.js';
export type { LogLevel, McpLogMessage } from './notifications.js';
export { MemoryTokenStore, loginState } from './token-store.js';
export type { LoginState, StoredTokens, TokenStore } from './token-store.js';
export { storedOAuth } from './stored-oauth.js';
export type { StoredOAuthOptions } from './stored-oauth.js';
export { loginMcp } from './oauth-login.js';
export type { LoginOptions } from './oauth-login.js';
export type { EraVerdict, ProtocolEra } from './era.js';
export { MemoryVerdictStore, DEFAULT_LEGACY_VERDICT_MS } from './verdicts.js';
export type { EraVerdictStore, StoredVerdict } from './verdicts.js';
