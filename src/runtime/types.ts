/** The shapes that flow through a native run's batch pipeline (SPEC §7). */
import type { InputMethod } from '../mcp/requests/client-handlers.js';
import type { ToolAnnotations } from '../mcp/requests/lists.js';
import type { ResultError } from '../errors.js';

/** A result's error: one shape with ToolError's (declared in errors.ts, with RESULT_ERROR_CODES). */
export type { ResultError } from '../errors.js';

/** One tool call as the model produced it. */
export interface ToolCall {
  /** Its id (the model's tool call id), unique within the batch. */
  callId: string;
  /** An alias, a framework tool name or a delegate tool name. */
  name: string;
  /** A JSON string (as models send it) or an object. */
  arguments: string | Record<string, unknown>;
}

/** The calls of one model step. */
export interface ToolBatch {
  runId: string;
  agent: string;
  batchId: string;
  calls: ToolCall[];
}

/** What every result has: the id of the call it answers. */
interface ResultIds {
  /** The id of the call this result answers. */
  callId: string;
}

/** Every status a tool result has: `ok`, or why the call gave no result of its own (one list, like AGT_ERROR_CODES). */
export const RESULT_STATUSES = ['ok', 'invalid_arguments', 'permission_denied', 'tool_error', 'tool_failed', 'interrupted'] as const;

/** A tool result's status. */
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** The result of one call, in call order; goes back to the model with its call id. */
export type ToolResult =
  | (ResultIds & {
      status: 'ok';
      content: unknown[];
      structuredContent?: unknown;
      /** An MCP result's `_meta`, as the server sent it. */
      _meta?: Record<string, unknown>;
      /** MCP Apps (a run with `apps: true`): the tool has an interface to render with this result (run.readApp, agt-mcp/apps). */
      app?: { resourceUri: string; mount: string };
      /** B8: the result was over the run's result budget and reaches the model cut (see {@link ResultCut}). */
      cut?: ResultCut;
    })
  | (ResultIds & { status: Exclude<ResultStatus, 'ok' | 'tool_error'>; error: ResultError })
  /** The tool answered with an error: a listed code, or the tool's own (C4: `toolError('insufficient_funds', …)`). */
  | (ResultIds & { status: 'tool_error'; error: ResultError<string>; cut?: ResultCut });

/**
 * B8: a result cut at the run's result budget: the model was given its first `keptChars` characters (positions: other
 * parts count one each) of `totalChars`, with a notice; the rest is read with the run tool `result_read`.
 */
export interface ResultCut {
  keptChars: number;
  totalChars: number;
}

/**
 * A call that waits, with no result yet, told apart by `waitingFor` (narrowing on it needs no assertion).
 * `approval`: a policy deferred it (`{ decision: 'defer' }`, policies.approval) and it has not run; run.decide
 * approves or rejects it. `input`: it ran, and its 2026-07-28 server asked questions first (`requests`, by the
 * server's keys: an elicitation, sampling or roots request each) that the run defers (`elicitation: 'defer'` …);
 * run.decide answers them. `task`: its server runs it as a task the run defers (`tasks: 'defer'`, E6); run.collect
 * ends it, run.cancel cancels it. The arguments are the validated ones, for the host to show the person who decides.
 */
export type PendingCall = PendingCallBase &
  (
    | { waitingFor: 'approval' }
    | {
        waitingFor: 'input';
        /** The server's questions (masked). A URL elicitation's URL is for the host to show a person, never for the model. */
        requests: Readonly<Record<string, { method: InputMethod; params: Readonly<Record<string, unknown>> }>>;
        /** Which round of questions this is (1 for the first). */
        round: number;
        /** The task the questions were asked in, if any (answered, the call waits on it again). */
        task?: PendingTask;
      }
    | {
        waitingFor: 'task';
        /** The task its server runs it as (id and status, as last seen; never the server's internal fields). */
        task: PendingTask;
      }
  );

/** A waiting call's task, as last seen. */
type PendingTask = Readonly<{ id: string; status: string; statusMessage?: string; pollIntervalMs?: number; ttlMs?: number | null }>;

/** What every waiting call shows, whatever it waits for. */
interface PendingCallBase extends Omit<CallIdentity, 'runId' | 'agent'> {
  annotations?: Readonly<ToolAnnotations>;
  arguments: Readonly<Record<string, unknown>>;
  /** approval: why the policy deferred it (its own words). */
  reason?: string;
  /** ISO 8601: when it began to wait, and when it expires (approvalTtlMs; a task: its TTL); past it, it ends as permission_denied. */
  deferredAt: string;
  expiresAt: string;
}

/**
 * A decided call in flight (issue 51): as it waited, with the host process that runs it and that host's lease. A
 * lease that ran out means the host died mid-call: `run.recover()` reruns or ends the call.
 */
export type InFlightView = PendingCall & {
  /** The host process running it: host name, process id and a random part. */
  host: string;
  /** ISO 8601: when it was decided, and when its host's lease runs out. */
  decidedAt: string;
  leaseUntil: string;
};

/** A host's answer to one pending approval. */
export type ApprovalDecision = { approve: true } | { approve: false; reason?: string };

/**
 * A host's answer to a call waiting for input: `answers` by question key — an
 * elicitation's content (valid for its requestedSchema; any value accepts a
 * URL elicitation), a sampling request's CreateMessageResult, a roots list —
 * or `decline` (elicitations are declined to the server; a call that asked
 * anything else ends as permission_denied).
 */
export type InputDecision = { answers: Record<string, unknown> } | { decline: true; reason?: string };

