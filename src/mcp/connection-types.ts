/**
 * The types of an open MCP connection's requests: their options and the
 * shapes of what servers answer. The McpConnection interface itself is in
 * connection.ts, made of parts declared beside the code of each.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { InputMethod } from './requests/client-handlers.js';

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

/** Options of a connection's `callTool` and `callToolOrInput`. */
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

/** What `complete` completes an argument of: a prompt, or a resource template by its URI template. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** Completion values (at most 100, per MCP), how many there are in all, and whether there are more. */
export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}
