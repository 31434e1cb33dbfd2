/**
 * One error class for the whole library, with stable string codes.
 *
 * Codes are part of the public contract (docs/errors.md) and are never renamed.
 * Messages say what to fix; they never contain argument values or env values.
 */
import { maskSecretText } from './secret-rule.js';
import { defined, setOwn } from './json.js';
import { MAX_CAUSE_DEPTH, MAX_CAUSE_TEXT, MAX_JSON_DEPTH } from './bounds.js';

/** Every stable error code the library throws, in one list: the type, the CLI's exit table and docs/errors.md are checked against it. */
export const AGT_ERROR_CODES = [
  'invalid_input', // a caller passed something malformed (wrong type, bad reference …)
  'invalid_config', // a stored MCP config cannot be launched as it is (R3, R6)
  'schema_load_failed', // a tool schema failed to load (S1, S3, S5, S7)
  'not_found',
  'already_exists',
  'revision_conflict',
  'option_removed', // allowMcp / --allow-mcp (A7)
  'forbidden', // not allowed to use this entry point (G1)
  'spawn_failed',
  'exited_early',
  'handshake_timeout',
  'protocol_error',
  'connection_closed',
  'batch_rejected', // details.reason: identity_mismatch | duplicate_call_id | unknown_tool | …
  'fingerprint_mismatch', // details.part: 'settings' | 'mounts'
  'store_unavailable',
  'call_timeout', // a tool call (or read) got no answer in time; it was cancelled
  'cancelled', // the host cancelled a call (AbortSignal); the server was told
  'auth_required', // a remote server wants (other) credentials: 401/403 or an unfinished OAuth flow
  'output_invalid', // a tool result's structuredContent does not match the tool's outputSchema
  'server_unavailable', // a pooled server failed to start repeatedly; its key fails fast for a cool-down
  'approval_stale', // an approved call's tool changed or went away since it was deferred; it did not run
  'protocol_mismatch', // a config pins an MCP protocol era the server does not offer (E1); details.offered
  'input_stale', // a call waiting for input: its tool changed or went away before it was answered; it was not retried
  'input_rounds_exceeded', // a server kept asking for input past the bound of rounds; the call was stopped
  'model_response_invalid', // a model provider's response lacks what its adapter reads (details.provider, details.field)
  'interrupted', // a decided call's host stopped before the call ended (its lease ran out); it may or may not have run (run.recover)
  'task_lost', // the server no longer knows a task (its TTL ran out, or the server restarted without it); its result is gone
  'skill_unverified', // a server's skill file differs from its listing (size, digest, frontmatter): it is never shown (K2)
  'sandbox_unavailable', // a server asks for a sandbox this machine cannot give (OS, Node, runtime package, bwrap …): it did not start (P5); details.missing
] as const;

/**
 * Every code the library puts in a result's error, in one list: each AgtError code, and the codes only results
 * carry — a call's status as its code, a server's JSON-RPC refusal, a kit tool's unanswerable question, a probed
 * tool's bad name, a listed record that cannot be read. docs/errors.md has a row for each. A `tool_error` result
 * may also carry a tool's own code (C4), which no list can hold.
 */
export const RESULT_ERROR_CODES = [
  ...AGT_ERROR_CODES,
  'invalid_arguments', // the call's arguments are not valid for its tool (its status too)
  'permission_denied', // a policy, hook or person denied the call (its status too)
  'tool_error', // the tool answered with an error result that names no code of its own (its status too)
  'tool_failed', // the tool failed and said nothing usable: a handler's undeclared throw (its status too)
  'server_error', // the server refused the call with a JSON-RPC error (details.rpcCode)
  'unsupported', // a kit tool asked the client for what it does not offer (elicitation, sampling, roots)
  'invalid_answer', // the client's answer to a kit tool's question does not fit the question
  'duplicate_name', // a probed tool shares its name with another tool of its server
  'invalid_name', // a probed tool's name is not a usable MCP tool name
  'corrupt_record', // a listed resource's stored row cannot be read (ResourceRecord.problem)
] as const;

