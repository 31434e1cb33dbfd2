/**
 * A connection's tool calls: one `tools/call` on the wire — as a task
 * (2025-11-25), with its arguments mirrored into Mcp-Param headers
 * (SEP-2243), or plain — and the input rounds around it (input-rounds.ts):
 * questions the connection answers itself are answered and the call retried;
 * a deferred one comes back to callToolOrInput, and fails callTool.
 */
import { ResultSchema } from '@modelcontextprotocol/core';
import { type Client, ProtocolError, type Tool } from '@modelcontextprotocol/client';
import { defined, isPlainObject } from '../../json.js';
import type { ClientHandlers } from './client-handlers.js';
import type { CallOptions, McpCallResult, McpInputRequest, McpInputRequired, McpTaskStarted, RequestOptions } from '../connection-types.js';
import {
  answerInline,
  checkAnswerable,
  deferredInTask,
  deferredQuestion,
  questionRoute,
  readInputRequired,
  retryParams,
  roundsExceeded,
} from './input-rounds.js';
import { MAX_INPUT_ROUNDS } from '../../bounds.js';
import type { Send } from './more-requests.js';
import { checkParamHeaders } from './param-headers.js';
import type { RawTool } from './lists.js';
import { boundedDepth, ownSignal, progressOf, readCallResult } from './server-answers.js';
import {
  callLegacyTask,
  cancelOnServer,
  DEFAULT_TASK_TOTAL_MS,
  followModernTask,
  notFinal,
  startedOf,
  startLegacyTask,
  type TaskCallOptions,
} from '../tasks/call.js';
import type { RawAnswer } from '../tasks/raw-dispatch.js';
import type { ConnectionTasks } from '../tasks/session.js';
import type { Timeouts } from '../settings/timeouts.js';

const LooseResult = ResultSchema.loose();

// One tools/call's params: the tool, its arguments, and what the call adds (`_meta`, a retry's answers and state).
type CallParams = { name: string; arguments: Record<string, unknown>; [key: string]: unknown };

// A task a call hands back (`tasks: 'defer'`): startedOf's shape.
function isTaskStarted(result: Record<string, unknown>): result is Record<string, unknown> & McpTaskStarted {
  return result.resultType === 'task' && isPlainObject(result.task);
}

