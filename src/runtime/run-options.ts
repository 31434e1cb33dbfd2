/**
 * What a host passes to a native run (NativeRunOptions), and the one place
 * it is checked and resolved: `resolveRunOptions` gives a frozen value that
 * every part of the run reads, so nothing is resolved twice and a bad option
 * fails before anything connects.
 */
import type { StoredResults } from './results/kept-results.js';
import { RESULT_BUDGET_KEYS, type ResolvedResultBudget, type ResultBudgetOptions, resolveResultBudget } from './results/budget.js';
import type { StoredInFlightCall } from './pending/in-flight.js';
import type { DecidedCall } from './pending/decided.js';
import { AgtError } from '../errors.js';
import { defined } from '../json.js';
import { type ResolvedConnectSettings, resolveSettingsWithin, strictOf } from '../mcp/settings/resolved-settings.js';
import { CONNECT_NESTED_KEYS, CONNECT_SETTING_KEYS, type ConnectSettings } from '../mcp/settings/settings.js';
import { checkKnownKeys, type KnownKeys } from '../config/unknown-keys.js';
import type { ResourceService } from '../resources/service.js';
import type { ToolSchemaRegistry } from '../schema/registry.js';
import { type RunLimits, resolveLimits } from './limits.js';
import type { StoredCall } from './pending/waiting-call.js';
import type { McpPool } from '../pool/pool.js';
import type { McpLogMessage } from '../mcp/requests/notifications.js';
import type { ToolSearchOptions } from './assembly/tool-search.js';
import { rejectRemovedOptions } from '../config/removed-options.js';
import type {
  AfterHook,
  BeforeHook,
  DelegateTool,
  PermissionPolicy,
  ProgressEvent,
  RunNotificationContext,
  RunRequestContext,
} from './types.js';
import type { AuditSink } from './audit/audit-events.js';
import { checkMs } from '../check-ms.js';
import { DEFAULT_APPROVAL_TTL_MS, DEFAULT_DECIDED_RETENTION_MS, DEFAULT_RUN_CONCURRENCY, LEASE_GRACE_MS } from '../bounds.js';

/** Options of {@link NativeRun.start}: the ConnectSettings of its mounts (handlers told the run's context), and the run's own. */
export interface NativeRunOptions extends ConnectSettings<RunRequestContext> {
  agent: string;
  service: ResourceService;
  policy: PermissionPolicy;
  hooks?: { before?: BeforeHook[]; after?: AfterHook[] };
  audit?: AuditSink;
  delegates?: DelegateTool[];
  registry?: ToolSchemaRegistry;
  /** How many calls of a batch run at once (a positive integer). Default 4. */
  concurrency?: number;
  /** Start even if some mounts fail to load (each becomes a notice). Default false: strict. */
  skipBrokenMounts?: boolean;
  /** Cancels the run: calls in flight end as `cancelled` (the servers are told), later calls do not start. */
  signal?: AbortSignal;
  /** Progress servers report for the run's calls. */
  onProgress?(event: ProgressEvent): void;
  /** Bounds on batches, arguments and results (defaults: DEFAULT_LIMITS). */
  limits?: Partial<RunLimits>;
  /** Lease the mounts' connections from this pool instead of opening the run's own (docs/hosts.md, "Serving many users"). */
  pool?: McpPool;
  /** With `pool`: the isolation scope (a tenant, a user); runs share connections only within one. Default: the run's own id. */
  scope?: string;
  /** How long a deferred call waits for `run.decide`; decided later, it ends as permission_denied. Default 24 h. */
  approvalTtlMs?: number;
  /** Tool search for large tool sets (issue 27): deferred tools, `tool_search`, loads at the batch boundary. Default `{ mode: 'auto' }`. */
  toolSearch?: ToolSearchOptions;
  /** The longest a batch's calls may take together; calls still running then end as call_timeout (the servers are told). Default: none. */
  batchTimeoutMs?: number;
  /**
   * B8: the most tokens of one result the model is given (default 25,000, counted as characters / 4 unless
   * `countTokens` is given); a larger one is cut with a notice and kept whole (bounded, `keptBytes`) for the run tool
   * `result_read`. `false`: no budget (results are bounded by limits.maxResultBytes only).
   */
  resultBudget?: ResultBudgetOptions | false;
  /**
   * A stored run: how long a decided call's host holds it in flight before any host may take that host as dead and
   * `run.recover()` the call. Default: the call timeout (`timeouts.callMs`) plus 60 s — a live host ends it before.
   */
  inFlightLeaseMs?: number;
  /**
   * A stored run: how long the results of its decided calls stay in the run record, so a host that lost the race to
   * decide a call (or decides one already ended) gets its result. Default 15 minutes; 0 keeps none.
   */
  decidedRetentionMs?: number;
  /** Log messages of the mounts' servers (masked; never mixed into tool results). Set the level with `run.setLogLevel`. */
  onLog?(message: McpLogMessage, context: RunNotificationContext): void;
  /** A resource the run subscribed to (`run.subscribeResource`) changed. */
  onResourceUpdated?(update: { uri: string }, context: RunNotificationContext): void;
  /** A server says a URL-mode elicitation it asked for has finished. */
  onElicitationComplete?(notice: { elicitationId: string }, context: RunNotificationContext): void;
}

