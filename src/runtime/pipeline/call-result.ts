/**
 * The one way a call becomes a ToolResult, for every path that runs calls
 * (runs, decided approvals, `agt mcp call`, harness tool sets): a call either
 * answered — an MCP result or a local handler's output, `isError` making it a
 * tool_error — or ended without an answer, and every way of ending without one
 * (refused by a stage, thrown by a handler, cancelled or out of time, refused
 * or lost by the server) is mapped here, once.
 */
import { isInputMethod } from '../../mcp/requests/client-handlers.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { AgtError, isAgtError, resultErrorOf } from '../../errors.js';
import type { McpCallResult } from '../../mcp/connection.js';
import { defined } from '../../json.js';
import { errorOfContent, failureOf, type HandlerOutput, outputContent } from '../../results.js';
import type { ResultError, ResultStatus, ToolResult } from '../types.js';

/** A result that is not ok. */
export type FailedResult = Exclude<ToolResult, { status: 'ok' }>;

/** An MCP tool result: a server's answer (McpCallResult), or a local handler's output once read (the SDK's CallToolResult). */
export type AnswerFields = McpCallResult | CallToolResult;

/** How a call ended without an answer of its own, told apart by `kind`. */
export type CallFailure =
  /** A stage refused it (invalid arguments, denied, output invalid …). */
  | { kind: 'failed'; failed: Exclude<ResultStatus, 'ok'>; error: ResultError }
  /** A local handler threw: a declared error keeps its code (tool_error), anything else is `fallback` (tool_failed). */
  | { kind: 'thrown'; thrown: unknown; fallback: string }
  /** The host cancelled the call, or the batch's deadline passed (`signal.reason`, see batchDeadlineReason); `told`: the server was sent notifications/cancelled. */
  | { kind: 'aborted'; aborted: AbortSignal; told?: boolean }
  /** An MCP call failed before the server answered it (timeout, closed, auth, a JSON-RPC error …). */
  | { kind: 'callError'; callError: unknown; mount: string; timeoutMs: number };

/** How a call ended: answered (`answer`: an MCP result; `output`: a local handler's), or a failure; told apart by `kind`. */
export type CallEnd = { kind: 'answer'; answer: AnswerFields } | { kind: 'output'; output: HandlerOutput | unknown[] } | CallFailure;

/** The result of call `callId` that ended as `end`. */
export function callResult(callId: string, end: CallFailure): FailedResult;
export function callResult(callId: string, end: CallEnd): ToolResult;
export function callResult(callId: string, end: CallEnd): ToolResult {
  switch (end.kind) {
    case 'answer':
      return answered(callId, end.answer);
    case 'output':
      return answered(callId, outputContent(end.output));
    case 'failed':
      return { callId, status: end.failed, error: end.error };
    case 'thrown':
      return { callId, ...failureOf(end.thrown, end.fallback) };
    case 'aborted':
      return { callId, status: 'tool_failed', error: abortError(end.aborted, end.told === true) };
    case 'callError':
      return { callId, status: 'tool_failed', error: callErrorOf(end.callError, end.mount, end.timeoutMs) };
  }
}

function answered(callId: string, answer: AnswerFields): ToolResult {
  if (answer.isError === true) return { callId, status: 'tool_error', error: errorOfContent(answer.content) };
  const { content, structuredContent, _meta } = answer;
  return { callId, status: 'ok', content, ...defined({ structuredContent, _meta }) };
}

const BATCH_TIMEOUT = 'batch_timeout';

/** The reason a batch's deadline aborts its calls with (batchTimeoutMs): a call_timeout AgtError, as a connection gives it back. */
export function batchDeadlineReason(ms: number): AgtError {
  return new AgtError('call_timeout', `the batch did not finish within ${ms} ms (batchTimeoutMs); the call was cancelled`, {
    details: { reason: BATCH_TIMEOUT, batchTimeoutMs: ms },
  });
}

