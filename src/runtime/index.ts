export { toolAlias } from './aliases.js';
export { policies } from './policies.js';
export type { AnnotationMatch, AutoAllowMatch } from './policies.js';
export { NativeRun } from './native-run.js';
export type { NativeRunOptions, SuspendedRun } from './run-options.js';
export type { ModelTool } from './model-tools.js';
export type { RunSnapshot } from './snapshot.js';
export { runAgentLoop } from './agent-loop.js';
export { executeModelCalls } from './model-calls.js';
export type { ModelCall, ModelCallsResult } from './model-calls.js';
export type { BatchProblem, BatchRejectReason } from './batch-check.js';
export type { AgentLoopOptions, LoopMessage, LoopOutcome, ModelLike } from './agent-loop.js';
export type {
  AfterHook,
  ApprovalDecision,
  ApprovalRequestedEvent,
  AuditEvent,
  AuditSink,
  TraceContext,
  BatchFinishedEvent,
  BatchRejectedEvent,
  BatchResult,
  BatchStartedEvent,
  BeforeHook,
  CallIdentity,
  RefreshEvent,
  RefreshTrigger,
  ToolCallEvent,
  DelegateTool,
  PendingApproval,
  PermissionDecision,
  PermissionPolicy,
  PermissionRequest,
  ProgressEvent,
  ResultError,
  ReviewContext,
  RouteKind,
  RunNotificationContext,
  RunRequestContext,
  ToolBatch,
  ToolCall,
  ToolResult,
  ToolsLoadedEvent,
} from './types.js';
export type { ToolSearchOptions } from './tool-search.js';
export { MemoryRunStore, RUN_FORMAT_VERSION } from './run-store.js';
export type { RunStore, RunWrite, StoredRun } from './run-store.js';
export { MemoryAuditStore, StoreAuditSink } from './audit-store.js';
export type { AuditQuery, AuditStore } from './audit-store.js';
export { DEFAULT_LIMITS } from './limits.js';
export { RESULT_STATUSES } from './types.js';
export type { ResultStatus } from './types.js';
export { DEFAULT_APPROVAL_TTL_MS } from './approvals.js';
export type { RunLimits } from './limits.js';
