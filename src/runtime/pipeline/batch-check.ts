/**
 * Stage 1, the whole batch (B6): identity, batch id, call ids, tool names and
 * delegation targets. Every problem is returned as data (a BatchRejection):
 * `executeBatch` throws it as `batch_rejected` (`details.reason` naming the
 * first cause, `details.problems` all of them) before anything runs;
 * `executeModelCalls` turns the same data into per-call results, with no throw
 * in between. Each call's arguments are read here, once (stage 2 validates
 * what was read).
 */
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { closestNames } from '../../tool-names.js';
import { outsideText } from '../../outside-text.js';
import { MAX_NAME_LENGTH } from '../../bounds.js';
import { type ArgumentLimits, type ArgumentsRead, readArguments } from './arguments.js';
import type { Route } from '../assembly/snapshot.js';
import type { ToolBatch } from '../types.js';

/** A tool call as a model API gave it: any field may be missing or malformed. */
export interface ModelCall {
  callId?: unknown;
  name?: unknown;
  arguments?: unknown;
}

/** The id of a model call, or '' when it has none. */
export const modelCallId = (call: ModelCall): string => (typeof call.callId === 'string' ? call.callId : '');

/** Why a batch was rejected. */
export type BatchRejectReason =
  | 'malformed_batch'
  | 'identity_mismatch'
  | 'duplicate_batch_id'
  | 'missing_call_id'
  | 'duplicate_call_id'
  | 'unknown_tool'
  | 'delegation_forbidden'
  | 'too_many_calls';

/** One reason a batch cannot run. `index` names the call (by position) when the problem is one call's own. */
export interface BatchProblem {
  reason: BatchRejectReason;
  /** Says what is wrong and what to send instead (no argument values). */
  message: string;
  index?: number;
  callId?: string;
  /** The tool name as sent (unknown_tool, delegation_forbidden). */
  tool?: string | null;
  /** unknown_tool: up to CLOSEST of the run's tool names nearest the one sent, nearest first. */
  closest?: string[];
  /** too_many_calls: the calls sent and the run's limit. */
  calls?: number;
  limit?: number;
  /** identity_mismatch, duplicate_batch_id: the batch id as sent. */
  batchId?: unknown;
}

/** A call as stage 1 read it: its id, position in the batch, name and arguments (read once). */
export interface CheckedCall {
  callId: string;
  index: number;
  name: string;
  arguments: ArgumentsRead;
}

/** A call whose route is known. */
export interface RoutedCall {
  call: CheckedCall;
  route: Route;
}

/** Why stage 1 rejected a batch: the first problem's reason, a message for the caller, and every problem. */
export interface BatchRejection {
  reason: BatchRejectReason;
  message: string;
  problems: BatchProblem[];
}

/** Stage 1's outcome: the routed calls, or why the batch is rejected. */
export type BatchCheck = { ok: true; routed: RoutedCall[] } | { ok: false; rejection: BatchRejection };

/** What stage 1 checks a batch against. */
export interface BatchCheckContext {
  runId: string;
  agent: string;
  seenBatchIds: ReadonlySet<string>;
  routes: ReadonlyMap<string, Route>;
  maxBatchCalls: number;
  limits: ArgumentLimits;
}

const REJECTED = 'the whole batch was rejected, nothing ran: ';
/** How many of the run's tool names an unknown_tool problem suggests (a run may hold hundreds). */
const CLOSEST = 3;
/** How many unknown_tool problems of one batch get suggestions (a bad batch may name hundreds of unknown tools). */
const SUGGESTED_PROBLEMS = 3;

// The unknown_tool problem of call `index`: a typo'd name gets the run's nearest names (its own aliases, nothing else).
function unknownTool(index: number, callId: string, name: string | null, names: readonly string[]): BatchProblem {
  if (name === null)
    return {
      reason: 'unknown_tool',
      message: `call ${index} has no tool name; call one of the tools you were given`,
      index,
      callId,
      tool: name,
    };
  const closest = closestNames(name, names, CLOSEST);
  const near = closest.length === 0 ? '' : ` (closest: ${closest.join(', ')})`;
  const message = `"${outsideText(name, { max: MAX_NAME_LENGTH })}" is not a tool of this run${near}; call one of the tools you were given`;
  return { reason: 'unknown_tool', message, index, callId, tool: name, ...(closest.length === 0 ? {} : { closest }) };
}

