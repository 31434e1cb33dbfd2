/**
 * Stage 1, the whole batch (B6): identity, batch id, call ids, tool names and
 * delegation targets. Any failure rejects the whole batch before anything
 * runs, with `batch_rejected` and `details.reason` naming the cause.
 */
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import type { Route } from './snapshot.js';
import type { ToolBatch, ToolCall } from './types.js';

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

function reject(reason: BatchRejectReason, message: string, details: Record<string, unknown> = {}): AgtError {
  return new AgtError('batch_rejected', `the whole batch was rejected, nothing ran: ${message}`, { details: { reason, ...details } });
}

/** A call whose route is known. */
export interface RoutedCall {
  call: ToolCall;
  route: Route;
}

/** Checks a batch against the run; returns each call with its route, or throws batch_rejected. */
export function checkBatch(
  batch: ToolBatch,
  run: { runId: string; agent: string; seenBatchIds: ReadonlySet<string>; routes: ReadonlyMap<string, Route>; maxBatchCalls: number },
): RoutedCall[] {
  if (!isPlainObject(batch) || !Array.isArray(batch.calls)) throw reject('malformed_batch', 'a batch is { runId, agent, batchId, calls: [...] }');
  if (batch.calls.length > run.maxBatchCalls) {
    throw reject('too_many_calls', `${batch.calls.length} calls; a batch holds at most ${run.maxBatchCalls}`, { calls: batch.calls.length, limit: run.maxBatchCalls });
  }
  if (batch.runId !== run.runId || batch.agent !== run.agent) {
    throw reject('identity_mismatch', 'the batch names another run or agent than this run', { batchId: batch.batchId });
  }
  if (typeof batch.batchId !== 'string' || batch.batchId === '') throw reject('malformed_batch', 'batchId must be a non-empty string');
  if (run.seenBatchIds.has(batch.batchId)) throw reject('duplicate_batch_id', `batch "${batch.batchId}" already ran`, { batchId: batch.batchId });
  const ids = new Set<string>();
  const routed: RoutedCall[] = [];
  for (const [index, call] of batch.calls.entries()) {
    if (!isPlainObject(call) || typeof call.id !== 'string' || call.id === '') {
      throw reject('missing_call_id', `call ${index} has no id`, { index });
    }
    if (ids.has(call.id)) throw reject('duplicate_call_id', `call id "${call.id}" appears twice`, { callId: call.id });
    ids.add(call.id);
    const route = typeof call.name === 'string' ? run.routes.get(call.name) : undefined;
    if (route === undefined) {
      throw reject('unknown_tool', typeof call.name === 'string' ? `"${call.name}" is not a tool of this run` : `call ${index} has no tool name`, { callId: call.id, tool: typeof call.name === 'string' ? call.name : null });
    }
    if (route.kind === 'delegate') {
      const target = delegationTarget(call.arguments);
      if (target !== undefined && !route.tool.targets.includes(target)) {
        throw reject('delegation_forbidden', `"${route.name}" may not hand work to that agent; allowed: ${route.tool.targets.join(', ')}`, { callId: call.id, tool: route.name });
      }
    }
    routed.push({ call, route });
  }
  return routed;
}

// The target of a delegate call, when its arguments can be read at all; unreadable
// arguments are left to stage 2 (invalid_arguments).
function delegationTarget(args: unknown): string | undefined {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return isPlainObject(value) && typeof value.agent === 'string' ? value.agent : undefined;
}
