/**
 * A kit server's `tools/call`: the arguments checked against the published
 * schema, the handler run — plainly, round trip in the 2026-07-28 era when it
 * asks questions (questions/rounds.ts), or as a task when the tool declares
 * `execution.taskSupport` and the client asked for one (tasks/) — and its
 * output checked against the tool's outputSchema. Invalid arguments, business
 * and permission errors all come back as tool results with isError and a
 * machine-readable `{ error: { code, message, details? } }` text (C4).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallToolRequest, CallToolResult, InputRequiredResult, Server, ServerContext } from '@modelcontextprotocol/server';
import { isPlainObject } from '../json.js';
import { failureOf, outputContent, toolErrorResult } from '../results.js';
import { MAX_TOOL_NAME_LENGTH } from '../bounds.js';
import { parseArguments, type ServableTool, type ToolContext } from './define-tool.js';
import { roundsContext, type Serving, toolContext } from './context.js';
import { NeedsInput, Rounds, type roundsCodec } from './questions/rounds.js';
import type { compiledOutput } from './output.js';
import { outputProblem } from './output.js';
import { callAsTask, requestCapabilities, taskContext } from './tasks/serve.js';
import { legacyTask } from './tasks/wire.js';
import type { KitTasks } from './tasks/runner.js';
import { taskCaller } from './tasks/policy.js';
import { roundsThenTask, startsInHandler } from './tasks/task-after-rounds.js';

/** What a server's tools/call handler needs. */
export interface CallToolParts {
  tools: ReadonlyMap<string, ServableTool>;
  outputs: ReadonlyMap<string, ReturnType<typeof compiledOutput>>;
  codec: ReturnType<typeof roundsCodec>;
  tasks: KitTasks;
  report(error: unknown, tool: string): void;
}

/** The tools/call handler of one built server. */
export function callToolHandler(parts: CallToolParts, server: Server, serving: Serving) {
  const { tools, outputs, codec, report } = parts;
  // The handler's result, checked against the tool's output schema; any failure is a tool error result.
  // `asTask`: a protocol error the handler throws (the SDK's ProtocolError) fails the task instead of being a tool error.
  const run = async (
    tool: ServableTool,
    value: unknown,
    context: ToolContext,
    rounds?: Rounds,
    asTask: boolean | (() => boolean) = false,
  ): Promise<CallToolResult | InputRequiredResult> => {
    try {
      const result = outputContent(await tool.handler(value, context));
      const broken = outputProblem(tool.name, result, outputs.get(tool.name));
      if (broken === undefined) return result; // outputContent built its blocks from the handler's typed output
      report(broken, tool.name); // the server's own bug: its author hears of it; the client gets paths, never values
      return toolErrorResult(broken);
    } catch (error) {
      if (error instanceof NeedsInput && rounds !== undefined) return await rounds.result(error, codec);
      if ((typeof asTask === 'function' ? asTask() : asTask) && error instanceof ProtocolError) throw error;
      const { status, error: failure } = failureOf(error, 'the tool failed unexpectedly'); // a ToolErrorSignal keeps its code; anything else says nothing of the cause
      // A task's handler that ends because its task was cancelled is no failure to tell its author of.
      if (status === 'tool_failed' && !context.signal.aborted) report(error, tool.name);
      return toolErrorResult(failure);
    }
  };
  return async (request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const tool = tools.get(request.params.name);
    if (tool === undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `unknown tool "${request.params.name.slice(0, MAX_TOOL_NAME_LENGTH)}"; tools/list names the tools`,
      );
    const parsed = parseArguments(tool, request.params.arguments);
    const invalid = parsed.ok
      ? undefined
      : toolErrorResult({
          code: 'invalid_arguments',
          message: "the arguments do not match the tool's schema",
          details: { issues: parsed.issues },
        });
    const params: Record<string, unknown> = request.params;
    // A 2025 client that asked for a task gets one whatever comes of it (the task's result says the arguments are invalid).
    if (invalid !== undefined && !(serving.era === 'legacy' && isPlainObject(params.task) && tool.execution !== undefined)) return invalid;
    const meta = isPlainObject(request.params._meta) ? request.params._meta : {};
    const context = toolContext(server, ctx, meta, serving);
    const owner = context.caller?.id ?? null;
    // Input first, then a task: a taskStart 'handler' tool asks by rounds and becomes a task at ctx.startTask().
    if (startsInHandler(tool, serving.era, server, ctx)) {
      const rounds = await Rounds.take(ctx, tool.name, request.params.arguments, owner, parts.codec);
      const value = parsed.ok ? parsed.value : undefined;
      return roundsThenTask({
        tool,
        call: { params, server, ctx },
        context,
        rounds,
        tasks: parts.tasks,
        starter: taskCaller(context.caller, ctx),
        owner,
        run: (handlerContext, asTask) => run(tool, value, handlerContext, rounds, asTask),
      });
    }
    const task = await callAsTask(
      tool.execution?.taskSupport,
      { era: serving.era, params, server, ctx },
      {
        start: (ttl) =>
          parts.tasks.start(
            tool.name,
            taskCaller(context.caller, ctx), // an anonymous caller's 2025 session: what its tasks/list shows (issue 58 #3)
            ttl,
            (control) =>
              invalid !== undefined
                ? Promise.resolve(invalid)
                : run(
                    tool,
                    parsed.ok ? parsed.value : undefined,
                    taskContext(context, control, serving.era, requestCapabilities(server, ctx)),
                    undefined,
                    true,
                  ),
            // 2025: the client hears of each change (notifications/tasks/status) and need not wait for its next poll.
            serving.era === 'legacy'
              ? (record) =>
                  void server.notification({ method: 'notifications/tasks/status', params: legacyTask(record) }).catch(() => undefined)
              : undefined,
            serving.era === 'modern', // held unstored while the grace runs: a call answered plainly stores nothing
          ),
        refresh: (taskId) => parts.tasks.store.get(taskId),
        cancel: (taskId) => parts.tasks.cancel(taskId, owner),
        endedInGrace: (taskId, signal) => parts.tasks.endedInGrace(taskId, signal),
        pace: (record) => parts.tasks.paced(record),
        commit: (taskId) => parts.tasks.commit(taskId),
      },
    );
    if (task !== undefined) return task;
    // 2026-07-28: a handler's questions go round trip; the state is checked before the handler runs.
    const rounds = serving.era === 'modern' ? await Rounds.take(ctx, tool.name, request.params.arguments, owner, parts.codec) : undefined;
    return run(tool, parsed.ok ? parsed.value : undefined, rounds ? roundsContext(context, rounds) : context, rounds);
  };
}
