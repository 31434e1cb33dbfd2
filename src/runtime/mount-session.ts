/**
 * One mounted server outside a run, for a person at a terminal (`agt mcp
 * call`): loaded exactly as a run loads a mount (loadMount: connect,
 * list, compile every schema), and each call goes through the run's pipeline
 * (runCall) — read and validate the arguments (B4: an invalid call never
 * reaches the server), execute on the route, check the structured result
 * against the outputSchema, bound its size. No permission stage: the person
 * typing is the one who decides; no hooks.
 */
import { randomUUID } from 'node:crypto';
import { AgtError, isAgtError } from '../errors.js';
import type { ConnectOptions } from '../mcp/connect.js';
import { resolvedOptions } from '../mcp/settings/resolved-settings.js';
import type { ResourceService } from '../resources/service.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { readArguments } from './pipeline/arguments.js';
import { NEVER_ABORTED } from './pipeline/abort.js';
import { executeMcp } from './pipeline/execute.js';
import type { InputRetry, McpInputRequired, McpTaskStarted } from '../mcp/connection-types.js';
import { DEFAULT_LIMITS, type RunLimits } from './limits.js';
import { loadMount } from './mount.js';
import type { LoadedMount, McpRoute } from './assembly/snapshot.js';
import { runCall } from './pipeline/pipeline.js';
import type { ToolResult } from './types.js';
import { closestNames } from '../tool-names.js';

/** Options of one call of a {@link MountSession}. */
export interface SessionCallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?(progress: { progress: number; total?: number; message?: string }): void;
  /** The retry of a call whose server asked questions: the questions, the answers, the server's state (E4). */
  input?: InputRetry;
}

/**
 * The outcome of one session call: the result as a run would give it — or, on a session that defers its
 * server's questions, the questions (`asked`) — and whether the server was called at all.
 */
export type SessionCallOutcome =
  { result: ToolResult; called: boolean; route: McpRoute } | { asked: McpInputRequired | McpTaskStarted; called: true; route: McpRoute };

/** One stored server, loaded as a run's mount, for direct calls. */
export class MountSession {
  readonly #mount: LoadedMount;
  readonly #limits: RunLimits;
  readonly #callMs: number;
  /** Tools left out while loading (a schema that does not load), as a run's notices say them. */
  readonly notices: readonly string[];

  private constructor(mount: LoadedMount, notices: string[], limits: RunLimits, callMs: number) {
    this.#mount = mount;
    this.notices = notices;
    this.#limits = limits;
    this.#callMs = callMs;
  }

  /** Loads `reference` as a run loads a mount; rejects with the code a run's mount failure has. */
  static async open(
    reference: string,
    options: { service: ResourceService; connect?: ConnectOptions; registry?: ToolSchemaRegistry; limits?: Partial<RunLimits> },
  ): Promise<MountSession> {
    const notices: string[] = [];
    const registry = options.registry ?? new ToolSchemaRegistry();
    const connect = { ...resolvedOptions(options.connect ?? {}), reference }; // resolved once: a bad setting fails here
    let mount: LoadedMount;
    try {
      mount = await loadMount(reference, { service: options.service, registry, connectOptions: () => connect }, notices);
    } catch (error) {
      // Said as the server's failure, not a run's mount's ("mount … failed to load: …").
      const prefix = `mount "${reference}" failed to load: `;
      if (!isAgtError(error) || !error.message.startsWith(prefix)) throw error;
      throw new AgtError(error.code, `${reference}: ${error.message.slice(prefix.length)}`, {
        ...(error.details ? { details: error.details } : {}),
        cause: error,
      });
    }
    return new MountSession(mount, notices, { ...DEFAULT_LIMITS, ...options.limits }, connect.settings.timeouts.callMs);
  }

  /** The route of the server's tool `name`; not_found naming the tools that exist, closest first. */
  route(name: string): McpRoute {
    const route = this.#mount.routes.find((r) => r.remoteTool === name);
    if (route !== undefined) return route;
    const names = this.#mount.routes.map((r) => r.remoteTool);
    const near = closestNames(name, names, 5);
    const left = this.notices.some((n) => n.includes(`tool "${name}" is unavailable`))
      ? ' (it is listed, but its schema does not load)'
      : '';
    throw new AgtError(
      'not_found',
      `${this.#mount.reference} has no usable tool "${name}"${left}; ${names.length === 0 ? 'it lists no tools' : `closest: ${near.join(', ')}`}`,
      { details: { tool: name, tools: near } },
    );
  }

  /** Calls the tool `name` with `raw` arguments (an object or JSON text) through the run's stages. */
  async call(name: string, raw: unknown, options: SessionCallOptions = {}): Promise<SessionCallOutcome> {
    const route = this.route(name);
    const callId = `cli_${randomUUID()}`;
    const onProgress = options.onProgress;
    const signal = options.signal ?? NEVER_ABORTED;
    let called = false;
    const outcome = await runCall(callId, route, readArguments(raw, this.#limits), {
      signal,
      execute: (id, r, args) => {
        called = true;
        const context = {
          runId: callId,
          brokenMounts: new Map(),
          inFlight: new Map(),
          signal,
          callTimeoutMs: options.timeoutMs ?? this.#callMs,
          onProgress: onProgress && ((event: Parameters<NonNullable<typeof onProgress>>[0]) => onProgress(event)),
        };
        return executeMcp(id, r, args, context, options.input);
      },
      checksOutput: () => true,
      maxResultBytes: this.#limits.maxResultBytes,
    });
    if (outcome.kind === 'asked') return { asked: outcome.asked, called: true, route };
    return { result: outcome.result, called, route };
  }

  /** The server's stderr tail (masked; a sandboxed server's with the sandbox's notes of what it denied, P5). */
  stderrTail(): string {
    return this.#mount.connection.stderrTail();
  }

  /** Closes the connection. */
  close(): Promise<void> {
    return this.#mount.release();
  }
}
