/**
 * The per-call stages of the batch pipeline (B3–B5), each a named function
 * whose outcome either lets the call go on or ends it with a ToolResult:
 * parse and validate → permission → before hooks → (execute) → output check →
 * after hooks. An invalid call never reaches a policy or a backend (B4).
 * Stages that wait on the host (a human, a hook) end as `cancelled` when the
 * run or batch is cancelled, without waiting any longer.
 */
import { isPlainObject } from '../json.js';
import type { ArgumentIssue } from '../schema/issues.js';
import type { CompiledToolSchema } from '../schema/registry.js';
import type { AfterHook, BeforeHook, PermissionPolicy, PermissionRequest, ResultError, ToolCall, ToolResult } from './types.js';

/** A stage's outcome: go on with a value, or stop with a result. */
export type Stage<T> = { go: true; value: T } | { go: false; result: ToolResult };

/** A stopped stage with a failed result. */
export const failed = (id: string, status: Exclude<ToolResult['status'], 'ok'>, error: ResultError): { go: false; result: ToolResult } => ({
  go: false,
  result: { tool_call_id: id, status, error },
});

/** The result of a call the host cancelled. */
export const cancelledResult = (id: string): ToolResult =>
  failed(id, 'tool_failed', { code: 'cancelled', message: 'the call was cancelled by the host before it finished' }).result;

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

/** Stage 2: arguments as an object (a JSON string or an object), valid for the route's schema. */
export function parseAndValidate(call: ToolCall, route: { validator: CompiledToolSchema }): Stage<Record<string, unknown>> {
  let args: unknown = call.arguments;
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      return failed(call.id, 'invalid_arguments', {
        code: 'invalid_arguments',
        message: 'the arguments are not valid JSON; send a JSON object',
        details: { issues: [{ instancePath: '', schemaPath: '', keyword: 'json', message: 'not valid JSON' }] satisfies ArgumentIssue[] },
      });
    }
  }
  const validation = route.validator.validate(args);
  if (!validation.ok) {
    const first = validation.issues[0];
    const where = first?.instancePath ? ` at "${first.instancePath}"` : '';
    return failed(call.id, 'invalid_arguments', {
      code: 'invalid_arguments',
      message: `the arguments do not match the tool's schema${where}: ${first?.message ?? 'invalid'}; correct them and call again`,
      details: { issues: validation.issues },
    });
  }
  return { go: true, value: args as Record<string, unknown> };
}

/** Stage 3: the permission policy (G4). A throw or an abstention denies; a cancelled run ends the wait. */
export async function reviewPermission(request: PermissionRequest, policy: PermissionPolicy, signal: AbortSignal): Promise<Stage<string>> {
  let verdict;
  try {
    verdict = await abortable(policy.review(request, { signal }), signal);
  } catch {
    verdict = { decision: 'deny' as const, by: 'policy' as const, reason: 'the permission policy failed' };
  }
  if (wasAborted(verdict)) return { go: false, result: cancelledResult(request.callId) };
  if (verdict.decision === 'allow') return { go: true, value: verdict.by };
  return failed(request.callId, 'permission_denied', {
    code: 'permission_denied',
    message: verdict.reason ?? 'this call was not allowed',
    details: { by: verdict.by },
  });
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
    if (wasAborted(outcome)) return { go: false, result: cancelledResult(request.callId) };
    if (outcome && typeof outcome === 'object' && typeof outcome.deny === 'string') {
      return failed(request.callId, 'permission_denied', { code: 'permission_denied', message: outcome.deny, details: { by: 'hook' } });
    }
  }
  return { go: true, value: null };
}

const notAnObject: ArgumentIssue = { instancePath: '', schemaPath: '', keyword: 'type', message: 'structuredContent must be a JSON object' };

/**
 * After execute: a result's `structuredContent` must be a JSON object and,
 * when the tool declares an outputSchema, be present and valid for it. A
 * mismatch fails the call (`output_invalid`) with paths only, never values.
 */
export function checkOutput(result: ToolResult, route: { outputValidator?: CompiledToolSchema }): ToolResult {
  if (result.status !== 'ok') return result; // an isError result is not checked (MCP)
  const structured = result.structuredContent;
  if (structured === undefined) {
    return route.outputValidator === undefined ? result : outputInvalid(result, 'the tool declares an outputSchema, but its result has no structuredContent', []);
  }
  if (!isPlainObject(structured)) return outputInvalid(result, "the tool's structuredContent is not a JSON object", [notAnObject]);
  if (route.outputValidator === undefined) return result;
  const validation = route.outputValidator.validate(structured);
  if (validation.ok) return result;
  const first = validation.issues[0];
  const where = first?.instancePath ? ` at "${first.instancePath}"` : '';
  return outputInvalid(result, `the tool's structured result does not match its outputSchema${where}: ${first?.message ?? 'invalid'}`, validation.issues);
}

function outputInvalid(result: ToolResult, message: string, issues: readonly ArgumentIssue[]): ToolResult {
  return failed(result.tool_call_id, 'tool_failed', { code: 'output_invalid', message, details: { issues } }).result;
}

/** Stage 6: after hooks; each may replace the result's content (redaction). */
export async function runAfterHooks(request: PermissionRequest, result: ToolResult, hooks: readonly AfterHook[], signal: AbortSignal): Promise<ToolResult> {
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
