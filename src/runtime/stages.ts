/**
 * The per-call stages of the batch pipeline (B3–B5), each a named function
 * whose outcome either lets the call go on or ends it with a ToolResult:
 * parse and validate → permission → before hooks → (execute) → output check →
 * after hooks. An invalid call never reaches a policy or a backend (B4).
 * Stages that wait on the host (a human, a hook) end as `cancelled` when the
 * run or batch is cancelled, without waiting any longer.
 */
import { isAgtError } from '../errors.js';
import { defined, isPlainObject, jsonStringBytes, measureJson } from '../json.js';
import { type ArgumentLimits, type ArgumentsRead, readArguments } from './arguments.js';
import { MAX_JSON_DEPTH } from '../bounds.js';
import { DEFAULT_LIMITS } from './limits.js';
import { errorOfContent, type HandlerOutput, outputContent } from '../results.js';
import { type ArgumentIssue, serverSafeIssues } from '../schema/issues.js';
import type { CompiledToolSchema } from '../schema/registry.js';
import type { AfterHook, BeforeHook, PermissionPolicy, PermissionRequest, ResultError, ToolResult } from './types.js';

/** A result that is not ok. */
export type FailedResult = Exclude<ToolResult, { status: 'ok' }>;

/** A stage that stopped the call: its result, and who decided when a decider did (for the audit). */
export interface Stopped {
  go: false;
  result: FailedResult;
  decidedBy?: string;
}

/** A stage's outcome: go on with a value, or stop with a failed result. */
export type Stage<T> = { go: true; value: T } | Stopped;

/** Stage 3 deferred the call: it waits, without a result, for the host's decision (run.decide). */
export interface Deferred {
  go: false;
  deferred: true;
  by: string;
  reason?: string;
}

/** A result of a call that went through, with `fields` (content, structuredContent, _meta); one literal, no intermediate objects. */
export function okResult(
  callId: string,
  fields: { content: unknown[]; structuredContent?: unknown; _meta?: Record<string, unknown> },
): ToolResult {
  return { callId, status: 'ok', ...fields };
}

/** The result of a local handler's output (framework, delegate and harness tools): an MCP result with `isError` is a tool_error. */
export function outputResult(callId: string, output: HandlerOutput | unknown[]): ToolResult {
  const { content, structuredContent, _meta, isError } = outputContent(output);
  if (isError === true) return failedResult(callId, 'tool_error', errorOfContent(content));
  return okResult(callId, { content, ...defined({ structuredContent, _meta }) });
}

/** A failed result from a `{ status, error }` outcome (failureOf). */
export function withIds(callId: string, outcome: Pick<FailedResult, 'status' | 'error'>): FailedResult {
  return { callId, status: outcome.status, error: outcome.error };
}

/** A failed result of a call. */
export const failedResult = (callId: string, status: FailedResult['status'], error: ResultError): FailedResult => ({
  callId,
  status,
  error,
});

/** A stopped stage with a failed result. */
export const failed = (callId: string, status: FailedResult['status'], error: ResultError, decidedBy?: string): Stopped => ({
  go: false,
  result: failedResult(callId, status, error),
  ...defined({ decidedBy }),
});

/** The result of a call the host cancelled, or that the batch deadline ended (`signal.reason` a call_timeout AgtError). */
export const cancelledResult = (callId: string, signal?: AbortSignal): FailedResult => {
  const reason: unknown = signal?.reason;
  if (isAgtError(reason) && reason.code === 'call_timeout')
    return failedResult(callId, 'tool_failed', { code: 'call_timeout', message: reason.message, ...defined({ details: reason.details }) });
  return failedResult(callId, 'tool_failed', { code: 'cancelled', message: 'the call was cancelled by the host before it finished' });
};

const ABORTED = Symbol('aborted');

/** The signal of a run and batch that nobody can cancel (no host signal given). */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** `promise`, or ABORTED as soon as `signal` aborts (the promise is then ignored). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (signal === undefined || signal === NEVER_ABORTED) return promise;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** True for the value `abortable` gives when the signal aborted. */
export const wasAborted = (value: unknown): value is typeof ABORTED => value === ABORTED;

/**
 * Stage 2: the arguments as read in stage 1 (readArguments), valid for the
 * route's schema; unreadable ones are the call's `invalid_arguments`.
 */