// A cancelled call: the batch's deadline (its reason says so) or the host's signal.
function abortError(signal: AbortSignal, told: boolean): ResultError {
  const reason: unknown = signal.reason;
  if (isAgtError(reason) && reason.code === 'call_timeout' && reason.details?.reason === BATCH_TIMEOUT)
    return { code: 'call_timeout', message: reason.message, details: { ...reason.details } };
  const message = 'the call was cancelled by the host before it finished';
  return { code: 'cancelled', message: told ? `${message}; the server was told` : message };
}

// How a task call ends without its result, in our own words (src/mcp/tasks): cancelled by its server, not ended within
// its wait, a request about it unanswered.
const TASK_ENDS: ReadonlySet<string> = new Set(['task_cancelled', 'task_timeout', 'request_timeout']);

// An MCP call that failed: its code, and words for the model that say what happened (never the server's values).
function callErrorOf(error: unknown, mount: string, timeoutMs: number): ResultError {
  const code = isAgtError(error) ? error.code : 'tool_failed';
  // A protocol_error's message and reason are our own words about the server's answer (never its values).
  const reason = isAgtError(error) && (code === 'protocol_error' || code === 'invalid_input') ? error.details?.reason : undefined;
  if (reason === 'server_error') {
    // The server refused the call with a JSON-RPC error: its code and (escaped, bounded, masked) words go to the model.
    const rpcCode = (error as AgtError<'protocol_error'>).details?.rpcCode;
    return { code: 'server_error', message: (error as Error).message, details: { reason, rpcCode } };
  }
  if (isAgtError(error) && error.code === 'task_lost') {
    // The server no longer knows the call's task (E6): what happened and why, in our words; the task's id to match it.
    const lost = error.details;
    const message = "the server no longer knows this call's task (its TTL ran out there, or the server restarted); its result is gone";
    return resultErrorOf('task_lost', message, { taskId: lost?.taskId ?? '', reason: lost?.reason ?? 'unknown_to_server' });
  }
  const taskReason = isAgtError(error) ? error.details?.reason : undefined;
  if ((code === 'cancelled' || code === 'call_timeout') && typeof taskReason === 'string' && TASK_ENDS.has(taskReason)) {
    // A task's end in our own words (E6): its server cancelled it, it outlived its wait, or a request about it went
    // unanswered — not "cancelled by the host" nor "the server did not answer the call" (the task may still run).
    const { timeoutMs: ms, method } = (error as AgtError).details ?? {};
    const more = { ...(typeof ms === 'number' ? { timeoutMs: ms } : {}), ...(typeof method === 'string' ? { method } : {}) };
    return resultErrorOf(code, (error as Error).message, { reason: taskReason, ...more });
  }
  if (typeof reason === 'string') {
    // Our own words and fields (never a value): the question method nobody answers, the bound an argument broke.
    const { method, limitBytes } = (error as AgtError).details ?? {};
    const more = {
      ...(isInputMethod(method) ? { method } : {}),
      ...(typeof limitBytes === 'number' ? { limitBytes } : {}),
    };
    // An argument too large to mirror is the model's to correct: nothing was sent, nothing is lost.
    const message = code === 'invalid_input' ? (error as Error).message : `${(error as Error).message}; the call's result is lost`;
    return resultErrorOf(code, message, { reason, ...more });
  }
  return resultErrorOf(code, failureWords(code, mount, timeoutMs));
}

function failureWords(code: string, mount: string, timeoutMs: number): string {
  switch (code) {
    case 'connection_closed':
      return `the server of mount "${mount}" went away during the call`;
    case 'call_timeout':
      return `the server did not answer within ${timeoutMs} ms; the call was cancelled`;
    case 'cancelled':
      return 'the call was cancelled by the host before it finished; the server was told';
    case 'auth_required':
      return `the server of mount "${mount}" wants (other) credentials; the host must authorize it`;
    default:
      return 'the call failed before the server answered';
  }
}
