/**
 * MCP Apps on a run: reading a tool's interface from its own server (U2), the
 * calls an app makes — each a batch of one through the run's one pipeline,
 * with the app as its origin (U3) — waiting for a call that waits (an app's
 * request held open until a host decides it), and the context apps give the
 * model (U5). NativeRun extends it; the bridge of `agt-mcp/apps` uses these.
 */
import { randomUUID } from 'node:crypto';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import type { McpConnection } from '../../mcp/connection.js';
import type { AppResource } from '../../mcp/apps/app-resource.js';
import { readApp } from '../../mcp/apps/read.js';
import { outsideText } from '../../outside-text.js';
import { RunMounts } from '../assembly/run-mounts.js';
import type { McpRoute, Route } from '../assembly/snapshot.js';
import type { AppOrigin } from '../pipeline/call-context.js';
import type { BatchResult, ToolBatch, ToolResult } from '../types.js';
import { AppContexts, type AppContextUpdate } from './app-context.js';

/** What the apps of a run need of it. */
export interface AppHost {
  readonly runId: string;
  readonly agent: string;
  /** Throws connection_closed when the run is closed. */
  open(): void;
  routes(): ReadonlyMap<string, Route>;
  connection(mount: string): McpConnection;
  /** Runs a batch of one an app asked for (throws batch_rejected as executeBatch does). */
  run(batch: ToolBatch, origin: AppOrigin, signal: AbortSignal | undefined): Promise<BatchResult>;
  /** True when call `callId` of batch `batchId` waits (an approval, questions, a task). */
  waits(batchId: string, callId: string): boolean;
  wait(batchId: string, callId: string, signal: AbortSignal | undefined): Promise<ToolResult>;
}

/** The options of an app's call. */
export interface AppCallOptions {
  /** The run's name of the tool whose interface (app) makes the call. */
  from: string;
  /** The host's batch id for it (a batch of one: unique in the run, like any batch's). */
  batchId: string;
  /** Default: a fresh id. */
  callId?: string;
  signal?: AbortSignal;
}

/** A run that hosts MCP Apps (see NativeRun). */
export abstract class AppRun extends RunMounts {
  readonly #contexts = new AppContexts();

  /** What the apps need of the run. */
  protected abstract appHost(): AppHost;

  /**
   * Reads and checks the interface of tool `toolOrUri` (the run's name for it), or of the `ui://` URI one of its
   * tools declares, from that tool's own server (U2): not_found when no tool of the run declares it.
   */
  async readApp(toolOrUri: string, options: { signal?: AbortSignal } = {}): Promise<AppResource> {
    const host = this.appHost();
    host.open();
    const route = appRoute(host.routes(), toolOrUri);
    return readApp(host.connection(route.mount), route.ui?.resourceUri as string, { signal: options?.signal });
  }

  /**
   * A call the app of tool `options.from` makes (U3): a batch of one (`options.batchId`) through the run's pipeline —
   * validated, permitted (an approval waits in `pending` like any other: run.decide, run.awaitCall), hooked, checked,
   * bounded and audited with `origin: 'app'` and `from`. `tool` is the server's own name (as the app knows it) or the
   * run's. A model-only tool, or a tool of another server, ends permission_denied.
   */
  async callFromApp(tool: string, args: Record<string, unknown>, options: AppCallOptions): Promise<BatchResult> {
    const host = this.appHost();
    host.open();
    if (!isPlainObject(options) || typeof options.batchId !== 'string')
      throw new AgtError('invalid_input', 'callFromApp: options.batchId must be a string', { details: { field: 'batchId' } });
    const routes = host.routes();
    const from = appRoute(routes, options.from, 'from');
    const name = typeof tool === 'string' ? ownName(routes, from.mount, tool) : tool;
    const batch: ToolBatch = {
      runId: host.runId,
      agent: host.agent,
      batchId: options.batchId,
      calls: [{ callId: options.callId ?? `app-${randomUUID()}`, name, arguments: args }],
    };
    return host.run(batch, { from: from.name, mount: from.mount }, options.signal);
  }

  /**
   * Waits for a call of this run that waits (an approval, questions, a task) to end here — decided, collected or
   * cancelled in this process — and gives its result. not_found when no such call waits; `signal` cancels the wait
   * (not the call); closing the run ends it with connection_closed.
   */
  async awaitCall(batchId: string, callId: string, options: { signal?: AbortSignal } = {}): Promise<ToolResult> {
    const host = this.appHost();
    host.open();
    if (!host.waits(batchId, callId))
      return Promise.reject(
        new AgtError('not_found', 'no call of this run waits with that batch and call id', { details: { batchId, callId } }),
      );
    return host.wait(batchId, callId, options?.signal); // a JS caller's null options: no signal
  }

  /**
   * Keeps what the app of tool `from` sets as the model's context (`ui/update-model-context`; U5): it replaces that
   * app's last, is bounded (invalid_input past 16 KiB), and reaches the model at its next step (takeAppContext).
   */
  updateAppContext(from: string, context: AppContextUpdate): void {
    const host = this.appHost();
    host.open();
    this.#contexts.update(appRoute(host.routes(), from, 'from').name, context);
  }

  /** The context the run's apps set since the model's last step, as one text (undefined: none); runAgentLoop gives it to the model. */
  takeAppContext(): string | undefined {
    return this.#contexts.take();
  }
}

// The MCP tool with an interface that `toolOrUri` names: by the run's name, or (`tool` only, never `from`) by the ui://
// URI it declares — refused when tools of several servers declare it (whose server would it be read from? U2, U3).
function appRoute(routes: ReadonlyMap<string, Route>, toolOrUri: unknown, field = 'tool'): McpRoute {
  if (typeof toolOrUri !== 'string') throw new AgtError('invalid_input', `${field} must be a string`, { details: { field } });
  const named = routes.get(toolOrUri);
  const declaring =
    named?.kind === 'mcp' || field !== 'tool'
      ? []
      : [...routes.values()].filter((r): r is McpRoute => r.kind === 'mcp' && r.ui?.resourceUri === toolOrUri);
  if (new Set(declaring.map((r) => r.mount)).size > 1)
    throw new AgtError(
      'invalid_input',
      `"${outsideText(toolOrUri, { max: 128 })}" is declared by tools of several servers: name the tool, not the URI`,
      { details: { field, mounts: [...new Set(declaring.map((r) => r.mount))] } },
    );
  const route = named?.kind === 'mcp' ? named : declaring[0];
  if (route?.ui?.resourceUri === undefined)
    throw new AgtError('not_found', `"${outsideText(toolOrUri, { max: 128 })}" is no tool of this run with an interface (MCP Apps)`, {
      details: { field },
    });
  return route;
}

// The run's name of `tool` as the app names it: its server's own name on the app's mount first, else as given.
function ownName(routes: ReadonlyMap<string, Route>, mount: string, tool: string): string {
  for (const route of routes.values()) if (route.kind === 'mcp' && route.mount === mount && route.remoteTool === tool) return route.name;
  return tool;
}
