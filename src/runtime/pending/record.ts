/**
 * The record of a pending call: a call a policy deferred (`{ decision:
 * 'defer' }`) or whose server asked questions the run defers (E4), as the run
 * keeps it and its run record stores it (JSON), and what hosts see of it.
 * The validated arguments and a server's `requestState` (verbatim, bounded)
 * are kept here and in the run record: the one place agt-mcp stores them
 * (docs/security.md); audit events never hold them.
 */
import { defined, isPlainObject } from '../../json.js';
import type { ToolAnnotations } from '../../mcp/lists.js';
import { canonicalHash } from '../../schema/canonical.js';
import type { Route } from '../snapshot.js';
import { MAX_REQUEST_STATE_BYTES, MAX_TASK_ID_LENGTH } from '../../bounds.js';
import { INPUT_METHODS } from '../../mcp/client-handlers.js';
import type { McpInputRequest } from '../../mcp/connection-types.js';
import type { ApprovalDecision, CallIdentity, InputDecision, PendingCall, RouteKind } from '../types.js';
import type { McpTask } from '../../mcp/connection-types.js';

/**
 * What ends a call that waits on its task: the task's result (collected), or a cancel. A collect with `failure` ends
 * the call with that error, its task cancelled on the server: the run stopped reading it (E7: past MAX_INPUT_ROUNDS).
 */
export type TaskDecision = { collect: true; failure?: TaskFailure } | { cancel: true };