import type { AgtErrorDetails, ResultErrorDetails } from './error-details.js';

export type { AgtErrorDetails, ConfigProblemDetail, OutputIssueDetail, ResultErrorDetails } from './error-details.js';

/** A stable error code (one of {@link AGT_ERROR_CODES}). */
export type AgtErrorCode = (typeof AGT_ERROR_CODES)[number];

/** A code a result's error carries (one of {@link RESULT_ERROR_CODES}). */
export type ResultErrorCode = (typeof RESULT_ERROR_CODES)[number];

/**
 * The error of a result, and of a ToolError — one shape: a code, a message, and the details its code documents
 * ({@link ResultErrorDetails}). With the default `C` it is a union by code, so `details` narrows on `code`;
 * `ResultError<string>` is an error that may carry a tool's own code (C4), its details the tool's own.
 */
export type ResultError<C extends string = ResultErrorCode> = C extends unknown
  ? { code: C; message: string; details?: C extends ResultErrorCode ? ResultErrorDetails[C] : Record<string, unknown> }
  : never;

// A registered symbol survives duplicate copies of the package (ESM + CJS loaded
// side by side), where `instanceof` does not.
const AGT_ERROR_BRAND = Symbol.for('agt-mcp.AgtError');

// Generic redaction of free text from elsewhere (an SDK, fetch, a server's HTTP body); bounded input, linear patterns.
function redactText(text: string, mask: (text: string) => string): string {
  const bounded = mask(text.length > MAX_CAUSE_TEXT ? `${text.slice(0, MAX_CAUSE_TEXT)}…` : text);
  // user:password@ in URLs, then scheme tokens and secret-named parameters (the one secret rule).
  return maskSecretText(bounded.replace(/([a-z][a-z0-9+.-]{0,20}:\/\/)[^\s/@]{0,200}@/gi, '$1***@'));
}

/**
 * A copy of an error's `cause` that is safe to keep and print: the same name,
 * its message redacted (URL credentials, `Bearer …`/`Basic …` tokens,
 * token-like query parameters, and what `mask` hides), a short string or
 * numeric `code`/`status`, and its own cause the same way (4 levels).
 */
export function redactCause(cause: unknown, mask: (text: string) => string = (text) => text, depth = 0): unknown {
  if (cause === undefined || cause === null) return cause;
  const source = cause instanceof Error ? cause : undefined;
  const copy = new Error(redactText(source ? source.message : String(cause), mask));
  copy.name = source?.name ?? 'Error';
  copy.stack = `${copy.name}: ${copy.message}`;
  for (const key of ['code', 'status', 'errno'] as const) {
    const value = (cause as Record<string, unknown>)[key];
    if (typeof value === 'number' || (typeof value === 'string' && value.length <= 64))
      Object.defineProperty(copy, key, { value: typeof value === 'string' ? mask(value) : value, enumerable: true });
  }
  const inner = (source as { cause?: unknown } | undefined)?.cause;
  if (inner !== undefined && depth < MAX_CAUSE_DEPTH)
    Object.defineProperty(copy, 'cause', {
      value: redactCause(inner, mask, depth + 1),
      enumerable: false,
      configurable: true,
      writable: true,
    });
  return copy;
}

/** `error` again with `mask` applied to its message, every string of its details (at any depth, bounded) and its cause chain. */
export function maskError(error: AgtError, mask: (text: string) => string): AgtError {
  const details = error.details === undefined ? undefined : (maskDeep(error.details, mask, 0) as Record<string, unknown>);
  return new AgtError(error.code, mask(error.message), { ...defined({ details }), ...defined({ cause: error.cause }), mask });
}

// A copy of JSON-like details with every string (keys too) masked; deeper than MAX_JSON_DEPTH is dropped, never walked.
function maskDeep(value: unknown, mask: (text: string) => string, depth: number): unknown {
  if (typeof value === 'string') return mask(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_JSON_DEPTH) return '(not read: nested too deep)';
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, mask, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, mask(key), maskDeep((value as Record<string, unknown>)[key], mask, depth + 1));
  return out;
}

