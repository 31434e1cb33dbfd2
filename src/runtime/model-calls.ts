/**
 * executeModelCalls: a model step's tool calls through the batch pipeline,
 * with a result for every call, never a throw for bad model output. Model
 * APIs need an answer for each call id; a batch that stage 1 rejects (B6:
 * unknown tools, duplicate or missing ids, forbidden delegation) still runs
 * nothing, and each of its calls gets a result saying why: the offending ones
 * `invalid_arguments` with their own problem, the others `tool_failed` with
 * `batch_rejected`. The problems come from stage 1 as data (checkBatch), never
 * as a caught error.
 */
import { type BatchProblem, type ModelCall, modelCallId } from './pipeline/batch-check.js';
import { callResult } from './pipeline/call-result.js';
import type { RejectedBatch } from './run-batches.js';
import type { BatchResult, ToolBatch, ToolCall, ToolResult } from './types.js';

export { type ModelCall, modelCallId } from './pipeline/batch-check.js';

/** What runs a model step's calls: a NativeRun (its id, agent and runBatch). */
export interface BatchRunner {
  readonly id: string;
  readonly agent: string;
  /** executeBatch, with a batch stage 1 rejects given back as data. */
  runBatch(batch: ToolBatch, options?: { signal?: AbortSignal }): Promise<BatchResult | RejectedBatch>;
}

/** The outcome of a model step: a result per call, in call order; `rejected` (with the model-facing message) when nothing ran. */
export interface ModelCallsResult extends BatchResult {
  rejected?: { reason: string; message: string };
}

// A result for every call: the offending ones their own problem, the others "not run".
function rejectedResults(calls: readonly ModelCall[], problems: readonly BatchProblem[]): ToolResult[] {
  const own = new Map<number, BatchProblem>();
  for (const p of problems) if (p.index !== undefined && !own.has(p.index)) own.set(p.index, p);
  const first = problems[0];
  const why =
    first?.index === undefined
      ? `the step was rejected (${first?.reason ?? 'batch_rejected'})`
      : `another call of this step is invalid (${first.reason})`;
  return calls.map((call, index) => {
    const problem = own.get(index);
    const callId = modelCallId(call);
    return problem !== undefined
      ? callResult(callId, {
          kind: 'failed',
          failed: 'invalid_arguments',
          error: {
            code: 'invalid_arguments',
            message: problem.message,
            details: { reason: problem.reason, ...(problem.closest ? { closest: problem.closest } : {}) },
          },
        })
      : callResult(callId, {
          kind: 'failed',
          failed: 'tool_failed',
          error: { code: 'batch_rejected', message: `not run: ${why}; nothing of this step ran, send the calls again` },
        });
  });
}

/** Runs a model step's calls; bad model output becomes per-call results. Throws only when the run itself cannot run (closed). */
export async function executeModelCalls(
  run: BatchRunner,
  calls: readonly ModelCall[],
  options: { batchId: string; signal?: AbortSignal },
): Promise<ModelCallsResult> {
  // Arguments pass as sent (stage 1 reads them once; a missing one is {}).
  const toCall = (c: ModelCall): ToolCall => ({
    callId: modelCallId(c),
    name: c.name as string,
    arguments: c.arguments as ToolCall['arguments'],
  });
  const batch = { runId: run.id, agent: run.agent, batchId: options.batchId, calls: calls.map(toCall) };
  const out = await run.runBatch(batch, options.signal ? { signal: options.signal } : {});
  if (!('rejected' in out)) return out;
  const { reason, message, problems } = out.rejected;
  return { results: rejectedResults(calls, problems), rejected: { reason, message } };
}