export function validateArguments(
  callId: string,
  read: ArgumentsRead,
  route: { validator: CompiledToolSchema },
): Stage<Record<string, unknown>> {
  if (!read.ok) {
    const issues: ArgumentIssue[] = [{ instancePath: '', schemaPath: '', keyword: read.keyword, message: read.message }];
    return failed(callId, 'invalid_arguments', { code: 'invalid_arguments', message: read.message, details: { issues } });
  }
  const validation = route.validator.validate(read.value);
  if (!validation.ok) {
    const first = validation.issues[0];
    const where = first?.instancePath ? ` at "${first.instancePath}"` : '';
    return failed(callId, 'invalid_arguments', {
      code: 'invalid_arguments',
      message: `the arguments do not match the tool's schema${where}: ${first?.message ?? 'invalid'}; correct them and call again`,
      details: { issues: validation.issues },
    });
  }
  return { go: true, value: read.value as Record<string, unknown> };
}

/** Stages 1–2 for one call outside a batch (harness tools): read the arguments, then validate them. */
export function parseAndValidate(
  callId: string,
  raw: unknown,
  route: { validator: CompiledToolSchema },
  limits: ArgumentLimits = DEFAULT_LIMITS,
): Stage<Record<string, unknown>> {
  return validateArguments(callId, readArguments(raw, limits), route);
}

/**
 * Stage 3: the permission policy (G4). A throw or an abstention denies; a
 * cancelled run ends the wait; `defer` leaves the call waiting for run.decide.
 */
export async function reviewPermission(
  request: PermissionRequest,
  policy: PermissionPolicy,
  signal: AbortSignal,
): Promise<Stage<string> | Deferred> {
  let verdict;
  try {
    verdict = await abortable(policy.review(request, { signal }), signal);
  } catch {
    verdict = { decision: 'deny' as const, by: 'policy' as const, reason: 'the permission policy failed' };
  }
  if (wasAborted(verdict)) return { go: false, result: cancelledResult(request.callId, signal) };
  if (verdict.decision === 'allow') return { go: true, value: verdict.by };
  if (verdict.decision === 'defer') return { go: false, deferred: true, by: verdict.by, ...defined({ reason: verdict.reason }) };
  return failed(
    request.callId,
    'permission_denied',
    {
      code: 'permission_denied',
      message: verdict.reason ?? 'this call was not allowed',
      details: { by: verdict.by },
    },
    verdict.by,
  );
}

/** Stage 4: before hooks; the first denial ends the call. */
export async function runBeforeHooks(request: PermissionRequest, hooks: readonly BeforeHook[], signal: AbortSignal): Promise<Stage<null>> {
  for (const hook of hooks) {
    let outcome;
    try {
      outcome = await abortable(Promise.resolve(hook(request)), signal);
    } catch {
      outcome = { deny: 'a before hook failed' };
    }
    if (wasAborted(outcome)) return { go: false, result: cancelledResult(request.callId, signal) };
    if (outcome && typeof outcome === 'object' && typeof outcome.deny === 'string') {
      return failed(request.callId, 'permission_denied', { code: 'permission_denied', message: outcome.deny, details: { by: 'hook' } });
    }
  }
  return { go: true, value: null };
}

const notAnObject: ArgumentIssue = {
  instancePath: '',
  schemaPath: '',
  keyword: 'type',
  message: 'structuredContent must be a JSON object',
};

/**
 * After execute: a result's `structuredContent` must be a JSON object and,
 * when the tool declares an outputSchema, be present and valid for it. A
 * mismatch fails the call (`output_invalid`) with paths only, never values.
 */
export function checkOutput(
  result: ToolResult,
  route: { outputValidator?: CompiledToolSchema; outputNames?: ReadonlySet<string> },
): ToolResult {
  if (result.status !== 'ok') return result; // an isError result is not checked (MCP)
  const structured = result.structuredContent;
  if (structured === undefined) {
    return route.outputValidator === undefined
      ? result
      : outputInvalid(result, 'the tool declares an outputSchema, but its result has no structuredContent', []);
  }
  if (!isPlainObject(structured)) return outputInvalid(result, "the tool's structuredContent is not a JSON object", [notAnObject]);
  if (route.outputValidator === undefined) return result;
  const validation = route.outputValidator.validate(structured);
  if (validation.ok) return result;
  // The server's own property names are its data: never in the message, the issues or the audit.
  const issues = serverSafeIssues(validation.issues, route.outputNames ?? new Set());
  const first = issues[0];
  const where = first?.instancePath ? ` at "${first.instancePath}"` : '';
  return outputInvalid(
    result,
    `the tool's structured result does not match its outputSchema${where}: ${first?.message ?? 'invalid'}`,
    issues,
  );
}

