/**
 * The call pipeline of SPEC §7, listed once. Every path that runs a call — a
 * run's batch (call.ts), an approval being decided (decide.ts), `agt mcp call`
 * (mount-session.ts) and a harness tool set — goes through `runCall`, and
 * leaves out only the stages it does not have (the person at a terminal
 * decides for themselves; a decided approval was permitted before).
 *
 * | stage         | where                                   | ends the call as                   |
 * | ------------- | --------------------------------------- | ---------------------------------- |
 * | 1 read        | arguments.ts (batch-check.ts per batch) | invalid_arguments                  |
 * | 2 validate    | stages.ts validateArguments             | invalid_arguments                  |
 * | 3 permission  | stages.ts reviewPermission              | permission_denied, or deferred     |
 * | 4 before      | stages.ts runBeforeHooks                | permission_denied                  |
 * | 5 execute     | execute.ts (the path's own executor)    | its answer or failure (call-result)|
 * | 6 output      | result-checks.ts checkOutput            | tool_failed (output_invalid)       |
 * | 7 bound       | result-checks.ts boundResult            | (truncated, with a notice)         |
 * | 8 after       | stages.ts runAfterHooks                 | (content replaced)                 |
 * | 9 budget      | the path's own (results/kept-results.ts)| (cut, the whole kept: B8)          |
 *
 * The budget comes after the after hooks: they see the whole result (and may
 * redact it), and the run keeps what they left, never what they took out.
 * The arguments are read once; the frozen copy policies and hooks see is made
 * only when one of them can read it (a built-in matching policy with no
 * predicate and no hooks cannot), and a built-in policy decides with no
 * promise. The audit event is the caller's (one per call).
 */
import type { ArgumentsRead } from './arguments.js';
import { callResult } from './call-result.js';
import { checkOutput, boundResult } from './result-checks.js';
import { atOnceOf } from './policies.js';
import { decideAtOnce, type Deferred, reviewPermission, runAfterHooks, runBeforeHooks, validateArguments } from './stages.js';
import type { McpInputRequired, McpTaskStarted } from '../../mcp/connection-types.js';
import type { CompiledToolSchema } from '../../schema/registry.js';
import type { AfterHook, BeforeHook, PermissionPolicy, PermissionRequest, ToolResult } from '../types.js';

/** What the pipeline needs of a route: its input validator, and for stage 6 its output validator. */
export interface PipelineRoute {
  validator: CompiledToolSchema;
  outputValidator?: CompiledToolSchema;
  outputNames?: ReadonlySet<string>;
}

/** The stages a path has, and what they run with. */
export interface CallPath<R extends PipelineRoute> {
  /** Aborted when the call is cancelled (the run, the batch, the person at the terminal). */
  signal: AbortSignal;
  /** Stage 3's policy; absent when the call was permitted before (`decidedBy`) or the caller decides for themselves. */
  policy?: PermissionPolicy;
  /** Who permitted the call when there is no policy stage (an approver). */
  decidedBy?: string;
  before?: readonly BeforeHook[];
  after?: readonly AfterHook[];
  /**
   * The request a policy and hooks see; built only when a path has either, with a frozen copy of the
   * arguments unless `withArguments` is false (a built-in policy that cannot read them, and no hooks).
   */
  request?(callId: string, route: R, args: Record<string, unknown>, withArguments: boolean): PermissionRequest;
  /** Stage 5: never throws (every failure is the call's result, built by callResult); an MCP call may be asked questions first. */
  execute(callId: string, route: R, args: Record<string, unknown>): Promise<ToolResult | Asked>;
  /** Stage 6 applies to this route's results (a server's structured content). */
  checksOutput?(route: R): boolean;
  /** Stage 7's bound (maxResultBytes); absent: results are not bounded here (a harness host bounds its own). */
  maxResultBytes?: number;
  /** Stage 9, the result budget (B8): a result over it, cut for the model and kept whole; absent: no budget. */
  budget?(route: R, result: ToolResult): ToolResult;
}

/** A call that ended: its result, and who permitted or denied it when someone did. */
export interface CallEnded {
  kind: 'ended';
  result: ToolResult;
  decidedBy?: string;
}

/**
 * Stage 5 did not end: the call's server asks questions the path defers (E4), or runs the call as a task the path
 * defers (E6); the call waits for their answers, or for its task.
 */
