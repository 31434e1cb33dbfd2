/**
 * runAgentLoop: a minimal model loop for hosts that want one. Each model step
 * becomes one batch; results (including invalid_arguments and rejected
 * batches) go back to the model, and the step budget `maxSteps` is the only
 * bound on corrections: there is no separate retry loop (B4).
 */
import { isAgtError } from '../errors.js';
import type { NativeRun } from './native-run.js';
import type { ModelTool } from './run-options.js';
import type { BatchResult, ToolCall } from './types.js';

/** One entry of the loop's history, as the model is shown it. */
export type LoopMessage =
  | { role: 'assistant'; text?: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; batchId: string; results: BatchResult['results'] }
  | { role: 'system'; text: string };

/** A model the loop can drive (a real client adapter, or ScriptedModel in tests). */
export interface ModelLike {
  /** The next step: tool calls to run, or a final text. */
  respond(input: { tools: ModelTool[]; history: readonly LoopMessage[] }): Promise<{ text?: string; toolCalls?: ToolCall[] }>;
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
export async function runAgentLoop(options: { run: NativeRun; model: ModelLike; maxSteps: number; signal?: AbortSignal }): Promise<LoopOutcome> {
  const { run, model, maxSteps, signal } = options;
  const history: LoopMessage[] = [];
  for (let step = 1; step <= maxSteps; step++) {
    if (signal?.aborted) return { status: 'cancelled', steps: step - 1, history };
    const out = await model.respond({ tools: run.tools(), history });
    if (!out.toolCalls || out.toolCalls.length === 0) {
      history.push({ role: 'assistant', ...(out.text === undefined ? {} : { text: out.text }) });
      return { status: 'completed', steps: step, ...(out.text === undefined ? {} : { text: out.text }), history };
    }
    history.push({ role: 'assistant', toolCalls: out.toolCalls });
    const batchId = `${run.id}:${step}`;
    try {
      const result = await run.executeBatch({ runId: run.id, agent: run.agent, batchId, calls: out.toolCalls }, signal ? { signal } : {});
      history.push({ role: 'tool', batchId, results: result.results });
      if (result.refresh) history.push({ role: 'system', text: result.refresh.message });
    } catch (error) {
      if (!isAgtError(error) || error.code !== 'batch_rejected') throw error;
      history.push({ role: 'system', text: error.message }); // B6: the whole step was rejected; the model may correct it
    }
  }
  return signal?.aborted ? { status: 'cancelled', steps: maxSteps, history } : { status: 'max_steps', steps: maxSteps, history };
}
