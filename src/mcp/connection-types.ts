/**
 * The types of an open MCP connection: the McpConnection interface, the
 * options of its requests and the shapes of what servers answer.
 */
import type { McpTransport } from '../config/mcp-config.js';
import type { EraVerdict, ProtocolEra } from './era.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { InputMethod } from './client-handlers.js';
import type { CacheHints, McpPrompt, McpResource, McpResourceTemplate, RawTool } from './lists.js';
import type { ListChangedKind, LogLevel, McpLogMessage } from './notifications.js';

/** Options of one request that the server answers (a tool call, a read, a prompt). */
export interface RequestOptions {
  /** Aborting cancels the request: the server is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Longest wait for the answer; then the request is cancelled. Default: the connection's `timeouts.callMs`. */
  timeoutMs?: number;
  /** Each progress notification starts `timeoutMs` again (the SDK's resetTimeoutOnProgress). Default: `timeouts.resetOnProgress`. */
  resetTimeoutOnProgress?: boolean;
  /** With resetTimeoutOnProgress: the longest wait in all, progress or not. Default: `timeouts.maxTotalMs`. */
  maxTotalTimeoutMs?: number;
}

/** One skill a server serves (the MCP Skills extension), as listed. */
export interface McpSkill {
  /** The URI of its SKILL.md. */
  uri: string;
  /** Its frontmatter `name` and `description` (masked). */
  name: string;
  description: string;
  /** Its files with their sizes and digests, or `dynamic` (not verifiable: runs do not offer it). */
  files: readonly { uri: string; size: number; digest: string }[] | 'dynamic';
}

/** What `listSkills` returns: the skills, and the server's caching fields (2026-07-28). */
export interface McpSkillListing {
  skills: McpSkill[];
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/** A skill file as read and verified. `text` is absent for a binary file. */
export interface McpSkillFile {
  uri: string;
  size: number;
  mimeType?: string;
  text?: string;
  /** For SKILL.md: the markdown after the frontmatter. */
  body?: string;
}

/** Options of {@link McpConnection.callTool}. */
export interface CallOptions extends RequestOptions {
  /** Progress the server reports for this call (asking for it sets a progress token). */
  onProgress?(progress: { progress: number; total?: number; message?: string }): void;
  /** `_meta` sent with the call. */
  meta?: Record<string, unknown>;
  /** The retry of a call whose server asked for input (2026-07-28): the questions, their answers, the state echoed. */
  input?: InputRetry;
}

/** One question of a 2026-07-28 server inside a call's result: an elicitation, sampling or roots request. */
export interface McpInputRequest {
  method: InputMethod;
  /** As the server sent them (masked): for an elicitation its message and requestedSchema, or its URL. */
  params: Record<string, unknown>;
}

/** A call's result that asks for input first (`resultType: "input_required"`): answer, then retry the same call. */
export interface McpInputRequired {
  resultType: 'input_required';
  /** The questions, by the server's keys. */
  inputRequests: Record<string, McpInputRequest>;
  /** The server's state between rounds: echoed byte for byte on the retry, never parsed, never shown. */
  requestState?: string;
}

/** A task as a client sees it: its id and status; the server's internal fields are never carried. */
export interface McpTask {
  id: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  /** The server's words on how it goes (masked, bounded). */
  statusMessage?: string;
  /** How often the server asks to be polled, clamped to MIN_TASK_POLL_MS – MAX_TASK_POLL_MS. */
  pollIntervalMs?: number;
  /** How long after its creation the server keeps it (null: no limit given). */
  ttlMs?: number | null;
}

/** A call the server runs as a task, handed back instead of waited for (a connection with `tasks: 'defer'`). */
export interface McpTaskStarted {
  resultType: 'task';
  task: McpTask;
}

/** A task's status as `getTask` reads it, with the questions of a 2026-07-28 task that waits for input. */
export interface McpTaskStatus extends McpTask {
  inputRequests?: Record<string, McpInputRequest>;
}

/** The retry of a call that asked for input: its questions, the answers by key, and the server's state as it was. */
export interface InputRetry {
  requests: Readonly<Record<string, McpInputRequest>>;
  /** The answers the caller gives (a question the connection answers itself may be left out). */
  responses: Readonly<Record<string, unknown>>;
  requestState?: string;
}

/**
 * A tool call's result as the server sent it: the SDK's CallToolResult with
 * `content` defaulted to [] (its parts as sent), `isError` always set, and
 * `structuredContent` as sent — judged by the caller (an object, valid for the
 * tool's outputSchema). `_meta` as sent (MCP Apps and other extensions read it).
 */
export type McpCallResult = Pick<CallToolResult, 'content' | '_meta'> & { isError: boolean; structuredContent?: unknown };

/** The contents of one resource. */
export interface ResourceContents {
  contents: ({ uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string })[];
}

/** A prompt, rendered by the server. */
export interface PromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: Record<string, unknown> }[];
}

