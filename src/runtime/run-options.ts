/**
 * What a host passes to a native run, and how the run turns it into the
 * options of each mount's connection and of its own prober: one place, so
 * runs and probes declare the same client capabilities (P2).
 */
import { AgtError } from '../errors.js';
import { defined } from '../json.js';
import type { ConnectOptions } from '../mcp/connect.js';
import type { ListChangedKind, McpConnection } from '../mcp/connection.js';
import type { McpProberOptions } from '../mcp/prober.js';
import { resolveConnectSettings, type ResolvedConnectSettings } from '../mcp/resolved-settings.js';
import type { ConnectSettings } from '../mcp/settings.js';
import type { Timeouts } from '../mcp/timeouts.js';
import type { ResourceService } from '../resources/service.js';
import type { ToolSchemaRegistry } from '../schema/registry.js';
import type { RunLimits } from './limits.js';
import { DEFAULT_APPROVAL_TTL_MS, type StoredApproval } from './pending/record.js';
import type { BuildContext } from './refresh.js';
import type { McpPool } from '../pool/pool.js';
import type { McpDocument } from '../config/mcp-config.js';
import type { McpLogMessage } from '../mcp/notifications.js';
import type { ToolSearchOptions } from './tool-search.js';
import type {
  AfterHook,
  BeforeHook,
  DelegateTool,
  PermissionPolicy,
  ProgressEvent,
  RunNotificationContext,
  RunRequestContext,
} from './types.js';
import type { AuditSink } from './audit-events.js';
import { DEFER, type InputMethod } from '../mcp/client-handlers.js';
import { type QuestionRoute, questionRoute } from '../mcp/input-rounds.js';
import { checkMs } from '../bounds.js';

/** Options of {@link NativeRun.start}: the ConnectSettings of its mounts (handlers told the run's context), and the run's own. */
export interface NativeRunOptions extends ConnectSettings<RunRequestContext> {
  agent: string;
  service: ResourceService;
  policy: PermissionPolicy;
  hooks?: { before?: BeforeHook[]; after?: AfterHook[] };
  audit?: AuditSink;
  delegates?: DelegateTool[];
  registry?: ToolSchemaRegistry;
  /** How many calls of a batch run at once. Default 4. */
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
  /** Log messages of the mounts' servers (masked; never mixed into tool results). Set the level with `run.setLogLevel`. */
  onLog?(message: McpLogMessage, context: RunNotificationContext): void;
  /** A resource the run subscribed to (`run.subscribeResource`) changed. */
  onResourceUpdated?(update: { uri: string }, context: RunNotificationContext): void;
  /** A server says a URL-mode elicitation it asked for has finished. */
  onElicitationComplete?(notice: { elicitationId: string }, context: RunNotificationContext): void;
}

/**
 * What `suspend()` returns: JSON, to be passed to `NativeRun.resume`. Format 1
 * without pending approvals; format 2 with them (`pending`, which holds their
 * validated arguments: docs/security.md), so a host of 0.2 refuses such a run
 * instead of dropping its approvals.
 */
export interface SuspendedRun {
  version: 1 | 2;
  runId: string;
  agent: string;
  fingerprint: string;
  settingsHash: string;
  mountsHash: string;
  seenBatchIds: string[];
  /** The calls waiting for a decision (format 2). */
  pending?: StoredApproval[];
  /** Tool search: the tools loaded, least recently used first (a host that does not know it loads none: the model searches again). */
  loadedTools?: string[];
}

/** The run's identity and the calls it has in flight per mount. */
export interface RunWiring {
  runId: string;
  agent: string;
  inFlight: Map<string, Set<string>>;
}

// The calls in flight on a mount.
const callIdsOf = (ids: ReadonlySet<string> | undefined) => {
  const callIds = [...(ids ?? [])];
  return { callIds };
};

// Handlers for one mount (or for probes, mount ''), with the run's context.
function handlersFor(options: NativeRunOptions, wiring: RunWiring, mount: string): ConnectSettings {
  const context = (signal: AbortSignal): RunRequestContext => ({
    runId: wiring.runId,
    agent: wiring.agent,
    mount,
    ...callIdsOf(wiring.inFlight.get(mount)),
    signal,
  });
  const { elicitation, sampling, roots, elicitationModes, samplingTools } = options;
  return {
    ...(elicitation === DEFER
      ? { elicitation }
      : elicitation
        ? { elicitation: (request, { signal }) => elicitation(request, context(signal)) }
        : {}),
    ...(sampling === DEFER ? { sampling } : sampling ? { sampling: (request, { signal }) => sampling(request, context(signal)) } : {}),
    ...(roots === undefined ? {} : { roots: typeof roots === 'function' ? ({ signal }) => roots(context(signal)) : roots }),
    ...defined({ elicitationModes, samplingTools }),
  };
}

/** The route of each question method in this run (E7): the one decision its connections make too (mcp/input-rounds.ts). */
export function questionRoutes(options: NativeRunOptions, wiring: RunWiring): (method: InputMethod) => QuestionRoute {
  return (method) => questionRoute(mountSettings(options, wiring, '').handlers, method);
}

