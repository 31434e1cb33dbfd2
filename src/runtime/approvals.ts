/**
 * Pending calls: the calls a policy deferred (`{ decision: 'defer' }`) and
 * the calls whose server asked questions the run defers (E4), kept per open
 * batch until the host decides them with `run.decide`, in this process or —
 * through the run record of a RunStore — in another. The validated arguments
 * and a server's `requestState` (verbatim, bounded) are kept here and in the
 * run record: the one place agt-mcp stores them (docs/security.md); audit
 * events never hold them.
 */
import { AgtError } from '../errors.js';
import { defined, isPlainObject } from '../json.js';
import type { ToolAnnotations } from '../mcp/lists.js';
import { canonicalHash } from '../schema/canonical.js';
import type { Route } from './snapshot.js';
import { MAX_REQUEST_STATE_BYTES } from '../bounds.js';
import { INPUT_METHODS } from '../mcp/client-handlers.js';
import type { McpInputRequest } from '../mcp/connection-types.js';
import type { ApprovalDecision, InputDecision, PendingCall, RouteKind } from './types.js';

/** How long a deferred call waits by default before it can only be denied: 24 hours. */
export { DEFAULT_APPROVAL_TTL_MS } from '../bounds.js';

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
  /** Absent: an approval. `input`: the call ran and its server asked `requests` (E4). */
  waitingFor?: 'input';
  requests?: Record<string, McpInputRequest>;
  /** The server's state, verbatim (never parsed, never shown); echoed on the retry. */
  requestState?: string;
  /** Which round of questions (1 for the first). */
  round?: number;
}

/** A decided pending call, taken out of the open batch. */
export type TakenApproval =
  | { approval: StoredApproval; decision: ApprovalDecision }
  | { approval: StoredApproval & { waitingFor: 'input' }; decision: InputDecision };

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
    arguments: structuredClone(a.arguments),
    deferredAt: a.deferredAt,
    expiresAt: a.expiresAt,
  });
}

/** True when the approval can no longer be granted at `now` (ms since the epoch). */
export const isExpired = (a: StoredApproval, now: number): boolean => now >= Date.parse(a.expiresAt);

/** The open batches of a run and their pending approvals. */
export class OpenApprovals {
  readonly #batches = new Map<string, Map<string, StoredApproval>>();

  /** Keeps a deferred call. */
  add(approval: StoredApproval): void {
    const batch = this.#batches.get(approval.batchId) ?? this.#batches.set(approval.batchId, new Map()).get(approval.batchId)!;
    batch.set(approval.callId, approval);
  }

  /** The pending approvals (of one batch), in batch and call order. */
  list(batchId?: string): StoredApproval[] {
    const batches = batchId === undefined ? [...this.#batches.values()] : [this.#batches.get(batchId) ?? new Map()];
    return batches.flatMap((b) => [...b.values()].sort((x, y) => x.index - y.index));
  }

  /**
   * Checks `decisions` against the open batch and takes the decided calls out
   * (at once, so a second decide of the same call cannot take it again). Any
   * problem throws before anything is taken: not_found for a batch with
   * nothing pending or a call that is not pending, invalid_input for a
   * malformed decision.
   */
  take(batchId: string, decisions: unknown, answers: AnswerCheck): TakenApproval[] {
    const batch = typeof batchId === 'string' ? this.#batches.get(batchId) : undefined;
    if (batch === undefined)
      throw new AgtError(
        'not_found',
        `batch "${String(batchId)}" has no pending approvals in this run (decided already, or never deferred)`,
        {
          details: { batchId },
        },
      );
    if (!isPlainObject(decisions) || Object.keys(decisions).length === 0)
      throw new AgtError(
        'invalid_input',
        'decide needs { [callId]: { approve: true } | { approve: false, reason? } | { answers } | { decline: true } } for at least one pending call',
      );
    const taken: TakenApproval[] = [];
    for (const [callId, decision] of Object.entries(decisions)) {
      const approval = batch.get(callId);
      if (approval === undefined)
        throw new AgtError('not_found', `call "${callId}" of batch "${batchId}" is not pending (decided already, or never deferred)`, {
          details: { batchId, callId },
        });
      taken.push(
        approval.waitingFor === 'input'
          ? { approval: approval as StoredApproval & { waitingFor: 'input' }, decision: checkInputDecision(approval, decision, answers) }
          : { approval, decision: checkDecision(callId, decision) },
      );
    }
    for (const { approval } of taken) batch.delete(approval.callId);
    if (batch.size === 0) this.#batches.delete(batchId);
    return taken.sort((x, y) => x.approval.index - y.approval.index);
  }

  /** Puts taken approvals back (their decision could not be recorded). */
  restore(taken: readonly TakenApproval[]): void {
    for (const { approval } of taken) this.add(approval);
  }

  /** Forgets every pending approval (the run closed). */
  clear(): void {
    this.#batches.clear();
  }
}

/** Checks the answers to a call's questions before anything is taken or sent (answers.ts). */
export type AnswerCheck = (approval: Pick<StoredApproval, 'callId' | 'requests'>, answers: Record<string, unknown>) => void;

function checkInputDecision(approval: StoredApproval, decision: unknown, check: AnswerCheck): InputDecision {
  const d = decision as { answers?: unknown; decline?: unknown; reason?: unknown } | null;
  if (isPlainObject(d) && d.decline === true && (d.reason === undefined || typeof d.reason === 'string'))
    return { decline: true, ...defined({ reason: d.reason as string | undefined }) };
  if (!isPlainObject(d) || !isPlainObject(d.answers))
    throw new AgtError(
      'invalid_input',
      `call "${approval.callId}" waits for input: decide it with { answers: { [question key]: answer } } or { decline: true, reason? }`,
      { details: { callId: approval.callId } },
    );
  check(approval, d.answers);
  return { answers: d.answers };
}

function checkDecision(callId: string, decision: unknown): ApprovalDecision {
  const d = decision as { approve?: unknown; reason?: unknown } | null;
  if (!isPlainObject(d) || typeof d.approve !== 'boolean' || (d.reason !== undefined && typeof d.reason !== 'string'))
    throw new AgtError(
      'invalid_input',
      `the decision for call "${callId}" must be { approve: true } or { approve: false, reason?: string }`,
      {
        details: { callId },
      },
    );
  return d.approve ? { approve: true } : { approve: false, ...defined({ reason: d.reason as string | undefined }) };
}

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
    (a.waitingFor === undefined || (a.waitingFor === 'input' && isStoredInput(a)))
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
