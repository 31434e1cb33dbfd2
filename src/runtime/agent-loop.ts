/**
 * runAgentLoop: a minimal model loop for hosts that want one. Each model step
 * becomes one batch; results (including invalid_arguments and rejected
 * batches) go back to the model, and the step budget `maxSteps` is the only
 * bound on corrections: there is no separate retry loop (B4). A step whose
 * calls a policy deferred ends the loop as `awaiting_approval` — or, when a
 * call waits for answers to its server's questions (E4), `awaiting_input`,
 * with every waiting call of the step in `pending` either way; called again
 * with that outcome's `history` and the host's `decisions` (in this process,
 * or another that resumed the run), the loop decides them, completes the step
 * — one result per call id, in call order — and goes on. A step whose calls
 * wait only on their servers' tasks (E6) ends as `awaiting_tasks`; called
 * again with its history, the loop collects the tasks that ended. A result
 * over the run's result budget (`resultBudget`, B8) reaches the model cut,
 * with a notice of what was left out, and the model reads on by page with the
 * run tool `result_read` — offered in `run.tools()` once a result was cut — as
 * a call of a later step like any other.
 */
import { AgtError } from '../errors.js';
import { executeModelCalls, type ModelCall, modelCallId } from './model-calls.js';
import type { NativeRun } from './native-run.js';
import type { ModelTool } from './model-tools.js';
import type { BatchResult, CallDecision, PendingCall, ToolResult } from './types.js';
import { defined } from '../json.js';
import type { SkillInfo } from '../skills/skill-set.js';

/** One entry of the loop's history, as the model is shown it. */
export type LoopMessage =
  | { role: 'assistant'; text?: string; toolCalls?: readonly ModelCall[] }
  | {
      role: 'tool';
      batchId: string;
      results: BatchResult['results'];
      /** The ids of calls still waiting for a decision: the model is not asked again until there are none. */
      pending?: readonly string[];
    }
  | { role: 'system'; text: string };

/** A model the loop can drive (a real client adapter, or ScriptedModel in tests). */
export interface ModelLike {
  /** The next step: tool calls to run (as the model API gave them), or a final text. */
  respond(input: {
    tools: ModelTool[];
    history: readonly LoopMessage[];
    /** The run's skills by name and description (K3): for the system prompt (`renderSkills`); bodies are read with skill_read. */
    skills?: readonly SkillInfo[];
  }): Promise<{ text?: string; toolCalls?: readonly ModelCall[] }>;
}

/** How a loop ended. */
export interface LoopOutcome {
  /**
   * `cancelled`: the signal aborted; the step in flight was cancelled (its calls end as cancelled).
   * `awaiting_approval`: calls of the last step wait for a decision (`pending`); call runAgentLoop again with `history` and `decisions`.
   * `awaiting_input`: the same, and at least one of them waits for answers to its server's questions (`waitingFor: 'input'`).
   * `awaiting_tasks`: calls of the last step wait only on their servers' tasks (E6, `tasks: 'defer'`); call runAgentLoop
   * again with `history` (no decisions needed): it collects what ended (`taskWaitMs`) and goes on once nothing waits.
   */
  status: 'completed' | 'max_steps' | 'cancelled' | 'awaiting_approval' | 'awaiting_input' | 'awaiting_tasks';
  /** The model steps taken so far, this call and earlier ones of the same history. */
  steps: number;
  text?: string;
  history: LoopMessage[];
  /** awaiting_approval, awaiting_input: what waits, with the validated arguments (and questions) to show the person who decides. */
  pending?: PendingCall[];
}

/** Options of {@link runAgentLoop}. */
export interface AgentLoopOptions {
  run: NativeRun;
  model: ModelLike;
  /** The bound on model steps, counting those already in `history`. */
  maxSteps: number;
  signal?: AbortSignal;
  /** To go on after `awaiting_approval`: that outcome's history (JSON: it may come from another process). */
  history?: readonly LoopMessage[];
  /** With `history`: decisions for calls of its waiting step, by call id (see run.decide): approvals, answers or declines. */
  decisions?: Record<string, CallDecision>;
  /** With `history`: how long to wait for the waiting step's tasks to end (run.collect's waitMs). Default 0: look once. */
  taskWaitMs?: number;
}

