/**
 * McpPool: MCP connections shared by the runs of one host within a scope.
 * A run leases each mount's connection instead of opening its own, and gives
 * the lease back when it closes, unmounts or refreshes the mount. A pooled
 * connection's key is everything that makes two connections different: the
 * mount reference and config revision, a hash of the resolved launch (command,
 * args, cwd, env, url, headers after variable expansion), the auth identity,
 * the server requests the runs answer, and the run's scope (default: the run
 * itself, so nothing is shared until the host names a scope). Two runs share a
 * connection only when every part matches: that is the isolation boundary.
 */
import { AgtError } from '../errors.js';
import { connectMcp, type ConnectOptions } from '../mcp/connect.js';
import type { ClientHandlers } from '../mcp/requests/client-handlers.js';
import type { McpConnection } from '../mcp/connection.js';
import { resolveConnectSettings, type ResolvedConnectSettings } from '../mcp/settings/resolved-settings.js';
import { poolSettings } from './options.js';
import type { ConnectSettings } from '../mcp/settings/settings.js';
import type { McpDocument } from '../config/mcp-config.js';
import type { ResourceService } from '../resources/service.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { keyOf, leaseSettings, publicListKeyOf, serverKeyOf } from './key.js';
import { PublicLists } from './shared-lists.js';
import { type RoutedRequest, type ServerRequestRouter, routedHandlers } from './routing.js';
import { type PoolEvent, recordPoolEvent } from './events.js';
import { PoolEntry } from './entry.js';
import {
  type LeaseRequest,
  type McpLease,
  type McpPoolOptions,
  type PoolClock,
  type PoolKeyStats,
  type PoolStats,
  SYSTEM_CLOCK,
} from './types.js';
import { setTimeout as delay } from 'node:timers/promises';
import {
  DEFAULT_POOL_BACKOFF_MS,
  DEFAULT_POOL_BREAKER_FAILURES,
  DEFAULT_POOL_COOL_DOWN_MS,
  DEFAULT_POOL_DRAIN_MS,
  DEFAULT_POOL_IDLE_MS,
  DEFAULT_POOL_MAX_CONNECTIONS,
} from '../bounds.js';
import { checkMs } from '../check-ms.js';

/** Shares MCP connections between runs within a scope (`NativeRun.start({ pool, scope })`). */
export class McpPool implements AsyncDisposable {
  readonly #options: McpPoolOptions;
  readonly #settings: ResolvedConnectSettings;
  /** Per run mount's resolved settings: the lease's, layered over the pool's once. */
  readonly #layered = new WeakMap<ResolvedConnectSettings, ResolvedConnectSettings>();
  readonly #registry: ToolSchemaRegistry;
  readonly #entries = new Map<string, PoolEntry>();
  readonly #publicLists: PublicLists;
  readonly #closing = new AbortController();
  readonly #clock: PoolClock;
  /** Told when the last lease is given back while the pool drains. */
  #drained: (() => void) | undefined;
  #closed = false;

  constructor(options: McpPoolOptions) {
    if (options?.service === undefined)
      throw new AgtError('invalid_input', 'McpPool needs { service }: the registry its runs read mounts from');
    this.#settings = poolSettings(options); // a bad value or an unknown key fails here
    checkMs(options.idleMs, 'idleMs', { whole: true });
    const max = options.maxConnections;
    if (max !== undefined && !(Number.isInteger(max) && max > 0))
      throw new AgtError('invalid_input', 'McpPool: maxConnections must be a positive whole number', {
        details: { field: 'maxConnections' },
      });
    this.#options = options;
    this.#registry = options.registry ?? new ToolSchemaRegistry();
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#publicLists = new PublicLists(this.#clock);
  }

  /** The service the pool's runs read their mounts from. */
  get service(): ResourceService {
    return this.#options.service;
  }

  /** The schema registry the pool's runs compile with when they bring none (compiled schemas are shared, never per-user). */
  get registry(): ToolSchemaRegistry {
    return this.#registry;
  }

