/**
 * A kit server's tasks on the wire: which `tools/call` becomes a task (a tool
 * that declares `execution.taskSupport`, called by a client that asked for one:
 * `params.task` in 2025, the extension in the request's capabilities on
 * 2026-07-28), the task methods of each era, and the context a handler runs
 * with as a task. Written against the Tasks specification with the wire
 * shapes of `@modelcontextprotocol/ext-tasks` (the SDK has no server side of
 * the extension yet; when it ships, it replaces this folder).
 */
import {
  type CallToolResult,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as v from 'valibot';
import { isPlainObject } from '../../json.js';
import { isAgtError, ToolErrorSignal } from '../../errors.js';
import { TASKS_EXTENSION } from '../../mcp/tasks/capabilities.js';
import { unawaitable } from '../context.js';
import type { TaskSupport, ToolContext } from '../define-tool.js';
import type { KitTasks, TaskControl } from './runner.js';
import type { TaskRecord } from './store.js';
import { detailedTask, legacyTask, modernTask, RELATED_TASK_META } from './wire.js';

/** The capabilities a server with task tools declares, by era. */
export function taskCapabilities(era: 'legacy' | 'modern'): Record<string, unknown> {
  return era === 'legacy'
    ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
    : { extensions: { [TASKS_EXTENSION]: {} } };
}

const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

// -32021: the request did not declare the Tasks extension it needs.
const missingExtension = () =>
  new ProtocolError(-32021, 'Missing required client capability', { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });

/** What the client of this request declared: its own capabilities (a 2026-07-28 request's envelope), else the connection's. */
export function requestCapabilities(server: Server, ctx: ServerContext): Record<string, unknown> {
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
  const own = envelope?.[CLIENT_CAPABILITIES_META];
  return isPlainObject(own) ? own : { ...(server.getClientCapabilities() ?? {}) };
}

// The client asked for a task: `params.task` (2025), or the extension among the request's capabilities (2026-07-28).
function asked(era: 'legacy' | 'modern', params: Record<string, unknown>, server: Server, ctx: ServerContext): boolean {
  if (era === 'legacy') return isPlainObject(params.task);
  const extensions = requestCapabilities(server, ctx).extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/**
 * What a `tools/call` of a tool with `support` becomes: `undefined` when it runs as a plain call, else the task's
 * answer (the handler started as a task by `start`), or the error of a tool that runs only as a task.
 */
export async function callAsTask(
  support: TaskSupport | undefined,
  call: { era: 'legacy' | 'modern'; params: Record<string, unknown>; server: Server; ctx: ServerContext },
  task: {
    start: (requestedTtlMs: number | undefined) => Promise<TaskRecord>;
    refresh: (taskId: string) => Promise<TaskRecord | undefined>;
    cancel: (taskId: string) => Promise<unknown>;
    /** 2026-07-28: the task's end if its handler ends within the server's grace (grace.ts); none: no grace. */
    endedInGrace?: (taskId: string, signal: AbortSignal) => Promise<TaskRecord | undefined>;
    /** The record as the client is shown it (a young task's interval paced by its age, grace.ts); none: as stored. */
    pace?: (record: TaskRecord) => TaskRecord;
    /** Stores a task started unstored for its grace (provisional.ts), as the call is answered with it. */
    commit?: (taskId: string) => Promise<void>;
  },
): Promise<CallToolResult | undefined> {
  if (support === undefined || support === 'forbidden') return undefined;
  const { era, params } = call;
  if (!asked(era, params, call.server, call.ctx)) {
    if (support === 'optional') return undefined;
    if (era === 'legacy') throw new ProtocolError(-32601, 'this tool runs only as a task: call it with "task" in the params');
    throw missingExtension();
  }
  const ttl = isPlainObject(params.task) && typeof params.task.ttl === 'number' ? params.task.ttl : undefined;
  const first = await task.start(ttl).catch((error: unknown) => Promise.reject(toClient(error)));
  // 2026-07-28, where the server decides: a handler that ended within the grace answers as a plain call would.
  if (era === 'modern' && task.endedInGrace !== undefined) {
    const direct = plainAnswer(await task.endedInGrace(first.taskId, call.ctx.mcpReq.signal));
    if (direct !== undefined) return direct;
    // Answered with its task: stored now, so a tasks/get finds it (a store that refuses it fails the call; the handler stops).
    await task.commit?.(first.taskId).catch((error: unknown) => Promise.reject(toClient(error)));
  }
  // The task as it is when answered: a handler that ended already (one turn of the event loop) is answered ended,
  // so the client reads its result at once instead of after its first poll interval.
  await new Promise<void>((resolve) => setImmediate(resolve));
  // (A store that fails this read still has the task answered: it was stored, and runs.)
  const stored = (await task.refresh(first.taskId).catch(() => undefined)) ?? first;
  const record = task.pace?.(stored) ?? stored;
  // The creating request was cancelled (notifications/cancelled, or its connection closed) before this answer went
  // out: the SDK sends none, so no client can ever name the task — it is cancelled here, not left running for nobody.
  // (Checked last: the SDK sends the answer in the same turn, before any other message is read.)
  if (call.ctx.mcpReq.signal.aborted) await task.cancel(first.taskId).catch(() => undefined);
  // The SDK's tools/call check wants content beside a 2025 task (the task is what the client reads).
  if (era === 'legacy') return { task: legacyTask(record), content: [] };
  // The SDK types a tools/call handler's result as CallToolResult | InputRequiredResult (its v2 has no tasks); the Tasks extension's CreateTaskResult has no content, and the SDK's check lets `resultType: 'task'` through.
  return { resultType: 'task', ...modernTask(record) } as unknown as CallToolResult;
}

// The answer of a task that ended within the grace: its result (a tool error among them), or its JSON-RPC error, as
// the client would have read it from the task; undefined for a cancelled one (answered with the task, as it is).
function plainAnswer(record: TaskRecord | undefined): CallToolResult | undefined {
  if (record?.status === 'completed' && record.result !== undefined) return record.result as CallToolResult;
  if (record?.status === 'failed' && record.error !== undefined)
    throw new ProtocolError(record.error.code, record.error.message, record.error.data);
  return undefined;
}

// What a client is told of an error of the task methods: the kit's refusals (ProtocolError) and its stores' errors
// (AgtError: the kit's words) as they are; anything else — a task store of the author's own, whose driver may quote a
// connection string or a path — only that the store failed (issue 58 #4).
function toClient(error: unknown): unknown {
  if (error instanceof ProtocolError || isAgtError(error)) return error;
  return new ProtocolError(ProtocolErrorCode.InternalError, 'the task store failed; try again later');
}

const TaskIdParams = v.looseObject({ taskId: v.string() });

/** Registers the task methods of `era` on `server`, for the tasks of `owner(ctx)`. */
export function serveTaskMethods(
  server: Server,
  era: 'legacy' | 'modern',
  tasks: KitTasks,
  owner: (ctx: ServerContext) => string | null,
): void {
  const handle = (
    method: string,
    run: (params: v.InferOutput<typeof TaskIdParams>, ctx: ServerContext) => Promise<Record<string, unknown>>,
  ) =>
    server.setRequestHandler(method, { params: TaskIdParams }, (params, ctx) => {
      // 2026-07-28: the task methods belong to the extension; a request that does not declare it is refused.
      if (era === 'modern' && !asked(era, {}, server, ctx)) throw missingExtension();
      return run(params, ctx).catch((error: unknown) => Promise.reject(toClient(error)));
    });
  if (era === 'legacy') {
    handle('tasks/get', async (p, ctx) => legacyTask(await tasks.look(p.taskId, owner(ctx), ctx.mcpReq.signal)));
    // 2025-11-25: the cancel of a task that already ended MUST be refused with -32602 (invalid params).
    handle('tasks/cancel', async (p, ctx) => {
      const before = await tasks.get(p.taskId, owner(ctx));
      if (['completed', 'failed', 'cancelled'].includes(before.status))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the task already ended (${before.status}): it cannot be cancelled`);
      return legacyTask(await tasks.cancel(p.taskId, owner(ctx)));
    });
    // tasks/result waits for the end, then answers as the call would have: its result, or its error.
    handle('tasks/result', async (p, ctx) => {
      const record = await tasks.ended(p.taskId, owner(ctx), ctx.mcpReq.signal);
      if (record.status === 'failed' && record.error) throw new ProtocolError(record.error.code, record.error.message, record.error.data);
      if (record.status === 'cancelled') throw new ProtocolError(-32603, 'the task was cancelled');
      return { ...record.result, _meta: { ...(record.result?._meta as object), [RELATED_TASK_META]: { taskId: record.taskId } } };
    });
    server.setRequestHandler('tasks/list', { params: v.optional(v.looseObject({})) }, async (_params, ctx) => ({
      tasks: (
        await tasks
          .list(owner(ctx as ServerContext), (ctx as ServerContext).sessionId)
          .catch((error: unknown) => Promise.reject(toClient(error)))
      ).map(legacyTask),
    }));
    return;
  }
  handle('tasks/get', async (p, ctx) => detailedTask(await tasks.look(p.taskId, owner(ctx), ctx.mcpReq.signal)));
  handle('tasks/cancel', async (p, ctx) => {
    await tasks.cancel(p.taskId, owner(ctx));
    return {};
  });
  handle('tasks/update', async (p, ctx) => {
    // The SDK lifts a request's inputResponses out of its params (they are the 2026-07-28 answers of any request).
    // It leaves out an answer that is not an object (droppedInputResponseKeys): the kit refuses it, never drops it silently.
    const { inputResponses: lifted, droppedInputResponseKeys: dropped } = ctx.mcpReq as {
      inputResponses?: unknown;
      droppedInputResponseKeys?: string[];
    };
    await tasks.update(p.taskId, owner(ctx), lifted ?? (p as { inputResponses?: unknown }).inputResponses, dropped);
    return {};
  });
}

/**
 * The context a handler runs with as a task: the task's cancellation signal; progress messages become the task's
 * statusMessage; in the 2026-07-28 era a question waits in the task (input_required, answered by tasks/update).
 * Log messages are not sent from a task (the extension has no stream for them).
 */
export function taskContext(
  base: ToolContext,
  control: TaskControl,
  era: 'legacy' | 'modern',
  capabilities: Readonly<Record<string, unknown>> = base.clientCapabilities,
): ToolContext {
  const context: ToolContext = {
    ...base,
    signal: control.signal,
    progress: unawaitable(async (_progress, options = {}) => {
      if (options.message !== undefined) await control.status(options.message);
    }),
    async log() {},
    closeStream() {},
  };
  if (era === 'legacy') return context;
  // A question the request's client did not declare it takes is the tool's own error (as on a plain call), never asked.
  const ask = <T>(request: { method: string; params?: Record<string, unknown> }) => {
    const feature =
      request.method === 'elicitation/create' ? 'elicitation' : request.method === 'sampling/createMessage' ? 'sampling' : 'roots';
    if (capabilities[feature] === undefined)
      return Promise.reject(
        new ToolErrorSignal('unsupported', `the client does not offer ${feature}; the tool cannot ask for it`, { feature }),
      );
    return control.ask(request) as Promise<T>;
  };
  const modern: ToolContext = {
    ...context,
    sample: (params) => ask(inputRequired.createMessage(params)),
    elicit: (params) => ask(params.mode === 'url' ? inputRequired.elicitUrl(params) : inputRequired.elicit(params)),
    roots: async () => (await ask<{ roots: { uri: string; name?: string }[] }>(inputRequired.listRoots())).roots,
    ask: async (questions) => {
      const answers: Record<string, unknown> = {};
      for (const [key, q] of Object.entries(questions))
        answers[key] =
          'elicit' in q ? await modern.elicit(q.elicit) : 'sample' in q ? await modern.sample(q.sample) : { roots: await modern.roots() };
      return answers;
    },
  };
  return modern;
}