/** The error a collected call ends with when the run stopped reading its task. */
export interface TaskFailure {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** How long a deferred call waits by default before it can only be denied: 24 hours. */
export { DEFAULT_APPROVAL_TTL_MS } from '../../bounds.js';

/** A deferred call as the run keeps it, and as the run record stores it (JSON). */
export interface StoredApproval {
  batchId: string;
  callId: string;
  /** Its position in the batch: decided results come back in call order. */
  index: number;
  tool: string;
  kind: RouteKind;
  mount?: string;
  remoteTool?: string;
  annotations?: ToolAnnotations;
  arguments: Record<string, unknown>;
  reason?: string;
  /** Who deferred it (the policy's `by`). */
  by: string;
  deferredAt: string;
  expiresAt: string;
  /** The tool as it was when deferred (schemas and annotations): a changed tool ends the call as approval_stale. */
  toolHash: string;
  /** Absent: an approval. `input`: the call ran and its server asked `requests` (E4). `task`: its server runs it as `task` (E6). */
  waitingFor?: 'input' | 'task';
  /** The task a call waits on (`waitingFor: 'task'`, or `input` asked inside it), as last seen; run.collect ends it. */
  task?: McpTask;
  requests?: Record<string, McpInputRequest>;
  /** The server's state, verbatim (never parsed, never shown); echoed on the retry. */
  requestState?: string;
  /** Which round of questions (1 for the first). */
  round?: number;
}

/** A decided pending call, taken out of the open batch. */
export type TakenApproval =
  | { approval: StoredApproval; decision: ApprovalDecision }
  | { approval: StoredApproval & { waitingFor: 'input' }; decision: InputDecision }
  | { approval: StoredApproval & { waitingFor: 'task' }; decision: TaskDecision };

/** The hash of what a call was approved against: the route's compiled schemas and, for MCP tools, its server's hints. */
export function toolHashOf(route: Route): string {
  return canonicalHash({
    kind: route.kind,
    input: route.validator.hash,
    ...(route.kind === 'mcp'
      ? {
          mount: route.mount,
          remoteTool: route.remoteTool,
          output: route.outputValidator?.hash ?? null,
          annotations: route.annotations ?? null,
        }
      : {}),
  });
}

/** The identity of a waiting call in audit events, from its record (its tool may be gone from the snapshot). */
export function approvalIdentity(a: StoredApproval, run: { runId: string; agent: string }): CallIdentity {
  return {
    runId: run.runId,
    agent: run.agent,
    batchId: a.batchId,
    callId: a.callId,
    tool: a.tool,
    kind: a.kind,
    ...defined({ mount: a.mount, remoteTool: a.remoteTool }),
  };
}

/** What hosts see of a pending call: the arguments and questions are copies; the server's state is never shown. */
export function pendingView(a: StoredApproval): PendingCall {
  return Object.freeze({
    batchId: a.batchId,
    callId: a.callId,
    tool: a.tool,
    kind: a.kind,
    waitingFor: a.waitingFor ?? 'approval',
    ...defined({ mount: a.mount, remoteTool: a.remoteTool, annotations: a.annotations, reason: a.reason }),
    ...(a.waitingFor === 'input' ? { requests: structuredClone(a.requests ?? {}), round: a.round ?? 1 } : {}),
    ...(a.task !== undefined ? { task: { ...a.task } } : {}),
    arguments: structuredClone(a.arguments),
    deferredAt: a.deferredAt,
    expiresAt: a.expiresAt,
  });
}

/** True when the approval can no longer be granted at `now` (ms since the epoch). */
export const isExpired = (a: StoredApproval, now: number): boolean => now >= Date.parse(a.expiresAt);

const KINDS: readonly string[] = ['mcp', 'framework', 'delegate'];
const optionalString = (v: unknown) => v === undefined || typeof v === 'string';

/** True for a stored approval as suspend() writes it (resume checks every field it reads). */
export function isStoredApproval(value: unknown): value is StoredApproval {
  const a = value as Partial<Record<keyof StoredApproval, unknown>> | null;
  return (
    isPlainObject(a) &&
    typeof a.batchId === 'string' &&
    typeof a.callId === 'string' &&
    Number.isInteger(a.index) &&
    typeof a.tool === 'string' &&
    KINDS.includes(a.kind as string) &&
    optionalString(a.mount) &&
    optionalString(a.remoteTool) &&
    optionalString(a.reason) &&
    (a.annotations === undefined || isPlainObject(a.annotations)) &&
    isPlainObject(a.arguments) &&
    typeof a.by === 'string' &&
    typeof a.toolHash === 'string' &&
    typeof a.deferredAt === 'string' &&
    !Number.isNaN(Date.parse(a.deferredAt)) &&
    typeof a.expiresAt === 'string' &&
    !Number.isNaN(Date.parse(a.expiresAt)) &&
    (a.waitingFor === undefined ||
      (a.waitingFor === 'input' && isStoredInput(a) && (a.task === undefined || isStoredTask(a.task))) ||
      (a.waitingFor === 'task' && isStoredTask(a.task)))
  );
}

// The questions and state of a call waiting for input, as suspend() writes them (the state bounded, never parsed).
function isStoredInput(a: Partial<Record<keyof StoredApproval, unknown>>): boolean {
  const requests = a.requests;
  return (
    isPlainObject(requests) &&
    Object.values(requests).every((r) => isPlainObject(r) && INPUT_METHODS.includes(r.method as never) && isPlainObject(r.params)) &&
    (a.requestState === undefined ||
      (typeof a.requestState === 'string' && Buffer.byteLength(a.requestState) <= MAX_REQUEST_STATE_BYTES)) &&
    Number.isInteger(a.round) &&
    (a.round as number) >= 1
  );
}

const TASK_STATUSES: readonly string[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

// The handle of a call waiting on its task, as suspend() writes it.
function isStoredTask(task: unknown): boolean {
  return (
    isPlainObject(task) &&
    typeof task.id === 'string' &&
    task.id !== '' &&
    task.id.length <= MAX_TASK_ID_LENGTH &&
    TASK_STATUSES.includes(task.status as string) &&
    (task.statusMessage === undefined || typeof task.statusMessage === 'string') &&
    (task.pollIntervalMs === undefined || typeof task.pollIntervalMs === 'number') &&
    (task.ttlMs === undefined || task.ttlMs === null || typeof task.ttlMs === 'number')
  );
}
