/**
 * A waiting call, the one concept behind three reasons to wait: a policy
 * deferred it (an approval), its server asked questions the run defers (E4:
 * input), or its server runs it as a task the run defers (E6). As the run
 * keeps it and its run record stores it (JSON), and what hosts see of it.
 * The validated arguments and a server's `requestState` (verbatim, bounded)
 * are kept here and in the run record: the one place agt-mcp stores them
 * (docs/security.md); audit events never hold them.
 */
import { defined, isPlainObject } from '../../json.js';
import type { ToolAnnotations } from '../../mcp/requests/lists.js';
import { canonicalHash } from '../../schema/canonical.js';
import type { Route } from '../assembly/snapshot.js';
import { MAX_INPUT_REQUESTS, MAX_REQUEST_STATE_BYTES, MAX_TASK_ID_LENGTH } from '../../bounds.js';
import { isInputMethod } from '../../mcp/requests/client-handlers.js';
import type { ApprovalDecision, CallIdentity, InputDecision, PendingCall, ResultError, RouteKind, ToolResult } from '../types.js';
import type { McpInputRequest, McpTask } from '../../mcp/connection-types.js';

/**
 * What ends a call that waits on its task: the task's result (collected), or a cancel. A collect with `failure` ends
 * the call with that error, its task cancelled on the server: the run stopped reading it (E7: past MAX_INPUT_ROUNDS).
 */
export type TaskDecision = { collect: true; failure?: TaskFailure } | { cancel: true };

/** The error a collected call ends with when the run stopped reading its task. */
export type TaskFailure = ResultError;

// What every waiting call has: its identity and tool, the validated arguments, who let it through, when it began
// to wait and when it expires, and the tool as it was then.
interface WaitingBase {
  batchId: string;
  callId: string;
  /** Its position in the batch: decided results come back in call order. */
  index: number;
  tool: string;
  kind: RouteKind;
  mount?: string;
  remoteTool?: string;
  /** MCP Apps: an app's call, and the tool whose app made it (U3). */
  origin?: 'app';
  from?: string;
  annotations?: ToolAnnotations;
  arguments: Record<string, unknown>;
  reason?: string;
  /** Who deferred it (the policy's `by`), or who permitted the call that then waited. */
  by: string;
  deferredAt: string;
  expiresAt: string;
  /** The tool as it was when deferred (schemas and annotations): a changed tool ends the call as approval_stale. */
  toolHash: string;
}

/** A call a policy deferred (`{ decision: 'defer' }`): it has not run; run.decide approves or rejects it. */
export interface ApprovalWait extends WaitingBase {
  waitingFor: 'approval';
}

/** A call whose server asked `requests` (E4), at the top level or inside its task (`task`); run.decide answers it. */
export interface InputWait extends WaitingBase {
  waitingFor: 'input';
  requests: Record<string, McpInputRequest>;
  /** The server's state, verbatim (never parsed, never shown); echoed on the retry. */
  requestState?: string;
  /** Which round of questions (1 for the first). */
  round: number;
  /** The task the questions were asked in, as last seen: answered, the call waits on it again. */
  task?: McpTask;
}

/** A call its server runs as `task` (E6, `tasks: 'defer'`); run.collect ends it, run.cancel cancels it. */
export interface TaskWait extends WaitingBase {
  waitingFor: 'task';
  /** The task as last seen. */
  task: McpTask;
  /** The rounds of questions the task asked so far (answered inline or by the host). */
  round?: number;
}

/**
 * A waiting call as the run keeps it and its run record stores it (JSON), told apart by `waitingFor`. A record written
 * by 0.1 has no `waitingFor` for an approval: {@link readWaitingCall} reads it as one.
 */
export type WaitingCall = ApprovalWait | InputWait | TaskWait;

/** An approval as a run record holds it: without `waitingFor` as written (the form 0.1 reads), or with it. */
export type StoredApproval = Omit<ApprovalWait, 'waitingFor'> & { waitingFor?: 'approval' };

/** A waiting call as a run record holds it: {@link storedCall} writes it, {@link readWaitingCall} reads it back. */
export type StoredCall = StoredApproval | InputWait | TaskWait;

/**
 * A waiting call as suspend() writes it: an approval without `waitingFor`, as 0.1 wrote it — a 0.1 host refuses a
 * record whose approval has one (as tampered), so a fleet that mixes releases keeps resuming the records of either.
 */
export function storedCall(call: StoredCall): StoredCall {
  if (call.waitingFor !== 'approval') return call;
  const { waitingFor: _, ...stored } = call;
  return stored;
}

/** A call that waits: its record, for the run's open batch and its run record. */
export interface Waiting {
  deferred: WaitingCall;
}

/** What a decided call came to: its result, or it waits again (its server asked again, or runs it as a task). */
export type DecidedOutcome = ToolResult | Waiting;

/** A decided waiting call, taken out of the open batch, with the decision of its kind. */
export type TakenCall =
  | { approval: ApprovalWait; decision: ApprovalDecision }
  | { approval: InputWait; decision: InputDecision }
  | { approval: TaskWait; decision: TaskDecision };

/** Narrows a taken call by what it waited for (the decision's kind follows the call's). */
export function takenFor<K extends WaitingCall['waitingFor']>(
  t: TakenCall,
  kind: K,
): t is Extract<TakenCall, { approval: { waitingFor: K } }> {
  return t.approval.waitingFor === kind;
}

