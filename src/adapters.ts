/**
 * agt-mcp/adapters: what authors of adapters need and hosts do not — the
 * store contracts and their revision checks (ResourceStore, RunStore records,
 * TokenStore, EraVerdictStore), model and provider adapter shapes
 * (ModelCall, BatchRunner, the ToolError helpers), audit sink
 * event types, the protocol and schema detail types, and the payload type of
 * each error code's details (AgtErrorDetails, ResultErrorDetails), the framework tools' names
 * and the defaults a host seldom reads (the approval and legacy verdict
 * ttls). The root entry keeps what a host programs against (docs/README.md,
 * "Entry points").
 */
export { DEFAULT_APPROVAL_TTL_MS } from './bounds.js';
export { isToolErrorSignal, readToolError, toolErrorOf } from './errors.js';
export type {
  AgtErrorDetails,
  AnyAgtError,
  ConfigProblemDetail,
  OutputIssueDetail,
  ResultErrorCode,
  ResultErrorDetails,
} from './errors.js';
export type { BearerTokenProvider, McpOAuthProvider } from './mcp/auth/auth.js';
export { clientCapabilities } from './mcp/requests/client-handlers.js';
export type { InputMethod } from './mcp/requests/client-handlers.js';
export type {
  InputRetry,
  McpInputRequest,
  McpSkill,
  McpSkillFile,
  McpSkillListing,
  McpTask,
  McpTaskStarted,
  McpTaskStatus,
} from './mcp/connection-types.js';
export type { EraVerdict } from './mcp/settings/era.js';
export type { RawTool } from './mcp/requests/lists.js';
export type { ProbePhase, ProbedApp, ProbedList, ProbedSchemaError, ProbedTool } from './mcp/probe/prober.js';
export type { AppCsp, AppPermissions } from './mcp/apps/csp.js';
export type { AppResource } from './mcp/apps/app-resource.js';
export type { AppCallOptions } from './runtime/apps/app-run.js';
export type { ResultBudgetOptions } from './runtime/results/budget.js';
export type { ResultCut } from './runtime/types.js';
export type { AppContextUpdate } from './runtime/apps/app-context.js';
export type { AuthSetting } from './mcp/settings/settings.js';
export { loginState } from './mcp/auth/token-store.js';
export type { LoginState, StoredTokens, TokenStore } from './mcp/auth/token-store.js';
export { DEFAULT_LEGACY_VERDICT_MS } from './mcp/settings/verdicts.js';
export type { EraVerdictStore, StoredVerdict } from './mcp/settings/verdicts.js';
export type { PoolAuditSink, PoolEvent } from './pool/events.js';
export type { PoolClock, PoolKeyStats } from './pool/types.js';
export { checkExpectedRevision, expectedRevisionOf, revisionConflict } from './resources/conflict.js';
export type { ConflictTarget } from './resources/conflict.js';
export type { ResourceStore, ResourceWrite } from './resources/store.js';
export type { AuditQuery } from './runtime/audit/audit-store.js';
export type { BatchProblem, BatchRejectReason } from './runtime/pipeline/batch-check.js';
export type { ModelCall } from './runtime/model-calls.js';
export { RUN_FORMAT_VERSION } from './runtime/store/run-store.js';
export type { RunAnnouncement, RunListFilter, RunWatch, RunWrite, StoredRun } from './runtime/store/run-store.js';
export type { RunWatchGap, RunWatchOptions } from './runtime/store/run-watch.js';
export type { CallChange, CallIdentity, InFlightView, RefreshTrigger, RouteKind } from './runtime/types.js';
export type {
  ApprovalRequestedEvent,
  BatchFinishedEvent,
  BatchRejectedEvent,
  BatchStartedEvent,
  InputDecidedEvent,
  InputRequestedEvent,
  RefreshEvent,
  TaskFinishedEvent,
  TaskStartedEvent,
  ToolCallEvent,
  ToolsLoadedEvent,
  TraceContext,
} from './runtime/audit/audit-events.js';
export type { SchemaLoadReason, ValidateOptions, ValidationResult } from './schema/compile/compile.js';
export type { Dialect } from './schema/compile/dialects.js';
export type { CompiledToolSchema, SchemaPart, ToolSchemaRegistryOptions } from './schema/registry.js';
export { FRAMEWORK_TOOL_NAMES } from './framework/index.js';
export { TOOL_SEARCH } from './toolsearch/tool-index.js';
export { estimateToolTokens } from './toolsearch/tokens.js';
export type { SearchableTool } from './toolsearch/tokens.js';
export type { BatchRejection } from './runtime/pipeline/batch-check.js';
export type { BatchRunner } from './runtime/model-calls.js';
export type { RejectedBatch } from './runtime/run-batches.js';
export type { RecoveredCall, RecoverResult } from './runtime/pending/recover.js';
export type { InFlightCall } from './runtime/pending/in-flight.js';

export { renderSkills, SKILL_READ } from './skills/index.js';
export { oneLine, outsideText } from './outside-text.js';
export type { OutsideTextOptions } from './outside-text.js';
export type { SkillInfo, SkillText } from './skills/index.js';
export type {
  AgentSkillData,
  LegacySkillData,
  RevisionChange,
  RevisionService,
  WithRevisionOptions,
  WithRevisionResult,
} from './resources/index.js';