/** An open connection to one MCP server. */
export interface McpConnection {
  readonly serverInfo: { name: string; version: string };
  readonly protocolVersion: string;
  /** The protocol era the connection speaks (E1): `modern` (2026-07-28, server/discover) or `legacy` (2025, initialize). */
  readonly era: ProtocolEra;
  /** What this connection learned of the server's era, for the next connection to skip discovery (E2). */
  readonly verdict: EraVerdict;
  /**
   * How long the last tools/list may be reused (E3): the server's `ttlMs` and `cacheScope` on a 2026-07-28
   * connection, bounded (lists.ts `cacheHints`); undefined on the 2025 era (reused until a list change).
   */
  toolListHints(): CacheHints | undefined;
  /** The server's declared capabilities. */
  readonly capabilities: Record<string, unknown>;
  /** The server's instructions from initialize (masked): what a host may put in its system prompt. */
  readonly instructions?: string;
  /** The capabilities this client declared (from its handlers). */
  readonly clientCapabilities: Record<string, unknown>;
  readonly transport: McpTransport;
  readonly timings: { spawnMs: number; initializeMs: number };
  /** Things noticed but tolerated, e.g. non-JSON lines skipped on stdout. */
  readonly warnings: string[];
  /** The last part of the server's stderr (stdio only). */
  stderrTail(): string;
  /** All pages of tools/list, tolerant of bad entries (each judged later). */
  listTools(): Promise<RawTool[]>;
  /** All pages of resources/list ([] when the server declares no resources). */
  listResources(): Promise<McpResource[]>;
  /** True when the server declared the MCP Skills extension (SEP-2640). */
  servesSkills(): boolean;
  /**
   * The server's skills (`skills/list`, every page, within `timeouts.listMs` in all — `options.timeoutMs` overrides); none when it
   * does not declare the extension. Invalid entries are left out with a warning.
   */
  listSkills(options?: RequestOptions): Promise<McpSkillListing>;
  /**
   * One file of a skill of the last listing (`path` relative to the skill's folder; default its SKILL.md), verified
   * against the listing (size, sha256 digest, SKILL.md frontmatter): a file that fails is `skill_unverified`, its text never returned.
   */
  readSkill(uri: string, path?: string, options?: RequestOptions): Promise<McpSkillFile>;
  /** All pages of resources/templates/list ([] when the server declares no resources). */
  listResourceTemplates(): Promise<McpResourceTemplate[]>;
  /** Reads one resource; an unknown URI rejects with not_found. */
  readResource(uri: string, options?: RequestOptions): Promise<ResourceContents>;
  /** All pages of prompts/list ([] when the server declares no prompts). */
  listPrompts(): Promise<McpPrompt[]>;
  /** Gets one prompt rendered with `args`. */
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<PromptResult>;
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
  /** A task's status (`tasks/get`); a task the server no longer knows (expired, or the server restarted) is task_lost. */
  getTask(taskId: string, options?: RequestOptions): Promise<McpTaskStatus>;
  /**
   * The result of a task that ended (read, masked); one that failed is protocol_error task_failed, one cancelled is
   * cancelled. `timeoutMs` bounds the whole wait (each poll too): a task not ended by then is call_timeout task_timeout.
   */
  getTaskResult(taskId: string, options?: RequestOptions): Promise<McpCallResult>;
  /** Asks the server to cancel a task (`tasks/cancel`; cooperative: it may still end otherwise). */
  cancelTask(taskId: string, options?: RequestOptions): Promise<void>;
  /** Answers the questions a 2026-07-28 task waits on (`tasks/update`): `responses` by key, or `'inline'`: this connection's own handlers answer `requests`. */
  answerTask(
    taskId: string,
    responses: Record<string, unknown> | 'inline',
    options?: RequestOptions & { requests?: Record<string, McpInputRequest> },
  ): Promise<void>;
  /** Pings the server (`ping`); resolves with the round trip in milliseconds. */
  ping(options?: RequestOptions): Promise<number>;
  /**
   * Completion values for an argument of a prompt or a resource template
   * (`completion/complete`); `context` holds the arguments already chosen.
   * No values when the server does not declare `completions`.
   */
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<Completion>;
  /** The least severe log level the server should send (`logging/setLevel`); protocol_error when it declares no `logging`. */
  setLogLevel(level: LogLevel, options?: RequestOptions): Promise<void>;
  /** Asks for `notifications/resources/updated` of `uri` (see onResourceUpdated); protocol_error unless it declares `resources.subscribe`. */
  subscribeResource(uri: string, options?: RequestOptions): Promise<void>;
  /** Ends a subscription of subscribeResource. */
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void>;
  /** Tells the server the roots changed (`notifications/roots/list_changed`); nothing without roots declared. */
  rootsChanged(): Promise<void>;
  /** Calls `listener` on each list_changed notification of the server; returns the unsubscribe. */
  onListChanged(listener: (kind: ListChangedKind) => void): () => void;
  /** Calls `listener` on each log message of the server (masked; never part of a result); returns the unsubscribe. */
  onLog(listener: (message: McpLogMessage) => void): () => void;
  /** Calls `listener` when a subscribed resource changed; returns the unsubscribe. */
  onResourceUpdated(listener: (update: { uri: string }) => void): () => void;
  /** Calls `listener` when the server says a URL-mode elicitation finished; returns the unsubscribe. */
  onElicitationComplete(listener: (notice: { elicitationId: string }) => void): () => void;
  /** Requests sent and not yet answered, failed or cancelled. */
  readonly inFlight: number;
  /** True once the connection is gone (closed, or the server died). */
  readonly closed: boolean;
  /** Ends the connection; for stdio, the whole process group. Idempotent. */
  close(): Promise<void>;
  /** `await using connection = await connectMcp(…)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What `complete` completes an argument of: a prompt, or a resource template by its URI template. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** Completion values (at most 100, per MCP), how many there are in all, and whether there are more. */
export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}