/** What a connection's tool calls need from it. */
export interface ToolCallParts {
  client: Client;
  send: Send;
  sdkOptions(options: RequestOptions, signal: AbortSignal): { signal?: AbortSignal; timeout: number; resetTimeoutOnProgress?: boolean };
  masked<T>(value: T): T;
  handlers: ClientHandlers;
  timeouts: Timeouts;
  /** The connection's task session, when it asks for tasks and the server runs them (either era). */
  tasks: ConnectionTasks | undefined;
  /** The tools a 2025 server runs as tasks (their `execution.taskSupport`), as last listed. */
  taskTools(): ReadonlyMap<string, RawTool>;
  era: 'legacy' | 'modern';
  /** `tasks: 'defer'`: callToolOrInput hands a task back (McpTaskStarted) instead of waiting for it. */
  deferTasks: boolean;
  /** The tools whose arguments are mirrored into headers, as last listed. */
  headerTools: ReadonlyMap<string, Tool>;
  /** The `_meta` a call carries (with the log level the host asked for). */
  metaOf(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined;
}

/** A connection's tool calls: the part of McpConnection that {@link toolCalls} implements. */
export interface ConnectionToolCalls {
  /**
   * Calls a tool. Tool errors come back as results with isError. Rejects with
   * cancelled, call_timeout (both after notifications/cancelled), connection_closed,
   * auth_required or protocol_error.
   */
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<McpCallResult>;
  /**
   * callTool for a caller that can wait for answers: a question the connection defers (`'defer'`) comes back as
   * McpInputRequired instead of failing the call; retry with `options.input`. On a connection with `tasks: 'defer'`,
   * a call the server runs as a task comes back as McpTaskStarted (collect it with getTask / getTaskResult).
   */
  callToolOrInput(
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<McpCallResult | McpInputRequired | McpTaskStarted>;
}

/** callTool and callToolOrInput of a connection. */
export function toolCalls(p: ToolCallParts): ConnectionToolCalls {
  const { client, timeouts } = p;

  // One tools/call on the wire; `manual`: an input_required comes back instead of being answered by the SDK.
  // `defer`: a task comes back as McpTaskStarted instead of being waited for. No async frame of its own (the request's
  // promise as it is): its one caller awaits it, so a throw here is that caller's rejection as before.
  function callOnce(
    name: string,
    params: CallParams,
    options: CallOptions,
    signal: AbortSignal,
    manual: boolean,
    defer = false,
  ): Promise<Record<string, unknown>> {
    const declared = p.headerTools.get(name);
    if (p.tasks !== undefined) {
      const bound: TaskCallOptions = {
        signal,
        requestMs: options.timeoutMs ?? timeouts.callMs,
        totalMs: options.maxTotalTimeoutMs ?? timeouts.maxTotalMs ?? DEFAULT_TASK_TOTAL_MS,
      };
      const taskTool = p.taskTools().get(name);
      if (p.era === 'legacy' && taskTool !== undefined)
        return defer ? startLegacyTask(p.tasks, taskTool, params, bound) : callLegacyTask(p.tasks, taskTool, params, bound);
      // 2026-07-28: the server decides; the call declares the extension and goes on the raw path (the SDK refuses a task).
      // A tool whose arguments go into headers keeps the SDK's path, declaring no tasks (SEP-2243 is the SDK's encoding).
      if (p.era === 'modern' && declared === undefined) return modernCall(p.tasks, params, bound, options, defer);
    }
    // One options object, completed in place (no spread per option).
    const sdk: Record<string, unknown> & ReturnType<ToolCallParts['sdkOptions']> = p.sdkOptions(options, signal);
    if (manual) sdk.allowInputRequired = true;
    // Progress resets the timeout only when asked for: a call that resets on progress asks for it.
    const onProgress = options.onProgress ?? (sdk.resetTimeoutOnProgress ? () => undefined : undefined);
    if (onProgress) sdk.onprogress = progressOf(onProgress);
    // SEP-2243: the SDK mirrors the marked arguments into Mcp-Param-* headers (its own encoding), within our bound.
    if (declared !== undefined) {
      checkParamHeaders(declared, params.arguments);
      sdk.toolDefinition = declared;
      return client.callTool(params, sdk) as Promise<Record<string, unknown>>;
    }
    return client.request({ method: 'tools/call', params }, LooseResult, sdk);
  }

  // One 2026-07-28 tools/call on the raw path: a result or a question comes back as the SDK's would; a task is followed.
  async function modernCall(
    tasks: ConnectionTasks,
    params: Record<string, unknown>,
    bound: TaskCallOptions,
    options: CallOptions,
    defer: boolean,
  ) {
    const hook = options.onProgress;
    const onProgress =
      hook &&
      ((q: Record<string, unknown>) => {
        const { progress } = q;
        if (typeof progress === 'number') progressOf(hook)({ ...q, progress });
      });
    // A task created after the caller gave up is cancelled at once: it must not run on for nobody.
    const onLate = (late: RawAnswer) => {
      if (late.kind === 'result' && late.result.resultType === 'task' && typeof late.result.taskId === 'string')
        void cancelOnServer(tasks, late.result.taskId);
    };
    const answer = await tasks.raw('tools/call', params, {
      signal: bound.signal,
      requestMs: bound.requestMs,
      onLate,
      ...defined({ onProgress }),
    });
    if (answer.kind === 'error') throw new ProtocolError(answer.error.code, answer.error.message, answer.error.data);
    const result = boundedDepth(answer.result, 'call');
    if (result.resultType !== 'task') return result;
    if (defer) return startedOf(result);
    const questions = {
      read: (task: Record<string, unknown>) => {
        const asked = readInputRequired({ resultType: 'input_required', inputRequests: task.inputRequests });
        return asked?.inputRequests ?? {};
      },
      answer: async (requests: Record<string, McpInputRequest>, signal: AbortSignal) => {
        checkAnswerable(requests, p.handlers, 'call');
        if (Object.values(requests).some((r) => questionRoute(p.handlers, r.method) === 'defer')) throw deferredInTask();
        return answerInline(requests, client, ownSignal(signal));
      },
    };
    // A task's status messages reach the call's progress listener (with the progress it last had: none, 0).
    const onStatus = hook && ((message: string) => progressOf(hook)({ progress: 0, message: p.masked(message) }));
    return followModernTask(tasks, result, questions, { ...bound, ...defined({ onStatus }) });
  }

  // A call and the rounds the connection answers itself; a round with a deferred question comes back. Always in manual
  // mode: every round is read here, under one bound of rounds and of questions per round, whoever answers (E7).
  const callRounds = (name: string, args: Record<string, unknown>, options: CallOptions, defer: boolean) =>
    p.send(
      'call',
      async (signal): Promise<McpCallResult | McpInputRequired | McpTaskStarted> => {
        let retry = options.input === undefined ? {} : await retryParams(options.input, p.handlers, client, ownSignal(signal));
        for (let round = 0; ; round++) {
          const params = { name, arguments: args, ...defined({ _meta: p.metaOf(options.meta) }), ...retry };
          const result = await callOnce(name, params, options, signal, true, defer);
          if (result.resultType === 'task') {
            // Only a call that defers tasks hands one back (issue 58 #2: never a TypeError).
            if (!defer || !isTaskStarted(result)) throw notFinal();
            return p.masked(result); // handed back (defer)
          }
          // Only a question is read here; a result is bounded and read once, by readCallResult.
          const asked = result.resultType === 'input_required' ? readInputRequired(boundedDepth(result, 'call')) : undefined;
          if (asked === undefined) return p.masked(readCallResult(result));
          checkAnswerable(asked.inputRequests, p.handlers, 'call');
          if (Object.values(asked.inputRequests).some((r) => questionRoute(p.handlers, r.method) === 'defer'))
            return { ...asked, inputRequests: p.masked(asked.inputRequests) }; // the state stays verbatim
          if (round + 1 >= MAX_INPUT_ROUNDS) throw roundsExceeded();
          const inputResponses = await answerInline(asked.inputRequests, client, ownSignal(signal));
          retry = { inputResponses, ...defined({ requestState: asked.requestState }) };
        }
      },
      options,
    );

  return {
    callTool: async (name, args, options = {}) => {
      const outcome = await callRounds(name, args, options, false);
      if ('resultType' in outcome) throw deferredQuestion(outcome as McpInputRequired);
      return outcome;
    },
    callToolOrInput: (name, args, options = {}) => callRounds(name, args, options, p.deferTasks),
  };
}