/** Drives `model` against `run` until it answers without tool calls, `maxSteps` is used up, or calls wait for an approval. */
export async function runAgentLoop(options: AgentLoopOptions): Promise<LoopOutcome> {
  const { run, model, maxSteps, signal } = options;
  const history: LoopMessage[] = [...(options.history ?? [])];
  const done = history.filter((m) => m.role === 'assistant').length;
  const waiting = await settleWaitingStep(run, history, options, signal);
  if (waiting !== undefined) return { status: awaiting(waiting), steps: done, history, pending: waiting };
  for (let step = done + 1; step <= maxSteps; step++) {
    if (signal?.aborted) return { status: 'cancelled', steps: step - 1, history };
    const skills = run.skills();
    const appContext = run.takeAppContext(); // U5: what the run's apps set since the last step, once
    if (appContext !== undefined) history.push({ role: 'system', text: appContext });
    const out = await model.respond({ tools: run.tools(), history, ...(skills.length > 0 ? { skills } : {}) });
    if (!out.toolCalls || out.toolCalls.length === 0) {
      history.push({ role: 'assistant', ...defined({ text: out.text }) });
      return { status: 'completed', steps: step, ...defined({ text: out.text }), history };
    }
    history.push({ role: 'assistant', toolCalls: out.toolCalls });
    const batchId = `${run.id}:${step}`;
    // Every call gets a result, so the history stays valid for model APIs; B6: a rejected step ran nothing.
    const result = await executeModelCalls(run, out.toolCalls, { batchId, ...defined({ signal }) });
    const pending = result.pending ?? [];
    history.push({
      role: 'tool',
      batchId,
      results: result.results,
      ...(pending.length > 0 ? { pending: pending.map((p) => p.callId) } : {}),
    });
    if (result.rejected) history.push({ role: 'system', text: result.rejected.message }); // the model may correct it
    if (result.refresh) history.push({ role: 'system', text: result.refresh.message });
    if (pending.length > 0) return { status: awaiting(pending), steps: step, history, pending };
  }
  const steps = Math.max(done, maxSteps);
  return signal?.aborted ? { status: 'cancelled', steps, history } : { status: 'max_steps', steps, history };
}

// Decides the waiting step of `history` (if any), collects its tasks that ended, and completes its tool message;
// returns what still waits.
async function settleWaitingStep(
  run: NativeRun,
  history: LoopMessage[],
  options: Pick<AgentLoopOptions, 'decisions' | 'taskWaitMs'>,
  signal: AbortSignal | undefined,
): Promise<PendingCall[] | undefined> {
  const index = history.findLastIndex((m) => m.role === 'tool' && (m.pending?.length ?? 0) > 0);
  if (index < 0) return undefined;
  const message = history[index] as Extract<LoopMessage, { role: 'tool' }>;
  const { decisions } = options;
  const waitingNow = run.pending(message.batchId);
  const tasks = waitingNow.some((p) => p.waitingFor === 'task');
  const ended: BatchResult[] = [];
  if (decisions === undefined && !tasks) {
    if (waitingNow.length > 0) return waitingNow;
    // Ended elsewhere (another host decided or collected them, or their task ended with its server): the results the
    // run's store keeps. Nothing of the batch is open here, so this decides nothing; it only reads what is kept.
    const kept = await run
      .decide(message.batchId, Object.fromEntries((message.pending ?? []).map((id) => [id, { approve: false }])), defined({ signal }))
      .catch(() => undefined);
    if (kept === undefined)
      throw new AgtError(
        'not_found',
        `the waiting calls of batch "${message.batchId}" are not pending in this run (decided elsewhere?); resume the run from its store`,
        { details: { batchId: message.batchId } },
      );
    ended.push(kept);
  }
  if (decisions !== undefined) ended.push(await run.decide(message.batchId, decisions, defined({ signal })));
  if (tasks) ended.push(await run.collect(message.batchId, { waitMs: options.taskWaitMs ?? 0, ...defined({ signal }) }));
  const order = callOrder(history, index);
  const results = [...message.results, ...ended.flatMap((e) => e.results)].sort((a, b) => rank(order, a) - rank(order, b));
  const pending = run.pending(message.batchId);
  history[index] = {
    role: 'tool',
    batchId: message.batchId,
    results,
    ...(pending.length > 0 ? { pending: pending.map((p) => p.callId) } : {}),
  };
  for (const e of ended) if (e.refresh) history.push({ role: 'system', text: e.refresh.message });
  return pending.length > 0 ? pending : undefined;
}

// One status for a waiting step: awaiting_input as soon as one of its calls waits for answers, awaiting_tasks when
// its calls wait only on tasks, else awaiting_approval.
const awaiting = (pending: readonly PendingCall[]): 'awaiting_approval' | 'awaiting_input' | 'awaiting_tasks' =>
  pending.some((p) => p.waitingFor === 'input')
    ? 'awaiting_input'
    : pending.every((p) => p.waitingFor === 'task')
      ? 'awaiting_tasks'
      : 'awaiting_approval';

// The position of each call id in the assistant step before history[index].
function callOrder(history: readonly LoopMessage[], index: number): Map<string, number> {
  const step = history.slice(0, index).findLast((m) => m.role === 'assistant');
  const calls = step?.role === 'assistant' ? (step.toolCalls ?? []) : [];
  return new Map(calls.map((c, i) => [modelCallId(c), i]));
}

const rank = (order: ReadonlyMap<string, number>, result: ToolResult): number => order.get(result.callId) ?? Number.MAX_SAFE_INTEGER;
