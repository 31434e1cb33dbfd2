/**
 * What a host does with a run's own mounts besides calling tools (G3: only
 * the run's own): resources, prompts, completion, log levels, resource
 * subscriptions, pings, the servers' instructions and telling them the roots
 * changed. NativeRun extends it; each request goes to the mount's current
 * connection.
 */
import type { Completion, CompletionRef, McpConnection, PromptResult, RequestOptions, ResourceContents } from '../../mcp/connection.js';
import type { McpPrompt, McpResource } from '../../mcp/requests/lists.js';
import type { LogLevel } from '../../mcp/requests/notifications.js';

/** The mount-level requests of a run. */
export abstract class RunMounts {
  /** The connection of one of the run's own mounts; not_found for anything else. */
  protected abstract mountConnection(mount: string): McpConnection;
  /** The connections of all the run's mounts, by mount. */
  protected abstract mountConnections(): ReadonlyMap<string, McpConnection>;

  /** The resources a mount's server lists (all pages; [] when it declares none). Only the run's own mounts (G3). */
  async listResources(mount: string): Promise<McpResource[]> {
    return this.mountConnection(mount).listResources();
  }

  /** Reads one resource of a mount's server. */
  async readResource(mount: string, uri: string, options?: RequestOptions): Promise<ResourceContents> {
    return this.mountConnection(mount).readResource(uri, options);
  }

  /** The prompts a mount's server lists (all pages; [] when it declares none). */
  async listPrompts(mount: string): Promise<McpPrompt[]> {
    return this.mountConnection(mount).listPrompts();
  }

  /** Gets one prompt of a mount's server, rendered with `args`. */
  async getPrompt(mount: string, name: string, args?: Record<string, string>, options?: RequestOptions): Promise<PromptResult> {
    return this.mountConnection(mount).getPrompt(name, args, options);
  }

  /** Completion values for an argument of a mount's prompt or resource template (none when the server declares no completions). */
  async complete(
    mount: string,
    ref: CompletionRef,
    argument: { name: string; value: string },
    context?: Record<string, string>,
  ): Promise<Completion> {
    return this.mountConnection(mount).complete(ref, argument, context);
  }

  /** Sets the least severe log level a mount's server sends (see the run's `onLog`). */
  async setLogLevel(mount: string, level: LogLevel): Promise<void> {
    return this.mountConnection(mount).setLogLevel(level);
  }

  /** Subscribes to updates of a mount's resource (see the run's `onResourceUpdated`). */
  async subscribeResource(mount: string, uri: string): Promise<void> {
    return this.mountConnection(mount).subscribeResource(uri);
  }

  /** Ends a subscription of subscribeResource. */
  async unsubscribeResource(mount: string, uri: string): Promise<void> {
    return this.mountConnection(mount).unsubscribeResource(uri);
  }

  /** Pings a mount's server; resolves with the round trip in milliseconds. */
  async ping(mount: string): Promise<number> {
    return this.mountConnection(mount).ping();
  }

  /** The servers' instructions, by mount (mounts whose server gives none are left out): for the host's system prompt. */
  instructions(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [mount, connection] of this.mountConnections())
      if (connection.instructions !== undefined && connection.instructions !== '') out[mount] = connection.instructions;
    return out;
  }

  /** Tells every mount's server that the run's roots changed (`notifications/roots/list_changed`); they ask for the new list. */
  async rootsChanged(): Promise<void> {
    await Promise.all([...this.mountConnections().values()].map((c) => c.rootsChanged().catch(() => undefined)));
  }
}