export interface Asked {
  asked: McpInputRequired | McpTaskStarted;
}

/** A call whose server asked questions: what it asked, the arguments it ran with, who permitted it. */
export interface CallAsked extends Asked {
  kind: 'asked';
  args: Record<string, unknown>;
  decidedBy?: string;
}

/** A call a policy deferred: it waits for run.decide, kept with its permission request. */
export interface CallDeferred {
  kind: 'deferred';
  deferred: Deferred;
  request: PermissionRequest;
}

/** What a call came to, told apart by `kind`: it ended, its server asked questions, or a policy deferred it. */
export type PipelineOutcome = CallEnded | CallAsked | CallDeferred;

const NO_HOOKS: readonly never[] = [];

/** The arguments of a request built without them: nothing that sees it can read them (see CallPath.request). */
export const NOT_COPIED: Readonly<Record<string, unknown>> = Object.freeze({});

/** Runs one call, read as `read`, through the stages of `path` (without a policy stage, no approval defers it; an executor that never asks, no question). */
export function runCall<R extends PipelineRoute>(
  callId: string,
  route: R,
  read: ArgumentsRead,
  path: CallPath<R> & { policy?: undefined; execute(callId: string, route: R, args: Record<string, unknown>): Promise<ToolResult> },
): Promise<CallEnded>;
export function runCall<R extends PipelineRoute>(
  callId: string,
  route: R,
  read: ArgumentsRead,
  path: CallPath<R> & { policy?: undefined },
): Promise<CallEnded | CallAsked>;
export function runCall<R extends PipelineRoute>(
  callId: string,
  route: R,
  read: ArgumentsRead,
  path: CallPath<R>,
): Promise<PipelineOutcome>;
export async function runCall<R extends PipelineRoute>(
  callId: string,
  route: R,
  read: ArgumentsRead,
  path: CallPath<R>,
): Promise<PipelineOutcome> {
  const { signal, policy } = path;
  if (signal.aborted) return { kind: 'ended', result: callResult(callId, { kind: 'aborted', aborted: signal }) };
  const valid = validateArguments(callId, read, route);
  if (!valid.go) return { kind: 'ended', result: valid.result };
  const args = valid.value;
  const before = path.before ?? NO_HOOKS;
  const after = path.after ?? NO_HOOKS;
  const hooked = before.length > 0 || after.length > 0;
  const atOnce = policy === undefined ? undefined : atOnceOf(policy);
  let request: PermissionRequest | undefined;
  if (path.request !== undefined && (policy !== undefined || hooked))
    request = path.request(callId, route, args, hooked || atOnce === undefined || atOnce.readsArguments);
  let decidedBy = path.decidedBy;
  if (policy !== undefined && request !== undefined) {
    const permission = atOnce !== undefined ? decideAtOnce(request, atOnce) : await reviewPermission(request, policy, signal);
    if ('deferred' in permission) {
      // A deferred call is kept with its arguments: the request is built with them if it was not.
      const kept = request.arguments === NOT_COPIED ? path.request!(callId, route, args, true) : request;
      return { kind: 'deferred', deferred: permission, request: kept };
    }
    if (!permission.go) return decided(permission.result, permission.decidedBy);
    decidedBy = permission.value;
  }
  if (request !== undefined && before.length > 0) {
    const hooks = await runBeforeHooks(request, before, signal);
    if (!hooks.go) return decided(hooks.result, decidedBy);
  }
  const executed = await path.execute(callId, route, args);
  if ('asked' in executed) return { kind: 'asked', asked: executed.asked, args, ...(decidedBy === undefined ? {} : { decidedBy }) };
  let result = executed;
  if (path.checksOutput?.(route) === true) result = checkOutput(result, route);
  if (path.maxResultBytes !== undefined) result = boundResult(result, path.maxResultBytes);
  if (request !== undefined && after.length > 0) result = await runAfterHooks(request, result, after, signal);
  if (path.budget !== undefined) result = path.budget(route, result);
  return decided(result, decidedBy);
}

const decided = (result: ToolResult, decidedBy: string | undefined): CallEnded =>
  decidedBy === undefined ? { kind: 'ended', result } : { kind: 'ended', result, decidedBy };
