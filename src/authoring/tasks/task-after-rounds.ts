/**
 * Input first, then a task (SEP-2663 with SEP-2322; the Tasks extension's
 * "a server that needs client input before returning a CreateTaskResult uses
 * the multi round-trip flow on the original request"): a 2026-07-28 call of a
 * tool that declares `execution.taskStart: 'handler'`, from a client whose
 * request declares the Tasks extension. The handler runs in the request,
 * its questions going by rounds (questions/rounds.ts: input_required, the sealed
 * state, the retry). When it calls `ctx.startTask()` the task is created and
 * the call is answered with it (CreateTaskResult, no requestState); the
 * handler then goes on as the task — its `signal` follows the task (a
 * cancelled request no longer stops it), progress sets the statusMessage, a
 * later question waits in the task — and what it returns is the task's
 * result. A handler that returns without starting its task answers the call
 * plainly, as the extension lets a server do.
 */
import type { CallToolResult, InputRequiredResult, Server, ServerContext } from '@modelcontextprotocol/server';
import { isPlainObject } from '../../json.js';
import { TASKS_EXTENSION } from '../../mcp/tasks/capabilities.js';
import { roundsContext } from '../context.js';
import type { ServableTool, ToolContext } from '../define-tool.js';
import type { Rounds } from '../questions/rounds.js';
import type { KitTasks, TaskControl } from './runner.js';
import { callAsTask, requestCapabilities, taskContext } from './serve.js';

/** True when this 2026-07-28 call starts its task in the handler: the tool says so and the request declares the extension. */
export function startsInHandler(tool: ServableTool, era: 'legacy' | 'modern', server: Server, ctx: ServerContext): boolean {
  if (tool.taskStart !== 'handler' || era !== 'modern') return false;
  const extensions = requestCapabilities(server, ctx).extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/** What a call that may become a task mid-handler needs. */
export interface RoundsThenTask {
  tool: ServableTool;
  call: { params: Record<string, unknown>; server: Server; ctx: ServerContext };
  /** The call's context (a plain call's) and its rounds (the state already taken). */
  context: ToolContext;
  rounds: Rounds;
  tasks: KitTasks;
  /** Who starts the task (tasks.start), and whose it is (tasks.cancel). */
  starter: Parameters<KitTasks['start']>[1];
  owner: Parameters<KitTasks['cancel']>[1];
  /** Runs the handler with `context`: its checked result, input_required, or (`asTask()` true) a protocol error thrown. */
  run(context: ToolContext, asTask: () => boolean): Promise<CallToolResult | InputRequiredResult>;
}

/** The call's answer: input_required, a plain result, or the task the handler started (its result the handler's). */
export async function roundsThenTask(p: RoundsThenTask): Promise<CallToolResult | InputRequiredResult> {
  const base = p.context;
  // The handler's signal: the request's until the task starts, the task's after (the request was answered by then).
  const controller = new AbortController();
  let escalated = false;
  const onRequestAbort = () => {
    if (!escalated) controller.abort(base.signal.reason);
  };
  if (base.signal.aborted) onRequestAbort();
  else base.signal.addEventListener('abort', onRequestAbort, { once: true });
  let current: ToolContext = roundsContext({ ...base, signal: controller.signal }, p.rounds);
  let started: ((answer: CallToolResult) => void) | undefined;
  let refused: ((error: unknown) => void) | undefined;
  const taskAnswer = new Promise<CallToolResult>((resolve, reject) => {
    started = resolve;
    refused = reject;
  });
  let outcome: Promise<CallToolResult | InputRequiredResult> | undefined;
  let escalation: Promise<void> | undefined;
  const escalate = async (): Promise<void> => {
    let handOver: ((control: TaskControl) => void) | undefined;
    const handed = new Promise<TaskControl>((resolve) => (handOver = resolve));
    const work = (control: TaskControl) => {
      handOver?.(control);
      return outcome ?? Promise.reject(new Error('the handler has not started'));
    };
    let answer: CallToolResult | undefined;
    try {
      answer = await callAsTask(
        p.tool.execution?.taskSupport,
        { era: 'modern', ...p.call },
        {
          start: (ttl) => p.tasks.start(p.tool.name, p.starter, ttl, work),
          refresh: (taskId) => p.tasks.store.get(taskId),
          cancel: (taskId) => p.tasks.cancel(taskId, p.owner),
          pace: (record) => p.tasks.paced(record),
        },
      );
      if (answer === undefined) throw new Error('the tool cannot run as a task'); // startsInHandler checked it can
    } catch (error) {
      refused?.(error); // the call's answer is this error (too many tasks, say); the handler stops here too
      throw error;
    }
    const control = await handed; // the runner hands the task's control over before start() resolves
    escalated = true;
    base.signal.removeEventListener('abort', onRequestAbort);
    if (control.signal.aborted) controller.abort(control.signal.reason);
    else control.signal.addEventListener('abort', () => controller.abort(control.signal.reason), { once: true });
    current = taskContext({ ...base, signal: controller.signal }, control, 'modern', requestCapabilities(p.call.server, p.call.ctx));
    started?.(answer);
  };
  const context: ToolContext = {
    ...base,
    signal: controller.signal,
    progress: (...a) => current.progress(...a),
    log: (...a) => current.log(...a),
    sample: (...a) => current.sample(...a),
    elicit: (...a) => current.elicit(...a),
    roots: (...a) => current.roots(...a),
    ask: (...a) => current.ask(...a),
    closeStream: () => current.closeStream(),
    // Once the call is answered (the handler returned before it started its task), or its client cancelled it, no
    // client could ever name a task started now: startTask() does nothing then.
    startTask: () => (escalation ??= answered || base.signal.aborted ? Promise.resolve() : escalate()),
  };
  let answered = false;
  outcome = p.run(context, () => escalated);
  outcome.then(
    () => (answered = true),
    () => (answered = true),
  );
  // The first to settle answers the call: the handler (a round's questions, or its plain result), or its task.
  return Promise.race([outcome, taskAnswer]);
}
