/**
 * What a task's end means for its call (E6): the outcome ext-tasks gives (a
 * result, the server's failure or cancel) read as the call's result or error,
 * and an ext-tasks failure as the connection maps SDK failures — what this
 * client refused or could not read (too large, not valid MCP, another task's)
 * is never told as the server saying the task failed.
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { AgtError, isAgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { serverWords } from '../server-words.js';

/** The result of a settled task, or the error its outcome stands for. */
export function outcomeResult(
  outcome: { status: 'completed'; result: unknown } | { status: 'failed'; error: Error & { code?: number } } | { status: 'cancelled' },
  taskId: string | undefined,
): Record<string, unknown> {
  const ids = taskId === undefined ? {} : { taskId };
  if (outcome.status === 'cancelled')
    throw new AgtError('cancelled', 'the server cancelled the task of this call', { details: { reason: 'task_cancelled', ...ids } });
  if (outcome.status === 'failed') {
    const local = localFailure(outcome.error, ids);
    if (local !== undefined) throw local;
    throw new AgtError('protocol_error', `the server says the task of this call failed: ${serverWords(outcome.error.message)}`, {
      details: { reason: 'task_failed', ...ids, ...(typeof outcome.error.code === 'number' ? { serverCode: outcome.error.code } : {}) },
    });
  }
  if (!isPlainObject(outcome.result))
    throw new AgtError('protocol_error', 'the task of this call completed without a result object', {
      details: { reason: 'invalid_task', ...ids },
    });
  // A task's result is a final result: one that says it is a task (or a question) again is not read (issue 58 #2).
  const kind = outcome.result.resultType;
  if (kind !== undefined && kind !== 'complete') throw notFinal(ids);
  return outcome.result;
}

/** The error of a result that says it is a task (or a question) where a final result belongs: protocol_error invalid_result. */
export function notFinal(ids: { taskId?: string } = {}): AgtError {
  const message = 'the server answered this call with a result that is not a final result (its resultType is not "complete")';
  return new AgtError('protocol_error', message, { details: { reason: 'invalid_result', ...ids } });
}

// A task outcome ext-tasks marks failed (a TaskFailedError, what failed as its cause) that no server said: this
// client's own refusal or timeout (an AgtError), a request that failed on the way (the connection maps it), an answer
// too large to read, an answer that is not valid MCP, or an answer about another task. Undefined when the server
// said the task failed.
function localFailure(error: Error, ids: { taskId?: string }): unknown {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const name = (cause as { name?: string } | null)?.name;
  if (isAgtError(cause) || name === 'DispatchError' || oversized(cause)) return fromExt(cause);
  const read = unreadable(cause, ids);
  return read === cause ? undefined : read;
}

// The stand-in error of an answer too large to read (oversized.ts), as ext-tasks passes it on: the connection maps it
// (protocol_error oversized_message); it is no word of the server's about its task.
function oversized(error: unknown): boolean {
  const e = error as { name?: string; data?: unknown } | null;
  return e?.name === 'JsonRpcResponseError' && isPlainObject(e.data) && e.data.agtReason === 'oversized_message';
}

// An answer ext-tasks could not read, or that names another task: protocol_error in our words (`error` otherwise).
function unreadable(error: unknown, ids: { taskId?: string } = {}): unknown {
  if ((error as { name?: string } | null)?.name === 'ProtocolDecodeError')
    return new AgtError('protocol_error', "the server's answer to a request about the task of this call is not a valid MCP result", {
      details: { reason: 'invalid_result', ...ids },
    });
  if (error instanceof Error && /^Task response identity mismatch/.test(error.message))
    return new AgtError('protocol_error', 'the server answered a request about the task of this call with another task', {
      details: { reason: 'wrong_task', ...ids },
    });
  return error;
}

/**
 * An ext-tasks failure as the connection maps SDK failures: a server's JSON-RPC error is a ProtocolError again; an
 * answer ext-tasks could not read, or about another task, is protocol_error (invalid_result, wrong_task) on every
 * path — inline, by id, collected.
 */
export function fromExt(error: unknown): unknown {
  const e = error as { name?: string; code?: unknown; message?: string; data?: unknown; cause?: unknown };
  if (e?.name === 'JsonRpcResponseError' && typeof e.code === 'number') return new ProtocolError(e.code, e.message ?? '', e.data);
  if (e?.name === 'DispatchError' && e.cause !== undefined) return e.cause;
  return unreadable(error);
}
