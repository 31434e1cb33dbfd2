/**
 * What the calls of one batch share: the run's policy, hooks, audit, limits
 * and time bounds, and the batch's cancellation signal (the run's and the
 * batch's own, combined only when both are given).
 */
import type { AgtErrorCode } from '../../errors.js';
import type { FrameworkOutcome, ToolSearchContext } from '../../framework/tools.js';
import type { McpProber } from '../../mcp/probe/prober.js';
import type { ExecuteContext } from './execute.js';
import type { RunLimits } from '../limits.js';
import type { AfterHook, BeforeHook, PermissionPolicy } from '../types.js';
import type { AuditSink } from '../audit/audit-events.js';
import type { KeptResults } from '../results/kept-results.js';
import type { ResolvedRunOptions } from '../run-options.js';
import { NEVER_ABORTED } from './abort.js';
import { batchDeadlineReason } from './call-result.js';

/** What every call of a batch shares. */
export interface CallContext extends ExecuteContext {
  batchId: string;
  policy: PermissionPolicy;
  before: readonly BeforeHook[];
  after: readonly AfterHook[];
  audit: AuditSink | undefined;
  limits: RunLimits;
  /** How long a deferred call waits for its decision (approvalTtlMs). */
  approvalTtlMs: number;
  /** MCP Apps: the calls are an app's (run.callFromApp): the tool whose app asks, and its mount (U3). */
  origin: AppOrigin | undefined;
  /** MCP Apps rendered (`apps: true`): ok results of tools with an interface say so. */
  apps: boolean;
  /** The run's result budget and kept results (B8); undefined with `resultBudget: false`. */
  results: KeptResults | undefined;
}

/** Which app made a call: the run's name of the tool whose interface it is, and that tool's mount. */
export interface AppOrigin {
  from: string;
  mount: string;
}

/** The parts of a run every batch's context is built from. */
export interface RunParts {
  runId: string;
  /** The run's options, resolved once (resolveRunOptions). */
  options: ResolvedRunOptions;
  prober: McpProber;
  /** Mounts whose server died, with the code their calls fail with. */
  brokenMounts: Map<string, AgtErrorCode>;
  inFlight: Map<string, Set<string>>;
  /** The run's kept results (B8), undefined with `resultBudget: false`. */
  results: KeptResults | undefined;
}

/** The context of the calls of batch `batchId`. */
export function callContext(
  run: RunParts,
  batchId: string,
  batchSignal: AbortSignal | undefined,
  onFrameworkChange: (outcome: FrameworkOutcome) => void,
  toolSearch?: ToolSearchContext,
  origin?: AppOrigin,
): CallContext {
  const o = run.options;
  const signals = [o.signal, batchSignal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length === 0 ? NEVER_ABORTED : signals.length === 1 ? (signals[0] as AbortSignal) : AbortSignal.any(signals);
  return {
    runId: run.runId,
    agent: o.agent,
    batchId,
    policy: o.policy,
    before: o.before,
    after: o.after,
    audit: o.audit,
    limits: o.limits,
    approvalTtlMs: o.approvalTtlMs,
    apps: o.connect.apps,
    results: run.results,
    origin, // always set (undefined for the model's calls): one shape of context for both
    framework: { service: o.service, prober: run.prober, agent: o.agent, signal, ...(toolSearch ? { toolSearch } : {}) },
    brokenMounts: run.brokenMounts,
    inFlight: run.inFlight,
    signal,
    callTimeoutMs: o.connect.timeouts.callMs,
    onProgress: o.onProgress,
    onFrameworkChange,
    ...(o.audit?.traceContext ? { traceContext: () => o.audit?.traceContext?.({ runId: run.runId, batchId }) } : {}),
  };
}

const NO_DEADLINE = { clear: () => undefined };

/** A batch's deadline (`batchTimeoutMs`): its signal aborts with a call_timeout AgtError; `clear()` when the batch ends. */
export function batchDeadline(ms: number | undefined): { signal?: AbortSignal; clear(): void } {
  if (ms === undefined) return NO_DEADLINE;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(batchDeadlineReason(ms)), ms);
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