/** Every key of NativeRunOptions beyond its ConnectSettings, once: the compiler fails here when an option is not listed. */
const RUN_KEYS = {
  agent: true,
  service: true,
  policy: true,
  hooks: true,
  audit: true,
  delegates: true,
  registry: true,
  concurrency: true,
  skipBrokenMounts: true,
  signal: true,
  onProgress: true,
  limits: true,
  pool: true,
  scope: true,
  approvalTtlMs: true,
  toolSearch: true,
  batchTimeoutMs: true,
  resultBudget: true,
  inFlightLeaseMs: true,
  decidedRetentionMs: true,
  onLog: true,
  onResourceUpdated: true,
  onElicitationComplete: true,
} as const satisfies Record<Exclude<keyof NativeRunOptions, keyof ConnectSettings>, true>;

/** The keys NativeRunOptions knows: its own and ConnectSettings'. */
export const RUN_OPTION_KEYS: readonly string[] = Object.freeze([...Object.keys(RUN_KEYS), ...CONNECT_SETTING_KEYS]);

// The option objects a run's options hold beyond ConnectSettings', each key once (the compiler checks each list).
const HOOK_KEYS = { before: true, after: true } as const satisfies Record<keyof NonNullable<NativeRunOptions['hooks']>, true>;
const LIMIT_KEYS = { maxBatchCalls: true, maxArgumentBytes: true, maxArgumentDepth: true, maxResultBytes: true } as const satisfies Record<
  keyof RunLimits,
  true
>;
const TOOL_SEARCH_KEYS = { mode: true, maxTools: true, maxToolTokens: true, maxLoadedTools: true, pinned: true } as const satisfies Record<
  keyof ToolSearchOptions,
  true
>;
const DELEGATE_KEYS = { name: true, description: true, targets: true, handler: true } as const satisfies Record<keyof DelegateTool, true>;

/** The keys NativeRunOptions knows, and those of its option objects (`timeouts`, `variables`, `hooks`, `limits`, `toolSearch`, each of `delegates`). */
export const RUN_OPTIONS_KNOWN: KnownKeys = Object.freeze({
  keys: RUN_OPTION_KEYS,
  nested: Object.freeze({
    ...CONNECT_NESTED_KEYS,
    hooks: { keys: Object.keys(HOOK_KEYS) },
    limits: { keys: Object.keys(LIMIT_KEYS) },
    toolSearch: { keys: Object.keys(TOOL_SEARCH_KEYS) },
    resultBudget: { keys: Object.keys(RESULT_BUDGET_KEYS) },
    delegates: { keys: Object.keys(DELEGATE_KEYS), readsInherited: true },
  }),
});

/**
 * What `suspend()` returns: JSON, to be passed to `NativeRun.resume`. Format 1
 * without pending approvals; format 2 with them (`pending`, which holds their
 * validated arguments: docs/security.md), so a host of 0.2 refuses such a run
 * instead of dropping its approvals; 3 with decided calls in flight; 4 with a
 * call that waits on its server's task (E6); 5 with results cut at the budget (B8).
 */
export interface SuspendedRun {
  version: 1 | 2 | 3 | 4 | 5;
  runId: string;
  agent: string;
  fingerprint: string;
  settingsHash: string;
  mountsHash: string;
  seenBatchIds: string[];
  /** The calls waiting for a decision (format 2). */
  pending?: StoredCall[];
  /** Decided calls running on a host, with its lease (format 3): `run.recover()` ends those whose host died. */
  inFlight?: StoredInFlightCall[];
  /** The results of calls decided lately (`decidedRetentionMs`), for a host that decides one again. */
  decided?: DecidedCall[];
  /** Tool search: the tools loaded, least recently used first (a host that does not know it loads none: the model searches again). */
  loadedTools?: string[];
  /** B8: results cut at the budget, kept whole for result_read (format 5), oldest first; bounded by resultBudget.keptBytes. */
  results?: StoredResults;
}

/** The handlers a run's mounts answer server requests with, and the client features they declare. */
export type RunHandlers = Pick<NativeRunOptions, 'elicitation' | 'sampling' | 'roots' | 'elicitationModes' | 'samplingTools'>;

