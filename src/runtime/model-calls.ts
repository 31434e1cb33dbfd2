/**
 * executeModelCalls: a model step's tool calls through the batch pipeline,
 * with a result for every call, never a throw for bad model output. Model
 * APIs need an answer for each tool_call id; a batch that the pipeline rejects
 * (B6: unknown tools, duplicate or missing ids, forbidden delegation) still runs
 * nothing, and each of its calls gets a result saying why: the offending ones
 * `invalid_arguments`, the others `tool_failed` with `batch_rejected`.
 */
import { isAgtError } from '../errors.js';
import type { NativeRun } from './native-run.js';
import type { BatchResult, ToolCall, ToolResult } from './types.js';

/** A tool call as a model API gave it: any field may be missing or malformed. */
export interface ModelCall {
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
}

/** The outcome of a model step: a result per call, in call order; `rejected` (with the model-facing message) when nothing ran. */
export interface ModelCallsResult extends BatchResult {
  rejected?: { reason: string; message: string };
}

const invalid = (id: string, reason: string, message: string): ToolResult => ({
  tool_call_id: id,
  status: 'invalid_arguments',
  error: { code: 'invalid_arguments', message, details: { reason } },
});

// Stage 1 for model output: every problem of every call, not just the first.
function screen(calls: readonly ModelCall[], toolNames: ReadonlySet<string>): Map<number, ToolResult> {
  const problems = new Map<number, ToolResult>();
  const seen = new Map<string, number>();
  calls.forEach((call, index) => {
    const id = typeof call.id === 'string' ? call.id : '';
    if (id === '') {
      problems.set(index, invalid(id, 'missing_call_id', `call ${index} has no id; every tool call needs one`));
      return;
    }
    const first = seen.get(id);
    if (first !== undefined) {
      const message = `the call id "${id}" is used twice in this step; give every call its own id`;
      problems.set(first, invalid(id, 'duplicate_call_id', message));
      problems.set(index, invalid(id, 'duplicate_call_id', message));
      return;
    }
    seen.set(id, index);
    if (typeof call.name !== 'string' || !toolNames.has(call.name)) {
      problems.set(index, invalid(id, 'unknown_tool', `"${typeof call.name === 'string' ? call.name : ''}" is not a tool of this run; call one of the tools you were given`));
    }
  });
  return problems;
}

function notRun(calls: readonly ModelCall[], problems: ReadonlyMap<number, ToolResult>, why: string): ToolResult[] {
  return calls.map((call, index) => problems.get(index) ?? {
    tool_call_id: typeof call.id === 'string' ? call.id : '',
    status: 'tool_failed',
    error: { code: 'batch_rejected', message: `not run: ${why}; nothing of this step ran, send the calls again` },
  });
}

/** Runs a model step's calls; bad model output becomes per-call results. Throws only when the run itself cannot run (closed). */
export async function executeModelCalls(
  run: NativeRun,
  calls: readonly ModelCall[],
  options: { batchId: string; signal?: AbortSignal },
): Promise<ModelCallsResult> {
  const problems = screen(calls, new Set(run.tools().map((t) => t.name)));
  const first = [...problems.values()][0];
  if (first !== undefined && first.status !== 'ok') {
    const reason = String(first.error.details?.reason);
    return { results: notRun(calls, problems, `another call of this step is invalid (${reason})`), rejected: { reason, message: `${REJECTED}${first.error.message}` } };
  }
  // Arguments pass as sent (a missing one is {}); anything but a JSON string or object is stage 2's invalid_arguments.
  const toCall = (c: ModelCall): ToolCall => ({ id: c.id as string, name: c.name as string, arguments: c.arguments === undefined ? {} : (c.arguments as ToolCall['arguments']) });
  const batch = { runId: run.id, agent: run.agent, batchId: options.batchId, calls: calls.map(toCall) };
  try {
    return await run.executeBatch(batch, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    if (!isAgtError(error) || error.code !== 'batch_rejected') throw error;
    const reason = String(error.details?.reason ?? 'batch_rejected');
    const offending = calls.findIndex((c) => c.id === error.details?.callId);
    const own = new Map<number, ToolResult>();
    if (offending >= 0) own.set(offending, invalid(String(calls[offending]?.id), reason, error.message.replace(REJECTED, '')));
    return { results: notRun(calls, own, `the step was rejected (${reason})`), rejected: { reason, message: error.message } };
  }
}

const REJECTED = 'the whole batch was rejected, nothing ran: ';