/** A host's decision on a pending call: an approval's, or an answer to a call's questions. */
export type CallDecision = ApprovalDecision | InputDecision;

/** The outcome of a batch, including the refresh that followed it (F1). */
export interface BatchResult {
  /** One per call that ended, in call order; a deferred call has none until it is decided. */
  results: ToolResult[];
  /** Calls waiting for an approval (`run.decide`); the batch stays open while there are any. */
  pending?: PendingCall[];
  /** `trigger`: the run's own framework change (F1), a mounted server's list_changed, or a pooled server that died (`reconnect`). */
  refresh?: { status: 'applied' | 'failed'; message: string; trigger: RefreshTrigger };
  /** Tool search: the tools this boundary loaded (found by tool_search in this batch) and unloaded past `maxLoadedTools`. */
  toolsLoaded?: { loaded: string[]; unloaded: string[]; message: string };
  /**
   * `run.decide` only: another host decided these calls first, and these are its results as the run record keeps
   * them (`decidedRetentionMs`); nothing ran here. Give them to the model only if that host did not.
   */
  decidedElsewhere?: true;
}

/** What made a batch boundary refresh. */
export type RefreshTrigger = 'framework_change' | 'list_changed' | 'reconnect';

/** Where a call goes. */
export type RouteKind = 'mcp' | 'framework' | 'delegate';

/** Which call of which batch of which run, and where it goes: named alike in permission requests and audit events. */
export interface CallIdentity {
  runId: string;
  agent: string;
  batchId: string;
  callId: string;
  /** The name the model used (alias, framework or delegate tool name). */
  tool: string;
  kind: RouteKind;
  /** For MCP calls: the mounted resource and the server's own tool name. */
  mount?: string;
  remoteTool?: string;
  /** MCP Apps (U3): `'app'` for a call an app made (run.callFromApp); absent for the model's calls. */
  origin?: 'app';
  /** For an app's call: the run's name of the tool whose app made it. */
  from?: string;
}

/** What a permission policy is asked to decide. Arguments are included for the decider; audits never hold them. */
export interface PermissionRequest extends CallIdentity {
  /**
   * For MCP calls: the server's behaviour hints (readOnlyHint, destructiveHint,
   * idempotentHint, openWorldHint), as declared. Untrusted unless you trust the server.
   */
  annotations?: Readonly<ToolAnnotations>;
  /** The validated arguments (frozen). */
  arguments: Readonly<Record<string, unknown>>;
}

/** What a policy or hook is told besides the request. */
export interface ReviewContext {
  /** Aborted when the run or the batch is cancelled: stop asking, the call ends as cancelled. */
  signal: AbortSignal;
}

/**
 * A policy's verdict. `abstain` passes the decision on (see policies.chain);
 * `defer` leaves the call pending until the host decides it (run.decide), in
 * this process or another.
 */
export interface PermissionDecision {
  decision: 'allow' | 'deny' | 'abstain' | 'defer';
  by: 'auto' | 'human' | 'model' | 'policy';
  reason?: string;
}

/**
 * Decides whether a validated call may run (G4). `review` is called once per
 * valid call, after argument validation and before any hook; never for an
 * invalid call (B4). It may be slow (a human); calls of a batch are reviewed
 * concurrently up to the run's concurrency. A throw counts as deny.
 */
export interface PermissionPolicy {
  review(request: PermissionRequest, context?: ReviewContext): Promise<PermissionDecision>;
}

/** Runs after permission, before execution; may deny, never changes arguments. */
export type BeforeHook = (call: PermissionRequest) => void | { deny: string } | Promise<void | { deny: string }>;

/** Runs after execution; observes, and may replace (redact) the result's content. */
export type AfterHook = (
  call: PermissionRequest,
  result: ToolResult,
) => void | { content: unknown[] } | Promise<void | { content: unknown[] }>;

/** A host's delegate tool: hands a task to one of a fixed set of agents (B7). */
export interface DelegateTool {
  name: string;
  description?: string;
  /** The agents this tool may hand work to; anything else rejects the batch. */
  targets: string[];
  /**
   * Does the work; its return value is the tool result's text, or an MCP tool
   * result (with `isError`: the call's tool_error). `signal` aborts when the run or batch is cancelled.
   */
  handler(
    input: { agent: string; task: string; context?: string },
    meta: { runId: string; from: string; callId: string; signal: AbortSignal },
  ): Promise<string | { content: unknown[] }>;
}

/** Progress a server reported for one call of a run. */
export interface ProgressEvent {
  runId: string;
  /** The call the progress is for. */
  callId: string;
  /** The name the model used. */
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

/** What a run's elicitation or sampling handler is told about the request. */
export interface RunRequestContext {
  runId: string;
  agent: string;
  /** The mounted server that asked. */
  mount: string;
  /** The run's calls in flight on that server when it asked (the one that asked is among them). */
  callIds: string[];
  /** Aborted when the server cancels its request or the connection closes. */
  signal: AbortSignal;
}

/** What a run's notification hooks (onLog, onResourceUpdated, onElicitationComplete) are told: which run and mount it came from. */
export interface RunNotificationContext {
  runId: string;
  agent: string;
  /** The mounted server that sent it. */
  mount: string;
}

/**
 * What a write did to one call: `waiting` (it waits for a decision: approval or answers), `decided` (a host took its
 * decision; if it runs, it is in flight now), `ended` (a decided call ended on its host), `interrupted` (recover()
 * ended a call whose host died).
 */
export interface CallChange {
  change: 'waiting' | 'decided' | 'ended' | 'interrupted';
  batchId: string;
  callId: string;
}