  /** Leases the connection of `request`'s key, starting it if needed (concurrent leases of one key start it once). */
  async lease(request: LeaseRequest): Promise<McpLease> {
    if (this.#closed) throw new AgtError('connection_closed', 'the pool is closed');
    const settings = leaseSettings(this.#settings, request.connect, this.#layered);
    const connect = {
      settings,
      registry: this.#registry,
      reference: request.reference,
      revision: request.revision, // the era verdict of this revision is used (E2)
    } satisfies ConnectOptions;
    const key = keyOf(request, settings);
    let entry = this.#entries.get(key);
    // A dead server is started again by this lease (its runs' calls failed with connection_closed).
    if (entry?.noticeDeath() === true) this.#emit(entry, 'closed', { reason: 'died' });
    if (entry === undefined) {
      const server = serverKeyOf(request, settings);
      const lists = publicListKeyOf(server, request, settings, this.#options.publicLists ?? 'same-credentials');
      const identity = { key, server, lists, reference: request.reference, scope: request.scope };
      entry = new PoolEntry({ ...identity, revision: request.revision }, this.#clock.now());
      this.#entries.set(key, entry);
      await this.#supersede(entry);
    }
    const now = this.#clock.now();
    const unavailable = entry.unavailable(now);
    if (unavailable !== undefined) throw unavailable;
    const router: ServerRequestRouter = { handlers: settings.handlers, busy: request.busy };
    entry.routers.add(router);
    entry.cancelPending();
    entry.lastUsed = now;
    try {
      const connection = await entry.connect(() => this.#start(entry, request.document, connect, router.handlers));
      let released = false;
      return {
        connection,
        key,
        listTools: () => entry.listTools(connection, this.#clock, this.#publicLists),
        listSkills: () => entry.listSkills(connection, this.#clock),
        release: async () => {
          if (released) return;
          released = true;
          await this.#release(entry, router);
        },
      };
    } catch (error) {
      entry.routers.delete(router);
      if (entry.routers.size === 0 && entry.connection === undefined) this.#forgetLater(entry);
      throw error;
    }
  }

  // A config update makes a new key: the older revisions' connections in that scope close with their last lease (now, if idle).
  async #supersede(newer: PoolEntry): Promise<void> {
    const older = [...this.#entries.values()].filter(
      (e) => e.reference === newer.reference && e.scope === newer.scope && e.revision < newer.revision,
    );
    for (const e of older) e.supersede();
    await Promise.all(older.filter((e) => e.routers.size === 0 && e.starting === undefined).map((e) => this.#close(e, 'superseded')));
  }

  // A key without a connection or leases is kept while its breaker may matter, then forgotten.
  #forgetLater(entry: PoolEntry): void {
    const wait = Math.max(this.#options.idleMs ?? DEFAULT_POOL_IDLE_MS, entry.openUntil - this.#clock.now());
    entry.schedule(this.#clock.after(wait, () => this.#drop(entry)));
  }

  async #start(entry: PoolEntry, document: McpDocument, connect: ConnectOptions, declared: ClientHandlers): Promise<McpConnection> {
    const breaker = this.#options.breaker ?? {};
    const coolDownMs = breaker.coolDownMs ?? DEFAULT_POOL_COOL_DOWN_MS;
    try {
      if (entry.failures > 0)
        await this.#backoff(Math.min(coolDownMs, (breaker.backoffMs ?? DEFAULT_POOL_BACKOFF_MS) * 2 ** (entry.failures - 1)));
      entry.starts += 1;
      // Server requests go to the one run with calls in flight on this connection (routing.ts), never to another's user.
      const declined = (request: RoutedRequest) => this.#emit(entry, 'request_declined', { request });
      const routed = routedHandlers(entry.routers, declared, declined) as ConnectSettings;
      const connection = await connectMcp(document, { ...connect, settings: resolveConnectSettings(routed, connect.settings) });
      connection.onListChanged((kind) => {
        if (kind === 'resources') entry.dropSkills(); // a server's skills are resources
        if (kind !== 'tools') return;
        entry.dropTools();
        this.#publicLists.drop(entry.server); // every scope's copy is stale now
      });
      this.#emit(entry, entry.started(connection) ? 'restarted' : 'started');
      await this.#evictBeyondLimit();
      return connection;
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'connection_closed';
      const opened = entry.startFailed(code, this.#clock.now(), breaker.failures ?? DEFAULT_POOL_BREAKER_FAILURES, coolDownMs);
      this.#emit(entry, 'start_failed', { code });
      if (opened) this.#emit(entry, 'breaker_open', { code });
      throw error;
    }
  }

  // Waits before a start that follows a failed one; pool.close() ends the wait (the lease fails with connection_closed).
  async #backoff(ms: number): Promise<void> {
    try {
      await delay(ms, undefined, { signal: this.#closing.signal, ref: false });
    } catch {
      throw new AgtError('connection_closed', 'the pool is closed');
    }
  }

  #emit(entry: PoolEntry, action: PoolEvent['action'], extra: Pick<PoolEvent, 'reason' | 'code' | 'request'> = {}): void {
    recordPoolEvent(this.#options.audit, {
      type: 'pool_connection',
      at: new Date().toISOString(),
      action,
      ...extra,
      reference: entry.reference,
      scope: entry.scope,
      key: entry.key,
      starts: entry.starts,
    });
  }

  async #release(entry: PoolEntry, router: ServerRequestRouter): Promise<void> {
    entry.routers.delete(router);
    entry.lastUsed = this.#clock.now();
    if (entry.routers.size > 0 || this.#entries.get(entry.key) !== entry) return;
    if (this.#closed || entry.superseded || entry.connection?.closed) {
      await this.#close(entry, this.#closed ? 'pool_closed' : entry.superseded ? 'superseded' : undefined);
      if (this.#leases() === 0) this.#drained?.(); // a draining close() goes on
      return;
    }
    entry.schedule(this.#clock.after(this.#options.idleMs ?? DEFAULT_POOL_IDLE_MS, () => void this.#close(entry, 'idle')));
    await this.#evictBeyondLimit();
  }

  // Beyond maxConnections, the least recently used idle connections close; leased ones never do.
  async #evictBeyondLimit(): Promise<void> {
    const limit = this.#options.maxConnections ?? DEFAULT_POOL_MAX_CONNECTIONS;
    const open = [...this.#entries.values()].filter((e) => e.connection !== undefined);
    if (open.length <= limit) return;
    const idle = open.filter((e) => e.routers.size === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    await Promise.all(idle.slice(0, open.length - limit).map((e) => this.#close(e, 'evicted')));
  }

  #drop(entry: PoolEntry): undefined {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
    entry.cancelPending();
    return undefined;
  }

  // Closes a key's connection and tells the audit why (a server found dead: `died`).
  async #close(entry: PoolEntry, why?: 'idle' | 'superseded' | 'evicted' | 'pool_closed'): Promise<void> {
    this.#drop(entry);
    const connection = entry.connection;
    if (connection === undefined) return;
    if (connection.closed) this.#emit(entry, 'closed', { reason: 'died' });
    else if (why !== undefined) this.#emit(entry, why === 'evicted' ? 'evicted' : 'closed', why === 'evicted' ? {} : { reason: why });
    await connection.close();
  }

  /** Per key: state, leases, starts, the last error code. */
  stats(): PoolStats {
    const now = this.#clock.now();
    const keys = [...this.#entries.values()].map((e): PoolKeyStats => ({
      key: e.key,
      reference: e.reference,
      scope: e.scope,
      state: e.state(now),
      leases: e.routers.size,
      starts: e.starts,
      restarts: e.restarts,
      ...(e.lastErrorCode === undefined ? {} : { lastErrorCode: e.lastErrorCode }),
    }));
    return {
      connections: keys.filter((k) => k.state === 'open' || k.state === 'idle').length,
      leases: keys.reduce((n, k) => n + k.leases, 0),
      keys,
    };
  }

  /**
   * Drains and closes: new leases fail at once; it waits up to `drainMs`
   * (default 10,000) for the runs to give their leases back — each connection
   * closes with its last lease — then closes the rest (their runs' calls fail
   * with connection_closed) and ends every process tree.
   */
  async close(options: { drainMs?: number } = {}): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    await this.#drain(options.drainMs ?? DEFAULT_POOL_DRAIN_MS);
    const entries = [...this.#entries.values()];
    await Promise.all(entries.map(async (e) => (await e.starting?.catch(() => undefined), this.#close(e, 'pool_closed'))));
  }

  // Resolves when no lease is left, or after `ms`.
  async #drain(ms: number): Promise<void> {
    if (ms <= 0 || this.#leases() === 0) return;
    const bound = new AbortController(); // the bound's timer ends with the drain, not ms later
    const drained = new Promise<void>((resolve) => (this.#drained = resolve));
    await Promise.race([drained, delay(ms, undefined, { ref: false, signal: bound.signal }).catch(() => undefined)]);
    bound.abort();
    this.#drained = undefined;
  }

  // The leases held now, on every key.
  #leases(): number {
    let n = 0;
    for (const e of this.#entries.values()) n += e.routers.size;
    return n;
  }

  /** `await using pool = new McpPool(…)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
