/**
 * agt-mcp: the core entry point, re-exports only. Every name a host programs
 * against is listed here by name (no wildcard: adding one is a decision), as
 * each concept's folder index lists it; test/package/exports.test.ts pins the
 * names of every entry point.
 */
export { AGT_ERROR_CODES, AgtError, isAgtError, RESULT_ERROR_CODES } from './errors.js';
export type { AgtErrorCode, ToolError } from './errors.js';
export { ToolSchemaRegistry } from './schema/index.js';
export type { ArgumentIssue } from './schema/index.js';
export type { McpDocument, McpServerConfig } from './config/index.js';
export { MemoryStore, RESOURCE_KINDS, ResourceService, withRevision } from './resources/index.js';
export type {
  AgentData,
  AgentDescription,
  AgentSettings,
  MountStatus,
  ResourceKind,
  ResourceRecord,
  ResourceRef,
  ResourceServiceOptions,
  ResourceTarget,
  SkillData,
  WriteInput,
  WriteResult,
} from './resources/index.js';
export {
  DEFAULT_TIMEOUTS,
  LOG_LEVELS,
  McpProber,
  MemoryTokenStore,
  MemoryVerdictStore,
  connectMcp,
  loginMcp,
  resolveConnectSettings,
  storedOAuth,
} from './mcp/index.js';
export type {
  CallOptions,
  ClientHandlers,
  Completion,
  CompletionRef,
  ConnectOptions,
  ConnectSettings,
  CreateMessageResult,
  ElicitResult,
  ElicitationRequest,
  ListChangedKind,
  LogLevel,
  LoginOptions,
  McpAuth,
  McpCallResult,
  McpConnection,
  McpInputRequired,
  McpLogMessage,
  McpProberOptions,
  McpPrompt,
  McpResource,
  McpResourceTemplate,
  McpRoot,
  ProbeReport,
  PromptResult,
  ProtocolEra,
  RequestOptions,
  ResolvedConnectSettings,
  ResourceContents,
  SamplingRequest,
  ServerRequestContext,
  StoredOAuthOptions,
  Timeouts,
  ToolAnnotations,
} from './mcp/index.js';
export {
  DEFAULT_LIMITS,
  MemoryAuditStore,
  MemoryRunStore,
  NativeRun,
  RESULT_STATUSES,
  StoreAuditSink,
  executeModelCalls,
  policies,
  runAgentLoop,
  toolAlias,
} from './runtime/index.js';
export type {
  AfterHook,
  AgentLoopOptions,
  AnnotationMatch,
  ApprovalDecision,
  AuditEvent,
  AuditSink,
  AuditStore,
  AutoAllowMatch,
  BatchResult,
  BeforeHook,
  CallDecision,
  DelegateTool,
  InputDecision,
  LoopMessage,
  LoopOutcome,
  ModelCallsResult,
  ModelLike,
  ModelTool,
  NativeRunOptions,
  PendingCall,
  PermissionDecision,
  PermissionPolicy,
  PermissionRequest,
  ProgressEvent,
  ResultError,
  ResultStatus,
  ReviewContext,
  RunLimits,
  RunNotificationContext,
  RunRequestContext,
  RunSnapshot,
  RunStore,
  SuspendedRun,
  ToolBatch,
  ToolCall,
  ToolResult,
  ToolSearchOptions,
} from './runtime/index.js';
export { HarnessToolSet } from './harness/index.js';
export type { HarnessToolDef } from './harness/index.js';
export { McpPool } from './pool/index.js';
export type { LeaseRequest, McpLease, McpPoolOptions, PoolStats } from './pool/index.js';
export { ToolIndex } from './toolsearch/index.js';
export type { ToolHit } from './toolsearch/index.js';
