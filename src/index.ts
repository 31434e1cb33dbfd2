// Public API of agt-mcp: re-exports only, no logic. Every name is listed on
// purpose (test/package/exports.test.ts pins the list): adding one is a decision.

// errors
export { AGT_ERROR_CODES, AgtError, isAgtError, isToolErrorSignal, readToolError, toolErrorOf } from './errors.js';
export type { AgtErrorCode, ToolError } from './errors.js';

// schema
export { ToolSchemaRegistry } from './schema/index.js';
export type {
  ArgumentIssue,
  CompiledToolSchema,
  Dialect,
  SchemaLoadReason,
  SchemaPart,
  ToolSchemaRegistryOptions,
  ValidationResult,
} from './schema/index.js';

// resources
export {
  documentInputs,
  isReference,
  JsoncError,
  MemoryStore,
  parseJsonc,
  parseReference,
  planImport,
  redactMcpDocument,
  redactRecord,
  resolveServerConfig,
  checkExpectedRevision,
  expectedRevisionOf,
  RESOURCE_KINDS,
  RESOURCE_MANAGEMENT,
  ResourceService,
  revisionConflict,
  SECRET_MASK,
} from './resources/index.js';
export type {
  AgentData,
  AgentDescription,
  AgentSettings,
  ConfigProblem,
  ConfigTestReport,
  ConflictTarget,
  DeclaredInput,
  ImportEntry,
  ImportFormat,
  ImportOptions,
  McpDocument,
  McpServerConfig,
  McpTransport,
  MountStatus,
  ParsedReference,
  RemoteServerConfig,
  ResourceKind,
  ResourceRecord,
  ResourceRef,
  ResourceServiceOptions,
  ResourceStore,
  ResourceTarget,
  ResourceWrite,
  SkillData,
  StdioServerConfig,
  UnresolvedVariable,
  VariableSources,
  WriteInput,
  WriteResult,
} from './resources/index.js';

// mcp
export { clientCapabilities, connectMcp, DEFAULT_CALL_TIMEOUT_MS, DEFAULT_TIMEOUTS, McpProber } from './mcp/index.js';
export type {
  AuthSetting,
  BearerTokenProvider,
  CallOptions,
  ClientHandlers,
  ConnectOptions,
  ConnectSettings,
  CreateMessageResult,
  ElicitationRequest,
  ElicitResult,
  ListChangedKind,
  McpAuth,
  McpCallResult,
  McpConnection,
  McpOAuthProvider,
  McpPrompt,
  McpProberOptions,
  McpResource,
  McpResourceTemplate,
  ProbedList,
  ProbedSchemaError,
  ProbedTool,
  ProbePhase,
  ProbeReport,
  PromptResult,
  RawTool,
  RequestOptions,
  ResourceContents,
  SamplingRequest,
  ServerRequestContext,
  Timeouts,
  ToolAnnotations,
} from './mcp/index.js';

// runtime
export {
  DEFAULT_LIMITS,
  executeModelCalls,
  MemoryAuditStore,
  MemoryRunStore,
  NativeRun,
  policies,
  RUN_FORMAT_VERSION,
  runAgentLoop,
  StoreAuditSink,
  toolAlias,
} from './runtime/index.js';
export type {
  AfterHook,
  AnnotationMatch,
  AuditEvent,
  AuditQuery,
  AuditSink,
  AuditStore,
  AutoAllowMatch,
  BatchFinishedEvent,
  BatchRejectedEvent,
  BatchResult,
  BatchStartedEvent,
  BeforeHook,
  DelegateTool,
  LoopMessage,
  RefreshEvent,
  ToolCallEvent,
  LoopOutcome,
  ModelCall,
  ModelCallsResult,
  ModelLike,
  ModelTool,
  NativeRunOptions,
  PermissionDecision,
  PermissionPolicy,
  PermissionRequest,
  ProgressEvent,
  ResultError,
  ReviewContext,
  RouteKind,
  RunLimits,
  RunRequestContext,
  RunSnapshot,
  RunStore,
  RunWrite,
  StoredRun,
  SuspendedRun,
  ToolBatch,
  ToolCall,
  ToolResult,
} from './runtime/index.js';

// framework and harness tools
export { FRAMEWORK_TOOL_NAMES } from './framework/index.js';
export { HarnessToolSet } from './harness/index.js';
export type { HarnessToolDef } from './harness/index.js';
