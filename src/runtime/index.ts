export { toolAlias } from './assembly/aliases.js';
export { policies } from './pipeline/policies.js';
export type { AnnotationMatch, AutoAllowMatch } from './pipeline/policies.js';
export { NativeRun } from './native-run.js';
export type { NativeRunOptions, SuspendedRun } from './run-options.js';
export type { ModelTool } from './model-tools.js';
export type { RunSnapshot } from './assembly/snapshot.js';
export { runAgentLoop } from './agent-loop.js';
export { executeModelCalls } from './model-calls.js';
export type { ModelCallsResult } from './model-calls.js';
export type { AgentLoopOptions, LoopMessage, LoopOutcome, ModelLike } from './agent-loop.js';
export type {
  AfterHook,
  ApprovalDecision,
  CallDecision,
  InputDecision,
  BatchResult,
  BeforeHook,
  DelegateTool,
  PendingCall,
  PermissionDecision,
  PermissionPolicy,
  PermissionRequest,
  ProgressEvent,
  ResultError,
  ReviewContext,
  RunNotificationContext,
  RunRequestContext,
  ToolBatch,
  ToolCall,
  ToolResult,
} from './types.js';
export type { AuditEvent, AuditSink } from './audit/audit-events.js';
export type { ToolSearchOptions } from './assembly/tool-search.js';
export { MemoryRunStore } from './store/memory-run-store.js';
export type { RunStore } from './store/run-store.js';
export { MemoryAuditStore, StoreAuditSink } from './audit/audit-store.js';
export type { AuditStore } from './audit/audit-store.js';
export { DEFAULT_LIMITS } from './limits.js';
export { RESULT_STATUSES } from './types.js';
export type { ResultStatus } from './types.js';
export { DEFAULT_APPROVAL_TTL_MS } from '../bounds.js';
export type { RunLimits } from './limits.js';
