/**
 * The audit events of a run (SPEC §7): one `tool_call` per call, the batch's
 * start, end or rejection, refreshes, tools loaded by tool search, and the
 * calls that wait (`approval_requested`, `input_requested`, `input_decided`,
 * `task_started`, `task_finished`).
 * None holds an argument or env value; an AuditSink receives them in order.
 */
import type { InputMethod } from '../../mcp/requests/client-handlers.js';
import type { CallIdentity, RefreshTrigger, ResultCut, ToolResult } from '../types.js';

/** What every audit event has. Events may grow new fields in later versions; each is listed in its type. */
interface AuditBase {
  /** ISO 8601. */
  at: string;
  runId: string;
  agent: string;
}

/** One call through the pipeline, whatever its outcome. */
export interface ToolCallEvent extends AuditBase, CallIdentity {
  type: 'tool_call';
  status: ToolResult['status'];
  /** The error code of a failed call. */
  code?: string;
  /** Who allowed or denied it (auto, human, model, policy, hook). */
  decidedBy?: string;
  /** For output_invalid: where the structured result broke its schema (paths, no values). */
  outputIssues?: { instancePath: string; keyword: string }[];
  /** B8: the result was cut at the run's result budget (sizes only, never content). */
  cut?: ResultCut;
  durationMs: number;
}

/** A policy deferred a call: it waits for `run.decide` (its end is a later tool_call event). */
export interface ApprovalRequestedEvent extends AuditBase, CallIdentity {
  type: 'approval_requested';
  decidedBy: string;
  expiresAt: string;
}

/** A batch passed stage 1 and its calls start. */
export interface BatchStartedEvent extends AuditBase {
  type: 'batch_started';
  batchId: string;
  calls: number;
}

/** A batch's calls all ended (before the refresh, if any). */
export interface BatchFinishedEvent extends AuditBase {
  type: 'batch_finished';
  batchId: string;
  calls: number;
  failed: number;
  durationMs: number;
}

/** A batch rejected in stage 1 (B6); nothing ran. */
export interface BatchRejectedEvent extends AuditBase {
  type: 'batch_rejected';
  /** As sent (it may be what made the batch invalid). */
  batchId: unknown;
  reason: unknown;
}

/** A refresh at a batch boundary (F1–F4). */
export interface RefreshEvent extends AuditBase {
  type: 'refresh';
  trigger: RefreshTrigger;
  status: 'applied' | 'failed';
  message: string;
  durationMs: number;
  mounts?: string[];
  fingerprint?: string;
  code?: string;
}

/** Tools loaded by tool_search at a batch boundary, and those unloaded past `maxLoadedTools` (issue 27). */
export interface ToolsLoadedEvent extends AuditBase {
  type: 'tools_loaded';
  batchId: string;
  loaded: string[];
  unloaded: string[];
}

/** One audit event, by `type`. Never holds argument or env values. */
/** A call's server asked questions the run defers: the call waits (`waitingFor: 'input'`). Keys and methods only. */
export interface InputRequestedEvent extends AuditBase, CallIdentity {
  type: 'input_requested';
  /** The questions' keys and methods, never their text. */
  requests: { key: string; method: InputMethod }[];
  round: number;
  expiresAt: string;
}

/** A host answered or declined a call's questions (run.decide); the retry's own tool_call event follows. Keys only. */
export interface InputDecidedEvent extends AuditBase, CallIdentity {
  type: 'input_decided';
  decision: 'answered' | 'declined';
  keys: string[];
  round: number;
}

/** A call's server runs it as a task the run defers: the call waits (`waitingFor: 'task'`). Ids and status only. */
export interface TaskStartedEvent extends AuditBase, CallIdentity {
  type: 'task_started';
  taskId: string;
  status: string;
}

/** A deferred task's call ended (collected, cancelled, or its task lost); the call's own tool_call event follows. */
export interface TaskFinishedEvent extends AuditBase, CallIdentity {
  type: 'task_finished';
  taskId: string;
  status: string;
}

/** Every event a run records (`type` tells them apart); none holds an argument or env value. */
export type AuditEvent =
  | ToolCallEvent
  | ApprovalRequestedEvent
  | InputRequestedEvent
  | InputDecidedEvent
  | TaskStartedEvent
  | TaskFinishedEvent
  | BatchStartedEvent
  | BatchFinishedEvent
  | BatchRejectedEvent
  | RefreshEvent
  | ToolsLoadedEvent;

/** Receives audit events; called in order, awaited, errors ignored. */
export interface AuditSink {
  record(event: AuditEvent): void | Promise<void>;
  /**
   * The W3C trace context the MCP calls of a batch carry in their `_meta`
   * (`traceparent`, `tracestate`), so a server's spans join the host's trace.
   * Asked as each call is sent, after `batch_started` was recorded; undefined:
   * nothing is added. Optional (agt-mcp/otel's sink gives its batch span's).
   */
  traceContext?(batch: { runId: string; batchId: string }): TraceContext | undefined;
}

/** A W3C trace context as MCP 2026-07-28 carries it in a request's `_meta`. */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}
