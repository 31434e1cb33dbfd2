/**
 * runAgentLoop: a minimal model loop for hosts that want one. Each model step
 * becomes one batch; results (including invalid_arguments and rejected
 * batches) go back to the model, and the step budget `maxSteps` is the only
 * bound on corrections: there is no separate retry loop (B4).
 */
import { executeModelCalls, type ModelCall } from './model-calls.js';
import type { NativeRun } from './native-run.js';
import type { ModelTool } from './run-options.js';
import type { BatchResult } from './types.js';
import { defined } from '../json.js';

/** One entry of the loop's history, as the model is shown it. */
export type LoopMessage =
  | { role: 'assistant'; text?: string; toolCalls?: readonly ModelCall[] }
  | { role: 'tool'; batchId: string; results: BatchResult['results'] }
  | { role: 'system'; text: string };

/** A model the loop can drive (a real client adapter, or ScriptedModel in tests). */
export interface ModelLike {
  /** The next step: tool calls to run (as the model API gave them), or a final text. */
  respond(input: { tools: ModelTool[]; history: readonly LoopMessage[] }): Promise<{ text?: string; toolCalls?: readonly ModelCall[] }>;
}

/** How a loop ended. */
export interface LoopOutcome {
  /** `cancelled`: the signal aborted; the step in flight was cancelled (its calls end as cancelled). */
  status: 'completed' | 'max_steps' | 'cancelled';
  steps: number;
  text?: string;
  history: LoopMessage[];
}

/** Drives `model` against `run` until it answers without tool calls or `maxSteps` is used up. */
export async function runAgentLoop(options: {
  run: NativeRun;
  model: ModelLike;
  maxSteps: number;
  signal?: AbortSignal;
}): Promise<LoopOutcome> {
  const { run, model, maxSteps, signal } = options;
  const history: LoopMessage[] = [];
  for (let step = 1; step <= maxSteps; step++) {
    if (signal?.aborted) return { status: 'cancelled', steps: step - 1, history };
    const out = await model.respond({ tools: run.tools(), history });
    if (!out.toolCalls || out.toolCalls.length === 0) {
      history.push({ role: 'assistant', ...defined({ text: out.text }) });
      return { status: 'completed', steps: step, ...defined({ text: out.text }), history };
    }
    history.push({ role: 'assistant', toolCalls: out.toolCalls });
    const batchId = `${run.id}:${step}`;
    // Every call gets a result, so the history stays valid for model APIs; B6: a rejected step ran nothing.
    const result = await executeModelCalls(run, out.toolCalls, { batchId, ...defined({ signal }) });
    history.push({ role: 'tool', batchId, results: result.results });
    if (result.rejected) history.push({ role: 'system', text: result.rejected.message }); // the model may correct it
    if (result.refresh) history.push({ role: 'system', text: result.refresh.message });
  }
  return signal?.aborted ? { status: 'cancelled', steps: maxSteps, history } : { status: 'max_steps', steps: maxSteps, history };
}
