/**
 * The stages of the call pipeline (pipeline.ts lists them in order) that
 * decide whether a call goes on: validate, permission, before hooks, and the
 * after hooks that see its result. Each outcome either lets the call go on or
 * ends it with a failed result. An invalid call never reaches a policy or a
 * backend (B4). Stages that wait on the host (a human, a hook) end as
 * `cancelled` when the run or batch is cancelled, without waiting any longer.
 */
import { resultErrorOf } from '../../errors.js';
import { defined } from '../../json.js';
import { abortable, wasAborted } from './abort.js';
import { type ArgumentLimits, type ArgumentsRead, readArguments } from './arguments.js';
import { callResult, type FailedResult } from './call-result.js';
import { DEFAULT_LIMITS } from '../limits.js';
import type { ArgumentIssue } from '../../schema/issues/issues.js';
import type { CompiledToolSchema } from '../../schema/registry.js';
import type { AtOnce } from './policies.js';
import type { AfterHook, BeforeHook, PermissionDecision, PermissionPolicy, PermissionRequest, ResultError, ToolResult } from '../types.js';

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

// A stopped stage with a failed result.
const failed = (callId: string, status: FailedResult['status'], error: ResultError, decidedBy?: string): Stopped => ({
  go: false,
  result: callResult(callId, { kind: 'failed', failed: status, error }),
  ...defined({ decidedBy }),
});

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
    // The issues are bounded where they are built (MAX_VALIDATION_ISSUES); the message says how many more there were.
    const more = validation.issues.length - 1 + (validation.issuesOmitted ?? 0);
    const also = more > 0 ? ` (and ${more} more issue${more === 1 ? '' : 's'})` : '';
    return failed(callId, 'invalid_arguments', {
      code: 'invalid_arguments',
      message: `the arguments do not match the tool's schema${where}: ${first?.message ?? 'invalid'}${also}; correct them and call again`,
      details: { issues: validation.issues, ...defined({ issuesOmitted: validation.issuesOmitted }) },
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

const POLICY_FAILED: PermissionDecision = Object.freeze({ decision: 'deny', by: 'policy', reason: 'the permission policy failed' });

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
    verdict = POLICY_FAILED;
  }
  if (wasAborted(verdict)) return { go: false, result: callResult(request.callId, { kind: 'aborted', aborted: signal }) };
  return permissionStage(request.callId, verdict);
}

/** Stage 3 for a built-in policy that decides at once (policies.ts AtOnce): the same outcomes, with no promise. */
export function decideAtOnce(request: PermissionRequest, policy: AtOnce): Stage<string> | Deferred {
  let verdict;
  try {
    verdict = policy.decide(request);
  } catch {
    verdict = POLICY_FAILED;
  }
  return permissionStage(request.callId, verdict);
}

function permissionStage(callId: string, verdict: PermissionDecision): Stage<string> | Deferred {
  if (verdict.decision === 'allow') return { go: true, value: verdict.by };
  if (verdict.decision === 'defer') return { go: false, deferred: true, by: verdict.by, ...defined({ reason: verdict.reason }) };
  const error = resultErrorOf('permission_denied', verdict.reason ?? 'this call was not allowed', { by: verdict.by });
  return failed(callId, 'permission_denied', error, verdict.by);
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
    if (wasAborted(outcome)) return { go: false, result: callResult(request.callId, { kind: 'aborted', aborted: signal }) };
    if (outcome && typeof outcome === 'object' && typeof outcome.deny === 'string') {
      return failed(request.callId, 'permission_denied', { code: 'permission_denied', message: outcome.deny, details: { by: 'hook' } });
    }
  }
  return { go: true, value: null };
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