/**
 * The library's error: a stable `code`, a fix-oriented message, optional
 * `details` — the payload its code documents ({@link AgtErrorDetails}).
 */
export class AgtError<C extends AgtErrorCode = AgtErrorCode> extends Error {
  readonly code: C;
  readonly details?: AgtErrorDetails[C];

  /**
   * `cause` is kept as a redacted copy (see {@link redactCause}): URL
   * credentials, auth tokens and the values `mask` hides never sit in it, so
   * `util.inspect` and `JSON.stringify` of an AgtError show no secret.
   */
  constructor(code: C, message: string, options: { details?: AgtErrorDetails[C]; cause?: unknown; mask?: (text: string) => string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: redactCause(options.cause, options.mask) });
    this.name = new.target.name;
    this.code = code;
    if (options.details !== undefined) this.details = options.details;
    Object.defineProperty(this, AGT_ERROR_BRAND, { value: true });
  }

  /** The ToolError shape that goes back to a model. */
  toToolError(): ToolError<C> {
    return toolErrorOf<C>(this.code, this.message, this.details);
  }
}

/** An AgtError of any code, as a union by code: `details` narrows on `code` (`err.code === 'protocol_mismatch'` → `err.details?.offered`). */
export type AnyAgtError = { [C in AgtErrorCode]: AgtError<C> }[AgtErrorCode];

/** True for an AgtError from any copy of this package (ESM or CJS); the error's `details` narrow on its `code`. */
export function isAgtError(value: unknown): value is AnyAgtError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[AGT_ERROR_BRAND] === true;
}

/** The shape of an error that goes back to a model as a tool result: `{ error }`, the error a result carries. */
export interface ToolError<C extends string = ResultErrorCode> {
  error: ResultError<C>;
}

/** Builds a ToolError value: a listed code takes its code's details; `toolErrorOf<string>` builds one with a tool's own code. */
export function toolErrorOf<C extends string>(code: C, message: string, details?: ResultError<C>['details']): ToolError<C> {
  return { error: resultErrorOf(code, message, details) };
}

/** Builds a result's error without empty details; `code` may be a union (an AgtError's code, or a fallback). */
export function resultErrorOf<C extends string>(code: C, message: string, details?: ResultError<C>['details']): ResultError<C> {
  // ResultError<C> resolves by code only once C is known; the shape is the same for every C.
  return (details === undefined ? { code, message } : { code, message, details }) as ResultError<C>;
}

/** The text parts of MCP tool-result content, joined. */
export function contentText(content: readonly unknown[]): string {
  return content
    .map((c) =>
      typeof c === 'object' && c !== null && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : '',
    )
    .join('\n')
    .trim();
}

/** Reads a ToolError back out of a tool result's text content, when the text is one. */
export function readToolError(content: readonly unknown[]): ResultError<string> | undefined {
  try {
    const parsed = JSON.parse(contentText(content)) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    const error = parsed?.error;
    if (typeof error !== 'object' || error === null || typeof error.code !== 'string') return undefined;
    return {
      code: error.code,
      message: typeof error.message === 'string' ? error.message : 'the tool reported an error',
      ...(typeof error.details === 'object' && error.details !== null ? { details: error.details as Record<string, unknown> } : {}),
    };
  } catch {
    return undefined; // plain text: not the ToolError convention
  }
}

const TOOL_ERROR_BRAND = Symbol.for('agt-mcp.ToolErrorSignal');

/** A business or permission failure a tool handler reports (C4): it becomes a tool error result with its code. */
export class ToolErrorSignal extends Error {
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ToolErrorSignal';
    this.code = code;
    if (details !== undefined) this.details = details;
    Object.defineProperty(this, TOOL_ERROR_BRAND, { value: true });
  }
}

/** True for a ToolErrorSignal from any copy of this package (ESM or CJS). */
export function isToolErrorSignal(value: unknown): value is ToolErrorSignal {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_ERROR_BRAND] === true;
}