/** The hash of what a call was approved against: the route's compiled schemas and, for MCP tools, its server's hints and who may call it (MCP Apps visibility). */
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
          ...(route.ui === undefined ? {} : { visibility: [...route.ui.visibility].sort() }), // U1, U3: a tool made model- or app-only
        }
      : {}),
  });
}

/** The identity of a waiting call in audit events, from its record (its tool may be gone from the snapshot). */
export function waitingIdentity(a: WaitingCall, run: { runId: string; agent: string }): CallIdentity {
  return {
    runId: run.runId,
    agent: run.agent,
    batchId: a.batchId,
    callId: a.callId,
    tool: a.tool,
    kind: a.kind,
    ...defined({ mount: a.mount, remoteTool: a.remoteTool, origin: a.origin, from: a.from }),
  };
}

/** What hosts see of a waiting call: the arguments and questions are copies; the server's state is never shown. */
export function pendingView(a: WaitingCall): PendingCall {
  const base = {
    batchId: a.batchId,
    callId: a.callId,
    tool: a.tool,
    kind: a.kind,
    // A copy: a resumed run's annotations are its record's own (recover reads them, suspend writes them).
    ...defined({
      mount: a.mount,
      remoteTool: a.remoteTool,
      origin: a.origin,
      from: a.from,
      annotations: a.annotations && Object.freeze({ ...a.annotations }),
      reason: a.reason,
    }),
    arguments: structuredClone(a.arguments),
    deferredAt: a.deferredAt,
    expiresAt: a.expiresAt,
  };
  switch (a.waitingFor) {
    case 'approval':
      return Object.freeze({ ...base, waitingFor: a.waitingFor });
    case 'input':
      return Object.freeze({
        ...base,
        waitingFor: a.waitingFor,
        requests: structuredClone(a.requests),
        round: a.round,
        ...(a.task !== undefined ? { task: { ...a.task } } : {}),
      });
    case 'task':
      return Object.freeze({ ...base, waitingFor: a.waitingFor, task: { ...a.task } });
  }
}

/** True when the call can no longer be granted at `now` (ms since the epoch). */
export const isExpired = (a: WaitingCall, now: number): boolean => now >= Date.parse(a.expiresAt);

const KINDS: readonly string[] = ['mcp', 'framework', 'delegate'];
const optionalString = (v: unknown) => v === undefined || typeof v === 'string';
type Fields = Partial<Record<keyof ApprovalWait | keyof InputWait | keyof TaskWait, unknown>>;

/**
 * True for a waiting call as suspend() writes it — or as 0.1 wrote it (an approval without `waitingFor`): resume
 * checks every field it reads, and {@link readWaitingCall} reads the old form.
 */
export function isStoredCall(value: unknown): boolean {
  const a = value as Fields | null;
  return (
    isPlainObject(a) &&
    typeof a.batchId === 'string' &&
    typeof a.callId === 'string' &&
    Number.isInteger(a.index) &&
    typeof a.tool === 'string' &&
    KINDS.includes(a.kind as string) &&
    optionalString(a.mount) &&
    optionalString(a.remoteTool) &&
    (a.origin === undefined || a.origin === 'app') &&
    optionalString(a.from) &&
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
      a.waitingFor === 'approval' ||
      (a.waitingFor === 'input' && isStoredInput(a) && (a.task === undefined || isStoredTask(a.task))) ||
      (a.waitingFor === 'task' && isStoredTask(a.task) && (a.round === undefined || isRound(a.round))))
  );
}

/** A stored waiting call (checked by {@link isStoredCall}) as the run keeps it: a 0.1 approval gains `waitingFor`. */
export function readWaitingCall(stored: StoredCall): WaitingCall {
  if (stored.waitingFor === 'input' || stored.waitingFor === 'task' || isApproval(stored)) return stored;
  return { ...stored, waitingFor: 'approval' };
}

const isApproval = (stored: StoredApproval): stored is ApprovalWait => stored.waitingFor === 'approval';

const isRound = (round: unknown): boolean => Number.isInteger(round) && (round as number) >= 1;

// The questions and state of a call waiting for input, as suspend() writes them (the state bounded, never parsed).
function isStoredInput(a: Fields): boolean {
  const requests = a.requests;
  return (
    isPlainObject(requests) &&
    Object.keys(requests).length <= MAX_INPUT_REQUESTS && // E7: the bound on questions a round holds, read back too
    Object.values(requests).every((r) => isPlainObject(r) && isInputMethod(r.method) && isPlainObject(r.params)) &&
    (a.requestState === undefined ||
      (typeof a.requestState === 'string' && Buffer.byteLength(a.requestState) <= MAX_REQUEST_STATE_BYTES)) &&
    isRound(a.round)
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

/** True when `decision` is a decision of the kind `call` waits for (a stored in-flight record pairs them). */
export function decisionFits(call: WaitingCall, decision: unknown): boolean {
  if (!isPlainObject(decision)) return false;
  switch (call.waitingFor) {
    case 'approval':
      return typeof decision.approve === 'boolean';
    case 'input':
      return isPlainObject(decision.answers) || decision.decline === true;
    case 'task':
      return decision.collect === true || decision.cancel === true;
  }
}