// The rejection of a batch with these problems (sorted by call; the batch's own problem is the only one).
function rejection(problems: BatchProblem[]): BatchRejection {
  const first = problems[0] as BatchProblem;
  return { reason: first.reason, message: `${REJECTED}${first.message}`, problems };
}

/** The error `executeBatch` throws for a rejected batch: the first problem's fields and message, and all of them. */
export function batchRejection(rejected: BatchRejection): AgtError {
  const { message: _message, index: _index, ...fields } = rejected.problems[0] as BatchProblem;
  return new AgtError('batch_rejected', rejected.message, { details: { ...fields, problems: rejected.problems.map((p) => ({ ...p })) } });
}

// The whole batch's own problems: any of them leaves nothing to check per call.
function batchProblem(batch: ToolBatch, run: BatchCheckContext): BatchProblem | undefined {
  if (!isPlainObject(batch) || !Array.isArray(batch.calls))
    return { reason: 'malformed_batch', message: 'a batch is { runId, agent, batchId, calls: [...] }' };
  if (batch.calls.length > run.maxBatchCalls) {
    return {
      reason: 'too_many_calls',
      message: `${batch.calls.length} calls; a batch holds at most ${run.maxBatchCalls}, send fewer calls per step`,
      calls: batch.calls.length,
      limit: run.maxBatchCalls,
    };
  }
  if (batch.runId !== run.runId || batch.agent !== run.agent)
    return { reason: 'identity_mismatch', message: 'the batch names another run or agent than this run', batchId: batch.batchId };
  if (typeof batch.batchId !== 'string' || batch.batchId === '')
    return { reason: 'malformed_batch', message: 'batchId must be a non-empty string' };
  if (run.seenBatchIds.has(batch.batchId))
    return {
      reason: 'duplicate_batch_id',
      message: `batch "${batch.batchId}" already ran; give every batch its own id`,
      batchId: batch.batchId,
    };
  return undefined;
}

/** Checks a batch against the run: every problem of the batch and of each call, or each call with its route. */
export function checkBatch(batch: ToolBatch, run: BatchCheckContext): BatchCheck {
  const whole = batchProblem(batch, run);
  if (whole !== undefined) return { ok: false, rejection: rejection([whole]) };
  const problems: BatchProblem[] = [];
  const firstIndex = new Map<string, number>();
  const routed: RoutedCall[] = [];
  for (const [index, raw] of (batch.calls as unknown[]).entries()) {
    const call = isPlainObject(raw) ? raw : {};
    const callId = modelCallId(call);
    if (callId === '') {
      // The 0.1 field `id` is named, so a caller of the old shape learns the new one.
      const why = 'id' in call ? 'has `id` but no `callId` (the 0.1 field `id` is now `callId`)' : 'has no callId';
      problems.push({ reason: 'missing_call_id', message: `call ${index} ${why}; every tool call needs one`, index });
      continue;
    }
    const first = firstIndex.get(callId);
    if (first !== undefined) {
      const message = `the call id "${callId}" appears twice; give every call its own id`;
      if (!problems.some((p) => p.index === first && p.reason === 'duplicate_call_id'))
        problems.push({ reason: 'duplicate_call_id', message, index: first, callId });
      problems.push({ reason: 'duplicate_call_id', message, index, callId });
      continue;
    }
    firstIndex.set(callId, index);
    const name = typeof call.name === 'string' ? call.name : null;
    const route = name === null ? undefined : run.routes.get(name);
    if (route === undefined) {
      // The nearest names cost a comparison with every tool of the run: only the first few unknown names get them.
      const suggest = problems.filter((p) => p.reason === 'unknown_tool').length < SUGGESTED_PROBLEMS;
      problems.push(unknownTool(index, callId, name, suggest ? [...run.routes.keys()] : []));
      continue;
    }
    const args = readArguments(call.arguments, run.limits);
    if (route.kind === 'delegate') {
      const target = args.ok && isPlainObject(args.value) && typeof args.value.agent === 'string' ? args.value.agent : undefined;
      if (target !== undefined && !route.tool.targets.includes(target)) {
        const message = `"${route.name}" may not hand work to that agent; allowed: ${route.tool.targets.join(', ')}`;
        problems.push({ reason: 'delegation_forbidden', message, index, callId, tool: route.name });
        continue;
      }
    }
    routed.push({ call: { callId, index, name: route.name, arguments: args }, route });
  }
  if (problems.length > 0) return { ok: false, rejection: rejection(problems.sort((a, b) => (a.index ?? 0) - (b.index ?? 0))) };
  return { ok: true, routed };
}
