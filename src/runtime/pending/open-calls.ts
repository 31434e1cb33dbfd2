/**
 * The open batches of a run and their pending calls, kept until the host
 * decides them with `run.decide` — in this process or, through the run
 * record of a RunStore, in another. A decision is checked whole before any
 * call is taken; a taken call cannot be taken again.
 */
import { AgtError } from '../../errors.js';
import { defined, isPlainObject } from '../../json.js';
import type { ApprovalDecision, InputDecision } from '../types.js';
import type { AnswerCheck } from './answers.js';
import type { StoredApproval, TakenApproval, TaskDecision } from './record.js';

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
    if (this.#batches.size === 0 || (batchId !== undefined && !this.#batches.has(batchId))) return []; // the usual case: nothing waits
    const batches = batchId === undefined ? [...this.#batches.values()] : [this.#batches.get(batchId)!];
    return batches.flatMap((b) => [...b.values()].sort((x, y) => x.index - y.index));
  }

  /**
   * Checks `decisions` against the open batch and takes the decided calls out
   * (at once, so a second decide of the same call cannot take it again). Any
   * problem throws before anything is taken: not_found for a batch with
   * nothing pending or a call that is not pending, invalid_input for a
   * malformed decision.
   */
  take(batchId: string, decisions: unknown, answers: AnswerCheck, tasks = false): TakenApproval[] {
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
      if ((approval.waitingFor === 'task') !== tasks)
        throw new AgtError(
          'invalid_input',
          tasks
            ? `call "${callId}" does not wait on a task: decide it with run.decide`
            : `call "${callId}" waits on its server's task: collect its result with run.collect, or cancel it with run.cancel`,
          { details: { batchId, callId } },
        );
      taken.push(
        approval.waitingFor === 'task'
          ? { approval: approval as StoredApproval & { waitingFor: 'task' }, decision: decision as TaskDecision }
          : approval.waitingFor === 'input'
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

  /** Replaces the record of a waiting call (a task's status as last seen), if it still waits. */
  update(approval: StoredApproval): void {
    const batch = this.#batches.get(approval.batchId);
    if (batch?.has(approval.callId)) batch.set(approval.callId, approval);
  }

  /** Forgets every pending approval (the run closed). */
  clear(): void {
    this.#batches.clear();
  }
}

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