/** The run's approvalTtlMs, checked: invalid_input unless a positive number of milliseconds. */
export function approvalTtl(options: NativeRunOptions): number {
  checkMs(options.approvalTtlMs, 'approvalTtlMs');
  return options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
}

/** The run's time limits as given; the 0.1 `callTimeoutMs` is refused (option_removed) rather than ignored. */
function runTimeouts(options: NativeRunOptions): Partial<Timeouts> | undefined {
  if (Object.hasOwn(options, 'callTimeoutMs'))
    throw new AgtError('option_removed', 'NativeRun.start: "callTimeoutMs" was removed; give the call timeout as timeouts.callMs', {
      details: { option: 'callTimeoutMs' },
    });
  return options.timeouts;
}

const resolvedRuns = new WeakMap<NativeRunOptions, ResolvedConnectSettings>();
const resolvedMounts = new WeakMap<RunWiring, Map<string, ResolvedConnectSettings>>();

/**
 * The run's connect settings, resolved once per run (invalid_input names a
 * bad one, before anything connects); its handlers, told the run's context,
 * are each mount's ({@link mountConnectOptions}).
 */
export function runConnectSettings(options: NativeRunOptions): ResolvedConnectSettings {
  let settings = resolvedRuns.get(options);
  if (settings === undefined) {
    const withoutHandlers = { ...options, elicitation: undefined, sampling: undefined, roots: undefined } as ConnectSettings;
    settings = resolveConnectSettings({ ...withoutHandlers, ...defined({ timeouts: runTimeouts(options) }) });
    resolvedRuns.set(options, settings);
  }
  return settings;
}

// The run's settings with the handlers of one mount (or of its prober, mount ''), resolved once per mount.
function mountSettings(options: NativeRunOptions, wiring: RunWiring, mount: string): ResolvedConnectSettings {
  const mounts = resolvedMounts.get(wiring) ?? resolvedMounts.set(wiring, new Map()).get(wiring)!;
  let settings = mounts.get(mount);
  if (settings === undefined) {
    settings = resolveConnectSettings(handlersFor(options, wiring, mount), runConnectSettings(options));
    mounts.set(mount, settings);
  }
  return settings;
}

/** The connect options of one mount of the run: the run's resolved settings with that mount's handlers. */
export function mountConnectOptions(options: NativeRunOptions, wiring: RunWiring, reference: string): ConnectOptions {
  return { settings: mountSettings(options, wiring, reference), reference };
}

/** The options of the run's own prober (mcp_probe): the same settings as its mounts. */
export function proberOptions(options: NativeRunOptions, wiring: RunWiring, registry: ToolSchemaRegistry): McpProberOptions {
  return { service: options.service, registry, settings: mountSettings(options, wiring, '') };
}

/** What building this run's snapshots needs: its connect options per mount, and list-change watching. */
export function buildContext(
  options: NativeRunOptions,
  parts: { registry: ToolSchemaRegistry; wiring: RunWiring; stale: Map<string, Set<ListChangedKind>> },
): BuildContext {
  const watched = new WeakSet<McpConnection>();
  return {
    service: options.service,
    registry: parts.registry,
    delegates: options.delegates ?? [],
    skipBrokenMounts: options.skipBrokenMounts ?? false,
    connectOptions: (reference) => mountConnectOptions(options, parts.wiring, reference),
    ...(options.pool ? { open: poolSource(options.pool, options.scope ?? parts.wiring.runId, parts.wiring) } : {}),
    // Subscribed right after connecting, before the first tools/list, so no announcement is missed.
    watch: (reference, connection) => {
      if (watched.has(connection)) return () => undefined;
      watched.add(connection);
      const unsubscribe = [
        connection.onListChanged((kind) => {
          const kinds = parts.stale.get(reference) ?? parts.stale.set(reference, new Set()).get(reference)!;
          kinds.add(kind);
        }),
        ...notificationHooks(options, { runId: parts.wiring.runId, agent: parts.wiring.agent, mount: reference }, connection),
      ];
      return () => {
        watched.delete(connection);
        for (const stop of unsubscribe) stop();
      };
    },
  };
}

// The run's notification hooks on one mount's connection, told which run and mount; returns their removals.
function notificationHooks(options: NativeRunOptions, context: RunNotificationContext, connection: McpConnection): (() => void)[] {
  const { onLog, onResourceUpdated, onElicitationComplete } = options;
  return [
    ...(onLog ? [connection.onLog((message) => onLog(message, context))] : []),
    ...(onResourceUpdated ? [connection.onResourceUpdated((update) => onResourceUpdated(update, context))] : []),
    ...(onElicitationComplete ? [connection.onElicitationComplete((notice) => onElicitationComplete(notice, context))] : []),
  ];
}

// A mount's connection leased from the pool, in the run's scope; server requests reach this run only while it has calls in flight there.
function poolSource(pool: McpPool, scope: string, wiring: RunWiring): NonNullable<BuildContext['open']> {
  return async (reference, record, connect) => {
    const document = record.data as McpDocument;
    const lease = await pool.lease({
      reference,
      revision: record.revision,
      document,
      scope,
      owner: wiring.runId,
      connect,
      busy: () => (wiring.inFlight.get(reference)?.size ?? 0) > 0,
    });
    return { connection: lease.connection, release: () => lease.release(), listTools: () => lease.listTools() };
  };
}
