/**
 * defineTool (C2): one valibot object schema is the single source of a tool's
 * arguments. The published inputSchema is generated from it (JSON Schema
 * 2020-12, by schema/valibot/valibot.ts, which the runtime's framework tools share);
 * the server checks incoming arguments against that published schema, then
 * shapes them with the valibot schema stripped of its checks (parseArguments).
 * Anything valibot cannot express in JSON Schema (transforms, custom checks)
 * or expresses only as an annotation (formats) fails at definition time, so
 * the two can never drift.
 */
import type * as v from 'valibot';
import { AgtError, ToolErrorSignal } from '../errors.js';
import { MODEL_TOOL_NAME } from '../tool-names.js';
import type { HandlerOutput } from '../results.js';
import { publishValibot } from '../schema/valibot/valibot.js';
import { defined } from '../json.js';
import type { ToolAnnotations } from '../mcp/requests/lists.js';
import { type DefinedApp, defineApp, type ToolApp } from './app.js';
import type {
  AuthInfo,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  LoggingLevel,
} from '@modelcontextprotocol/server';

export { ToolErrorSignal } from '../errors.js';

/** How a tool may run as a task (MCP `execution.taskSupport`). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';
export { parseArguments } from '../schema/valibot/valibot.js';

/** The authenticated caller of a request. */
export interface Caller {
  id: string;
  via: 'auth' | 'process';
  scopes: readonly string[];
}

/** What a handler gets besides its typed input. */
/**
 * A question's options. In the 2026-07-28 era a handler's question ends the
 * round (`input_required`) and the handler runs again, from the start, once
 * the client answers: every question it asked before returns its answer at
 * once. So what a handler does before its last question runs once per round —
 * keep it free of side effects (read, check, compute), and act after the
 * questions. `key` names the question on the wire (default `q1`, `q2`, … in
 * the order asked).
 */
export interface QuestionOptions {
  key?: string;
}

/** One of several questions asked at once ({@link ToolContext.ask}). */
export type Question = { elicit: ElicitRequest['params'] } | { sample: CreateMessageRequest['params'] } | { roots: true };

export interface ToolContext {
  /** The request's `_meta`, if the client sent one. */
  meta: Readonly<Record<string, unknown>>;
  /**
   * Who is calling, from the transport's authentication — never from anything
   * the client writes in the request (`_meta.caller` counts for nothing):
   * `via: 'auth'` the request's AuthInfo (`id`: its clientId, with its scopes),
   * `via: 'process'` on stdio the process owner (the user who started the
   * server); undefined on an unauthenticated transport.
   */
  caller: Caller | undefined;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /** The request's authentication, when the transport has one (the SDK's bearer auth on HTTP). */
  authInfo?: Readonly<AuthInfo>;
  /** Reports progress on this call (sent only when the client asked for it with a progress token). */
  progress(progress: number, options?: { total?: number; message?: string }): Promise<void>;
  /** Sends a log message (`notifications/message`) at `level`, unless the client set a higher level. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the client's model (`sampling/createMessage`); a client that does not offer sampling is the tool error
   * `unsupported`. In the 2026-07-28 era a question goes round trip: see {@link QuestionOptions}.
   */
  sample(request: CreateMessageRequest['params'], options?: QuestionOptions): Promise<CreateMessageResult>;
  /** Asks the client's user (`elicitation/create`); a client that does not offer elicitation is the tool error `unsupported`. */
  elicit(request: ElicitRequest['params'], options?: QuestionOptions): Promise<ElicitResult>;
  /** The client's roots (`roots/list`): the directories it offers; a client that does not offer roots is the tool error `unsupported`. */
  roots(options?: QuestionOptions): Promise<{ uri: string; name?: string }[]>;
  /**
   * Several questions at once, by key — one round in the 2026-07-28 era (one `input_required` with all of them),
   * one after the other on a 2025 connection. The answers by key: an ElicitResult, a CreateMessageResult, or
   * `{ roots }`.
   */
  ask(questions: Readonly<Record<string, Question>>): Promise<Record<string, unknown>>;
  /** What the client declared it can do (`elicitation`, `sampling`, `roots` …): ask only what it offers. */
  clientCapabilities: Readonly<Record<string, unknown>>;
  /**
   * Closes this call's SSE stream now (HTTP with resumption, SEP-1699): the
   * client reconnects and gets the rest of the call from the event store. Does
   * nothing on other transports.
   */
  closeStream(): void;
  /**
   * Becomes a task here, for a tool that declares `execution.taskStart: 'handler'`: on 2026-07-28, with the client's
   * request declaring the Tasks extension, the call is answered with the task once it exists, and what the handler
   * does after this runs as the task (`signal` follows the task, progress sets its statusMessage, a later question
   * waits in it). The questions before it go by rounds. Anywhere else — a 2025 call (a task from the start when the
   * client asked), a task already, a plain call — it does nothing.
   */
  startTask(): Promise<void>;
}

/**
 * What a handler may return: text; data (any other object: sent as JSON text
 * and as structuredContent, whatever its fields); or an MCP tool result —
 * `toolResult({ content, structuredContent?, isError? })`, or an object of
 * exactly those fields — sent as given, `isError` included.
 */
export type ToolOutput = HandlerOutput;

/** What a tool publishes besides its input: a display title, behaviour hints, and the schema of its structured result. */
interface ToolDescription {
  readonly name: string;
  readonly description: string;
  readonly title?: string;
  readonly annotations?: Readonly<ToolAnnotations>;
  /** Generated from `output`; the server checks every structured result against it before sending. */
  readonly outputSchema?: Record<string, unknown>;
  /** Whether the tool may run as a task (MCP `execution.taskSupport`), as published. */
  readonly execution?: Readonly<{ taskSupport: TaskSupport }>;
  /** Its interface (MCP Apps): served as a `ui://` resource, named in the tool's `_meta.ui`. */
  readonly app?: DefinedApp;
}