function outputInvalid(result: ToolResult, message: string, issues: readonly ArgumentIssue[]): ToolResult {
  return failedResult(result.callId, 'tool_failed', { code: 'output_invalid', message, details: { issues } });
}

// The whole part as JSON (annotations, _meta and every other field count); a part too deep to measure counts as unlimited.
function partSize(part: unknown): number {
  const size = measureJson(part, { depth: MAX_JSON_DEPTH, bytes: Number.MAX_SAFE_INTEGER });
  return typeof size === 'number' ? size : Number.MAX_SAFE_INTEGER;
}

/**
 * After execute: a result over `maxResultBytes` (every field of every part
 * counted as UTF-8 JSON) keeps its structured content when that fits, then its
 * first parts up to the limit (a text cut at the limit, keeping only its type
 * and text; larger parts dropped), and says so in a last text part. Memory stays
 * bounded: stdio messages and remote bodies are bounded by the transports.
 */
export function boundResult(result: ToolResult, maxBytes: number): ToolResult {
  const content = result.status === 'ok' ? result.content : (result.error.details?.content as unknown[] | undefined);
  if (!Array.isArray(content)) return result;
  const structured = result.status === 'ok' && result.structuredContent !== undefined ? partSize(result.structuredContent) : 0;
  const sizes = content.map(partSize);
  const total = Math.min(Number.MAX_SAFE_INTEGER, sizes.reduce((n: number, size) => n + size, 0) + structured);
  if (total <= maxBytes) return result;
  // Structured content first (it is what programs read), then the parts in order.
  const keepStructured = structured > 0 && structured <= maxBytes;
  let budget = maxBytes - (keepStructured ? structured : 0);
  const kept: unknown[] = [];
  content.forEach((part, i) => {
    const size = sizes[i] as number;
    if (size <= budget) {
      kept.push(part);
      budget -= size;
    } else if (isPlainObject(part) && part.type === 'text' && typeof part.text === 'string' && budget > 32) {
      const text = cutToBytes(part.text, budget - 32);
      kept.push({ type: 'text', text });
      budget = 0;
    }
  });
  const shown = total === Number.MAX_SAFE_INTEGER ? 'too deep to measure' : `about ${total} bytes`;
  const notice = { type: 'text', text: `[agt-mcp: the result was ${shown}; only the first ${maxBytes} are kept (maxResultBytes)]` };
  if (result.status !== 'ok')
    return { ...result, error: { ...result.error, details: { ...result.error.details, content: [...kept, notice], truncated: true } } };
  const { structuredContent, ...rest } = result;
  return { ...rest, content: [...kept, notice], ...(keepStructured ? { structuredContent } : {}) };
}

// The longest prefix of `text` whose JSON literal fits in `bytes` (escapes and UTF-8 counted; a surrogate pair is never split).
function cutToBytes(text: string, bytes: number): string {
  let used = 2;
  let end = 0;
  while (end < text.length) {
    const pair = (text.charCodeAt(end) & 0xfc00) === 0xd800 && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00;
    const next = end + (pair ? 2 : 1);
    const cost = jsonStringBytes(text.slice(end, next)) - 2;
    if (used + cost > bytes) break;
    used += cost;
    end = next;
  }
  return text.slice(0, end);
}

/** Stage 6: after hooks; each may replace the result's content (redaction). */
export async function runAfterHooks(
  request: PermissionRequest,
  result: ToolResult,
  hooks: readonly AfterHook[],
  signal: AbortSignal,
): Promise<ToolResult> {
  let current = result;
  for (const hook of hooks) {
    try {
      const outcome = await abortable(Promise.resolve(hook(request, current)), signal);
      if (wasAborted(outcome)) return current; // the work is done; a cancel only stops the waiting
      if (outcome && Array.isArray(outcome.content) && current.status === 'ok') current = { ...current, content: outcome.content };
    } catch {
      // an observer's failure does not change the result
    }
  }
  return current;
}