/** A run's options, checked and resolved once ({@link resolveRunOptions}): what every part of the run reads. */
export interface ResolvedRunOptions {
  readonly agent: string;
  readonly service: ResourceService;
  readonly policy: PermissionPolicy;
  readonly before: readonly BeforeHook[];
  readonly after: readonly AfterHook[];
  readonly audit: AuditSink | undefined;
  readonly delegates: readonly DelegateTool[];
  readonly registry: ToolSchemaRegistry | undefined;
  readonly concurrency: number;
  readonly skipBrokenMounts: boolean;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((event: ProgressEvent) => void) | undefined;
  readonly limits: RunLimits;
  readonly pool: McpPool | undefined;
  readonly scope: string | undefined;
  readonly approvalTtlMs: number;
  readonly toolSearch: ToolSearchOptions | undefined;
  readonly batchTimeoutMs: number | undefined;
  /** The result budget (B8); undefined with `resultBudget: false`. */
  readonly resultBudget: ResolvedResultBudget | undefined;
  readonly inFlightLeaseMs: number;
  readonly decidedRetentionMs: number;
  /** The run's connect settings without its handlers (those are each mount's: run-connections.ts). */
  readonly connect: ResolvedConnectSettings;
  readonly handlers: Readonly<RunHandlers>;
  readonly notifications: Readonly<Pick<NativeRunOptions, 'onLog' | 'onResourceUpdated' | 'onElicitationComplete'>>;
  /** Unknown keys accepted because `strict` was false, one warning each (the run's notices). */
  readonly warnings: readonly string[];
}

/**
 * Checks and resolves a run's options once, before anything connects: a
 * removed option is option_removed, a missing policy or a bad limit, time or
 * setting is invalid_input naming it, and so is an unknown key (with the
 * closest known one; `strict: false`: a warning). The value is frozen.
 */
export function resolveRunOptions(options: NativeRunOptions): ResolvedRunOptions {
  rejectRemovedOptions(options, 'NativeRun.start'); // A7: no allowMcp binding option
  if (options?.policy === undefined || typeof options.policy.review !== 'function') {
    throw new AgtError(
      'invalid_input',
      'NativeRun.start needs a permission policy: every call is allowed or denied by one, e.g. policies.autoAllow([...]) or policies.human(ask)',
    );
  }
  if (Object.hasOwn(options, 'callTimeoutMs'))
    throw new AgtError('option_removed', 'NativeRun.start: "callTimeoutMs" was removed; give the call timeout as timeouts.callMs', {
      details: { option: 'callTimeoutMs' },
    });
  // A run's store is where it is suspended to and resumed from (run.suspend, NativeRun.resume), not a start option.
  if (Object.hasOwn(options, 'store'))
    throw new AgtError(
      'invalid_input',
      'NativeRun options: "store" is not a start option; give it to run.suspend({ store }) and NativeRun.resume(id, { store })',
      {
        details: { key: 'store' },
      },
    );
  const warnings = checkKnownKeys(options, RUN_OPTIONS_KNOWN, 'NativeRun options', strictOf(options));
  const limits = resolveLimits(options.limits);
  const concurrency = options.concurrency ?? DEFAULT_RUN_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new AgtError('invalid_input', 'concurrency must be a positive integer (how many calls of a batch run at once)', {
      details: { field: 'concurrency' },
    });
  checkMs(options.approvalTtlMs, 'approvalTtlMs');
  checkMs(options.batchTimeoutMs, 'batchTimeoutMs');
  checkMs(options.inFlightLeaseMs, 'inFlightLeaseMs');
  checkMs(options.decidedRetentionMs, 'decidedRetentionMs', { min: 0 });
  const { elicitation, sampling, roots, elicitationModes, samplingTools, onLog, onResourceUpdated, onElicitationComplete } = options;
  const withoutHandlers = { ...options, elicitation: undefined, sampling: undefined, roots: undefined } as ConnectSettings;
  const connect = resolveSettingsWithin(withoutHandlers);
  return Object.freeze({
    agent: options.agent,
    service: options.service,
    policy: options.policy,
    before: Object.freeze([...(options.hooks?.before ?? [])]),
    after: Object.freeze([...(options.hooks?.after ?? [])]),
    audit: options.audit,
    delegates: Object.freeze([...(options.delegates ?? [])]),
    registry: options.registry,
    concurrency,
    skipBrokenMounts: options.skipBrokenMounts ?? false,
    signal: options.signal,
    onProgress: options.onProgress,
    limits: Object.freeze(limits),
    pool: options.pool,
    scope: options.scope,
    approvalTtlMs: options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS,
    toolSearch: options.toolSearch,
    batchTimeoutMs: options.batchTimeoutMs,
    resultBudget: resolveResultBudget(options.resultBudget),
    inFlightLeaseMs: options.inFlightLeaseMs ?? connect.timeouts.callMs + LEASE_GRACE_MS,
    decidedRetentionMs: options.decidedRetentionMs ?? DEFAULT_DECIDED_RETENTION_MS,
    connect,
    handlers: Object.freeze(defined({ elicitation, sampling, roots, elicitationModes, samplingTools })),
    notifications: Object.freeze(defined({ onLog, onResourceUpdated, onElicitationComplete })),
    warnings: Object.freeze(warnings),
  });
}