/** A tool definition, ready to serve. */
export interface DefinedTool<S extends v.GenericSchema = v.GenericSchema> extends ToolDescription {
  /** `'handler'`: the task starts at `ctx.startTask()` (its questions before go by rounds); never published. */
  readonly taskStart?: TaskStart;
  readonly input: S;
  /** Generated from `input`; never hand-written. */
  readonly inputSchema: Record<string, unknown>;
  readonly handler: (input: v.InferOutput<S>, context: ToolContext) => ToolOutput | Promise<ToolOutput>;
}

/** When a tool that may run as a task starts it: when the call arrives (default), or when its handler says (`ctx.startTask()`). */
export type TaskStart = 'call' | 'handler';

/** Any defined tool, whatever its input type: what a server serves. */
export interface ServableTool extends ToolDescription {
  /** `'handler'`: the task starts at `ctx.startTask()` (its questions before go by rounds); never published. */
  readonly taskStart?: TaskStart;
  readonly input: v.GenericSchema;
  readonly inputSchema: Record<string, unknown>;
  /**
   * The handler, given what its own `input` made of the arguments (parseArguments). A method, whose parameter is
   * checked both ways, so that a DefinedTool of any input type is a ServableTool.
   */
  handler(input: unknown, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/** A tool's definition: its name, description, one valibot object schema per side, and the handler. */
export interface ToolDefinition<S extends v.GenericSchema> {
  name: string;
  description: string;
  /** A display name for people (MCP `title`). */
  title?: string;
  /** Behaviour hints (readOnlyHint, destructiveHint, idempotentHint, openWorldHint), published as declared. */
  annotations?: ToolAnnotations;
  input: S;
  /** The structured result, as a valibot object schema: published as `outputSchema`, and every result is checked against it. */
  output?: v.GenericSchema;
  /**
   * Named schemas of this tool only: each one used in `input` or `output` is
   * published once under `$defs` and referenced with `$ref` (never shared with
   * another tool's).
   */
  definitions?: Record<string, v.GenericSchema>;
  /**
   * `{ taskSupport: 'optional' }`: a client that asks may run the tool as a task (it answers at once with the task;
   * the handler runs on, `ctx.signal` aborts on `tasks/cancel`, and the result is kept for the task's TTL);
   * `'required'`: only as a task. Both protocol eras (the 2026-07-28 Tasks extension). Default: never a task.
   * `taskStart: 'handler'`: on 2026-07-28 the task starts when the handler calls `ctx.startTask()`, its questions
   * before that going by rounds (input first, then a task: SEP-2663); in the 2025 era, as by default, at the call.
   */
  execution?: { taskSupport: TaskSupport; taskStart?: TaskStart };
  /**
   * An interface the host renders for the tool (MCP Apps): the HTML (`html`, or `file` read now), the origins and
   * permissions its frame may use, who may call the tool (`visibility`), its `ui://` URI (default
   * `ui://<server name>/<tool name>`). Checked here: a problem is invalid_input naming the field (`app.csp.…`).
   */
  app?: ToolApp;
  handler: (input: v.InferOutput<S>, context: ToolContext) => ToolOutput | Promise<ToolOutput>;
}

/** Throws a tool error from a handler: `throw toolError('not_found', 'no such ticket')` or just `toolError(...)`. */
export function toolError(code: string, message: string, details?: Record<string, unknown>): never {
  throw new ToolErrorSignal(code, message, details);
}

/** Defines a tool from one valibot object schema (and one for its output); throws invalid_input when a schema cannot be published faithfully. */
export function defineTool<S extends v.GenericSchema>(definition: ToolDefinition<S>): DefinedTool<S> {
  const { name, description, title, annotations, input, output, definitions, execution, app, handler } = definition;
  const support = execution?.taskSupport;
  if (execution !== undefined && support !== 'forbidden' && support !== 'optional' && support !== 'required')
    throw new AgtError('invalid_input', `tool "${String(name)}": execution.taskSupport must be "optional", "required" or "forbidden"`);
  const taskStart = execution?.taskStart;
  if (taskStart !== undefined && taskStart !== 'call' && taskStart !== 'handler')
    throw new AgtError('invalid_input', `tool "${String(name)}": execution.taskStart must be "call" or "handler"`);
  if (taskStart === 'handler' && support !== 'optional' && support !== 'required')
    throw new AgtError(
      'invalid_input',
      `tool "${String(name)}": execution.taskStart "handler" needs execution.taskSupport "optional" or "required" (a tool that never runs as a task has no task to start)`,
    );
  if (typeof name !== 'string' || !MODEL_TOOL_NAME.test(name))
    throw new AgtError('invalid_input', `tool name "${String(name)}" must match ${MODEL_TOOL_NAME}`);
  const inputSchema = publishValibot(name, 'input', input, definitions);
  const outputSchema = output === undefined ? undefined : publishValibot(name, 'output', output, definitions);
  const definedApp = app === undefined ? undefined : defineApp(name, app);
  return Object.freeze({
    name,
    description,
    ...defined({ title, annotations: annotations && Object.freeze({ ...annotations }) }),
    input,
    inputSchema,
    ...defined({ outputSchema }),
    ...(support === undefined ? {} : { execution: Object.freeze({ taskSupport: support }) }),
    ...(taskStart === 'handler' ? { taskStart } : {}),
    ...(definedApp === undefined ? {} : { app: definedApp }),
    handler,
  });
}
