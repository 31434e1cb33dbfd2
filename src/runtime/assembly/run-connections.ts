/**
 * How a run turns its resolved options into the options of each mount's
 * connection and of its own prober — one place, so runs and probes declare
 * the same client capabilities (P2) — and what building its snapshots needs:
 * connect options per mount (resolved once per mount), list-change watching,
 * the run's notification hooks, and leases from its pool.
 */
import { defined } from '../../json.js';
import type { ConnectOptions } from '../../mcp/connect.js';
import type { ListChangedKind, McpConnection } from '../../mcp/connection.js';
import type { McpProberOptions } from '../../mcp/probe/prober.js';
import { resolveConnectSettings, type ResolvedConnectSettings } from '../../mcp/settings/resolved-settings.js';
import type { ConnectSettings } from '../../mcp/settings/settings.js';
import type { McpDocument } from '../../config/mcp-config.js';
import { DEFER, type InputMethod } from '../../mcp/requests/client-handlers.js';
import { type QuestionRoute, questionRoute } from '../../mcp/requests/input-rounds.js';
import type { McpPool } from '../../pool/pool.js';
import type { ToolSchemaRegistry } from '../../schema/registry.js';
import type { BuildContext } from './refresh.js';
import type { ResolvedRunOptions } from '../run-options.js';
import type { RunNotificationContext, RunRequestContext } from '../types.js';
import type { RunToolSearch } from './tool-search.js';

/** The run's identity and the calls it has in flight per mount. */
export interface RunWiring {
  runId: string;
  agent: string;
  inFlight: Map<string, Set<string>>;
}

/** The connect options of one run's mounts and prober, each mount's resolved once. */
export class RunConnections {
  readonly #options: ResolvedRunOptions;
  readonly #wiring: RunWiring;
  readonly #mounts = new Map<string, ResolvedConnectSettings>();

  constructor(options: ResolvedRunOptions, wiring: RunWiring) {
    this.#options = options;
    this.#wiring = wiring;
  }

  /** The connect options of one mount of the run: the run's resolved settings with that mount's handlers. */
  mount(reference: string): ConnectOptions {
    return { settings: this.#settings(reference), reference };
  }

  /** The options of the run's own prober (mcp_probe): the same settings as its mounts. */
  prober(registry: ToolSchemaRegistry): McpProberOptions {
    return { service: this.#options.service, registry, settings: this.#settings('') };
  }

  /** The route of each question method in this run (E7): the one decision its connections make too (mcp/requests/input-rounds.ts). */
  questionRoute(method: InputMethod): QuestionRoute {
    return questionRoute(this.#settings('').handlers, method);
  }

  /** What building this run's snapshots needs: its connect options per mount, and list-change watching. */
  buildContext(parts: { registry: ToolSchemaRegistry; stale: Map<string, Set<ListChangedKind>> }): BuildContext {
    const options = this.#options;
    const wiring = this.#wiring;
    const watched = new WeakSet<McpConnection>();
    return {
      service: options.service,
      registry: parts.registry,
      delegates: options.delegates,
      skipBrokenMounts: options.skipBrokenMounts,
      connectOptions: (reference) => this.mount(reference),
      ...(options.pool ? { open: poolSource(options.pool, options.scope ?? wiring.runId, wiring) } : {}),
      // Subscribed right after connecting, before the first tools/list, so no announcement is missed.
      watch: (reference, connection) => {
        if (watched.has(connection)) return () => undefined;
        watched.add(connection);
        const unsubscribe = [
          connection.onListChanged((kind) => {
            const kinds = parts.stale.get(reference) ?? parts.stale.set(reference, new Set()).get(reference)!;
            kinds.add(kind);
          }),
          ...notificationHooks(options, { runId: wiring.runId, agent: wiring.agent, mount: reference }, connection),
        ];
        return () => {
          watched.delete(connection);
          for (const stop of unsubscribe) stop();
        };
      },
    };
  }

  // The run's settings with the handlers of one mount (or of its prober, mount ''), resolved once per mount.
  #settings(mount: string): ResolvedConnectSettings {
    let settings = this.#mounts.get(mount);
    if (settings === undefined) {
      settings = resolveConnectSettings(handlersFor(this.#options, this.#wiring, mount), this.#options.connect);
      this.#mounts.set(mount, settings);
    }
    return settings;
  }
}

// Handlers for one mount (or for probes, mount ''), with the run's context.
function handlersFor(options: ResolvedRunOptions, wiring: RunWiring, mount: string): ConnectSettings {
  const context = (signal: AbortSignal): RunRequestContext => ({
    runId: wiring.runId,
    agent: wiring.agent,
    mount,
    callIds: [...(wiring.inFlight.get(mount) ?? [])],
    signal,
  });
  const { elicitation, sampling, roots, elicitationModes, samplingTools } = options.handlers;
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

// The run's notification hooks on one mount's connection, told which run and mount; returns their removals.
function notificationHooks(options: ResolvedRunOptions, context: RunNotificationContext, connection: McpConnection): (() => void)[] {
  const { onLog, onResourceUpdated, onElicitationComplete } = options.notifications;
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
    return {
      connection: lease.connection,
      release: () => lease.release(),
      listTools: () => lease.listTools(),
      listSkills: () => lease.listSkills(),
    };
  };
}

// What a run is built from besides its options: its id, schemas, connections and the state its parts share.
export interface RunParts {
  runId: string;
  registry: ToolSchemaRegistry;
  inFlight: Map<string, Set<string>>;
  connections: RunConnections;
  stale: Map<string, Set<ListChangedKind>>;
  toolSearch: RunToolSearch;
}
