/**
 * The open batches of a run and their pending calls, kept until the host
 * decides them with `run.decide` — in this process or, through the run
 * record of a RunStore, in another. A decision is checked whole before any
 * call is taken; a taken call cannot be taken again.
 */
import { AgtError, RESULT_ERROR_CODES } from '../../errors.js';
import { defined, isPlainObject, jsonCopy } from '../../json.js';
import type { ApprovalDecision, InputDecision } from '../types.js';
import type { AnswerCheck } from './answers.js';
import type { TakenCall, TaskDecision, TaskFailure, WaitingCall } from './waiting-call.js';

/** The open batches of a run and their waiting calls. */
export class OpenCalls {
  readonly #batches = new Map<string, Map<string, WaitingCall>>();

  /** Keeps a waiting call. */
  add(approval: WaitingCall): void {
    const batch = this.#batches.get(approval.batchId) ?? this.#batches.set(approval.batchId, new Map()).get(approval.batchId)!;
    batch.set(approval.callId, approval);
  }

  /** The waiting calls (of one batch), in batch and call order. */
  list(batchId?: string): WaitingCall[] {
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
  take(batchId: string, decisions: unknown, answers: AnswerCheck, tasks = false): TakenCall[] {
    const batch = typeof batchId === 'string' ? this.#batches.get(batchId) : undefined;
    if (batch === undefined)
      throw new AgtError(
        'not_found',
        `batch "${String(batchId)}" has no waiting calls in this run (decided or collected already, or none waited)`,
        {
          details: { batchId },
        },
      );
    if (!isPlainObject(decisions) || Object.keys(decisions).length === 0)
      throw new AgtError(
        'invalid_input',
        'decide needs { [callId]: { approve: true } | { approve: false, reason? } | { answers } | { decline: true } } for at least one pending call',
      );
    const taken: TakenCall[] = [];
    for (const [callId, decision] of Object.entries(decisions)) {
      const approval = batch.get(callId);
      if (approval === undefined) {
        // run.cancel speaks of a task call's wait, run.decide of an approval's.
        const why = tasks
          ? 'is not waiting (collected or cancelled already, or it never waited on a task)'
          : 'is not pending (decided already, or never deferred)';
        throw new AgtError('not_found', `call "${callId}" of batch "${batchId}" ${why}`, { details: { batchId, callId } });
      }
      if ((approval.waitingFor === 'task') !== tasks)
        throw new AgtError(
          'invalid_input',
          tasks
            ? `call "${callId}" does not wait on a task: decide it with run.decide`
            : `call "${callId}" waits on its server's task: collect its result with run.collect, or cancel it with run.cancel`,
          { details: { batchId, callId } },
        );
      taken.push(takeOne(approval, decision, answers));
    }
    for (const { approval } of taken) batch.delete(approval.callId);
    if (batch.size === 0) this.#batches.delete(batchId);
    return taken.sort((x, y) => x.approval.index - y.approval.index);
  }

  /** Puts taken calls back (their decision could not be recorded). */
  restore(taken: readonly TakenCall[]): void {
    for (const { approval } of taken) this.add(approval);
  }

  /** Replaces the record of a waiting call (a task's status as last seen), if it still waits. */
  update(approval: WaitingCall): void {
    const batch = this.#batches.get(approval.batchId);
    if (batch?.has(approval.callId)) batch.set(approval.callId, approval);
  }

  /** Takes a waiting call out with no decision (its server ended its task); false when it no longer waits. */
  remove(ids: { batchId: string; callId: string }): boolean {
    const batch = this.#batches.get(ids.batchId);
    if (batch?.delete(ids.callId) !== true) return false;
    if (batch.size === 0) this.#batches.delete(ids.batchId);
    return true;
  }

  /** Forgets every waiting call (the run closed). */
  clear(): void {
    this.#batches.clear();
  }
}

// A waiting call with the decision of its kind, checked (invalid_input names the fix, never a value).
function takeOne(call: WaitingCall, decision: unknown, answers: AnswerCheck): TakenCall {
  switch (call.waitingFor) {
    case 'approval':
      return { approval: call, decision: checkDecision(call.callId, decision) };
    case 'input':
      return { approval: call, decision: checkInputDecision(call, decision, answers) };
    case 'task':
      return { approval: call, decision: checkTaskDecision(call.callId, decision) };
  }
}

// What ends a task call comes from the run itself (collect, cancel), never from a host's decide: checked all the same.
function checkTaskDecision(callId: string, decision: unknown): TaskDecision {
  if (isPlainObject(decision) && decision.cancel === true) return { cancel: true };
  if (isPlainObject(decision) && decision.collect === true)
    return isTaskFailure(decision.failure) ? { collect: true, failure: decision.failure } : { collect: true };
  throw new AgtError(
    'invalid_input',
    `call "${callId}" waits on its server's task: collect its result with run.collect, or cancel it with run.cancel`,
    { details: { callId } },
  );
}

const CODES: ReadonlySet<unknown> = new Set(RESULT_ERROR_CODES);
const isTaskFailure = (value: unknown): value is TaskFailure =>
  isPlainObject(value) && CODES.has(value.code) && typeof value.message === 'string';

// Each field of a host's decision is read once, and its answers copied before they are checked (E4): what was
// checked is what is stored and sent, whatever the host's object (a getter, a form reset after submit) does later.
function checkInputDecision(approval: WaitingCall, decision: unknown, check: AnswerCheck): InputDecision {
  const d = isPlainObject(decision) ? decision : {};
  const [answers, decline, reason] = [d.answers, d.decline, d.reason];
  if (decline === true && (reason === undefined || typeof reason === 'string')) return { decline: true, ...defined({ reason }) };
  const usage = () =>
    new AgtError(
      'invalid_input',
      `call "${approval.callId}" waits for input: decide it with { answers: { [question key]: answer } } or { decline: true, reason? }`,
      { details: { callId: approval.callId } },
    );
  if (!isPlainObject(answers)) throw usage();
  check(approval, answers); // bounded and valid as given: a copy of them as JSON cannot run away
  const copy = jsonCopy(answers);
  if (!isPlainObject(copy)) throw usage();
  check(approval, copy); // the copy is what is stored and sent, so it is what must be valid
  return { answers: copy };
}

function checkDecision(callId: string, decision: unknown): ApprovalDecision {
  const d = isPlainObject(decision) ? decision : {};
  const [approve, reason] = [d.approve, d.reason];
  if (typeof approve !== 'boolean' || (reason !== undefined && typeof reason !== 'string'))
    throw new AgtError(
      'invalid_input',
      `the decision for call "${callId}" must be { approve: true } or { approve: false, reason?: string }`,
      {
        details: { callId },
      },
    );
  return approve ? { approve: true } : { approve: false, ...defined({ reason }) };
}
