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
import type { McpConnection } from '../mcp/connection.js';
import type { RawTool } from '../mcp/lists.js';
import type { ConnectSettings } from '../mcp/settings.js';
import type { McpDocument } from '../resources/mcp-config.js';
import type { ResourceService } from '../resources/service.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { connectDefaults, keyOf } from './key.js';
import { type ServerRequestRouter, routedHandlers } from './routing.js';

/** Options of {@link McpPool}: its ConnectSettings (a run's own auth and variables win for its leases), and its bounds. */
export interface McpPoolOptions extends Omit<ConnectSettings, 'elicitation' | 'sampling'> {
  service: ResourceService;
  registry?: ToolSchemaRegistry;
  /** How long a connection without leases stays open. Default 300,000 (5 min). */
  idleMs?: number;
  /** Connections kept open at most; beyond it the least recently used idle one closes (a leased one never). Default 64. */
  maxConnections?: number;
  /** After `failures` failed starts in a row, a key fails fast with `server_unavailable` for `coolDownMs`. Default 3 and 30,000. */
  breaker?: { failures?: number; coolDownMs?: number };
}

/** What a run asks the pool for: one mount's connection, in its scope. */
export interface LeaseRequest {
  reference: string;
  revision: number;
  document: McpDocument;
  /** The isolation scope (a tenant, a user); runs share only within one. */
  scope: string;
  /** The leasing run's id: a config with `"shared": false` gets a connection per owner. */
  owner: string;
  /** The run's connect options for this mount (auth, variables, server-request handlers). */
  connect: ConnectOptions;
  /** True while the leasing run has calls in flight on this connection (server requests are routed by it). */
  busy(): boolean;
}

/** A leased connection; `release()` gives it back (once; later calls do nothing). */
export interface McpLease {
  readonly connection: McpConnection;
  readonly key: string;
  /** The server's tools, listed once per connection and again after it announces a tools change. */
  listTools(): Promise<RawTool[]>;
  release(): Promise<void>;
}

/** One key's state, for hosts' dashboards. No values. */
export interface PoolKeyStats {
  key: string;
  reference: string;
  scope: string;
  /** `failed`: its last start failed; `unavailable`: the breaker is open (leases fail fast with server_unavailable). */
  state: 'starting' | 'open' | 'idle' | 'closed' | 'failed' | 'unavailable';
  leases: number;
  starts: number;
  /** Starts after its server died or closed (the next lease started it again). */
  restarts: number;
  lastErrorCode?: string;
}

/** The pool's state. */
export interface PoolStats {
  connections: number;
  leases: number;
  keys: PoolKeyStats[];
}

interface Entry {
  key: string;
  reference: string;
  scope: string;
  revision: number;
  /** A newer revision of its config was leased in its scope: it closes with its last lease. */
  superseded?: boolean;
  connection?: McpConnection;
  starting?: Promise<McpConnection>;
  routers: Set<ServerRequestRouter>;
  starts: number;
  restarts: number;
  /** Failed starts in a row, and until when the breaker is open. */
  failures: number;
  openUntil?: number;
  lastErrorCode?: string;
  lastUsed: number;
  /** The tool list, shared by the leases until the server announces a tools change. */
  tools?: Promise<RawTool[]>;
  idleTimer?: NodeJS.Timeout;
}

const DEFAULT_IDLE_MS = 300_000;
const DEFAULT_MAX_CONNECTIONS = 64;
const BREAKER_FAILURES = 3;
const BREAKER_COOL_DOWN_MS = 30_000;

/** Shares MCP connections between runs within a scope (`NativeRun.start({ pool, scope })`). */
export class McpPool implements AsyncDisposable {
  readonly #options: McpPoolOptions;
  readonly #registry: ToolSchemaRegistry;
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  constructor(options: McpPoolOptions) {
    if (options?.service === undefined)
      throw new AgtError('invalid_input', 'McpPool needs { service }: the registry its runs read mounts from');
    for (const field of ['idleMs', 'maxConnections'] as const) {
      const value = options[field];
      if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
        throw new AgtError('invalid_input', `McpPool: ${field} must be a positive whole number`, { details: { field } });
      }
    }
    this.#options = options;
    this.#registry = options.registry ?? new ToolSchemaRegistry();
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
    const connect: ConnectOptions = {
      registry: this.#registry,
      timeouts: { ...this.#options.timeouts, ...request.connect.timeouts },
      ...connectDefaults(request.connect, this.#options, request.reference),
    };
    const key = keyOf(request, connect);
    let entry = this.#entries.get(key);
    if (entry?.connection?.closed) {
      // A dead server is started again by this lease (its runs' calls failed with connection_closed).
      delete entry.connection;
      delete entry.tools;
      entry.restarts += 1;
    }
    if (entry === undefined) {
      entry = {
        key,
        reference: request.reference,
        scope: request.scope,
        revision: request.revision,
        routers: new Set(),
        starts: 0,
        restarts: 0,
        failures: 0,
        lastUsed: Date.now(),
      };
      this.#entries.set(key, entry);
      await this.#supersede(entry);
    }
    if (entry.connection === undefined && entry.starting === undefined && entry.openUntil !== undefined && Date.now() < entry.openUntil) {
      const wait = Math.ceil((entry.openUntil - Date.now()) / 1000);
      throw new AgtError(
        'server_unavailable',
        `the server of mount "${request.reference}" failed to start ${entry.failures} times in a row; the pool tries again in ${wait} s`,
        { details: { mount: request.reference, failures: entry.failures, lastErrorCode: entry.lastErrorCode } },
      );
    }
    const router: ServerRequestRouter = { handlers: request.connect, busy: request.busy };
    entry.routers.add(router);
    clearTimeout(entry.idleTimer);
    entry.lastUsed = Date.now();
    try {
      const connection = entry.connection ?? (await (entry.starting ??= this.#start(entry, request.document, connect, request.connect)));
      let released = false;
      return {
        connection,
        key,
        listTools: () => {
          const listed = (entry.tools ??= connection.listTools());
          listed.catch(() => entry.tools === listed && delete entry.tools); // a failed list is not kept
          return listed;
        },
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
  async #supersede(newer: Entry): Promise<void> {
    const older = [...this.#entries.values()].filter(
      (e) => e.reference === newer.reference && e.scope === newer.scope && e.revision < newer.revision,
    );
    for (const e of older) e.superseded = true;
    await Promise.all(older.filter((e) => e.routers.size === 0 && e.starting === undefined).map((e) => this.#close(e)));
  }

  // A key without a connection or leases is kept while its breaker may matter, then forgotten.
  #forgetLater(entry: Entry): void {
    clearTimeout(entry.idleTimer);
    const wait = Math.max(this.#options.idleMs ?? DEFAULT_IDLE_MS, (entry.openUntil ?? 0) - Date.now());
    entry.idleTimer = setTimeout(() => this.#drop(entry), wait);
    entry.idleTimer.unref();
  }

  async #start(entry: Entry, document: McpDocument, connect: ConnectOptions, declared: ConnectOptions): Promise<McpConnection> {
    entry.starts += 1;
    try {
      // Server requests go to the one run with calls in flight on this connection (routing.ts), never to another's user.
      const connection = await connectMcp(document, { ...connect, ...routedHandlers(entry.routers, declared) });
      entry.connection = connection;
      connection.onListChanged((kind) => kind === 'tools' && delete entry.tools);
      delete entry.lastErrorCode;
      entry.failures = 0;
      delete entry.openUntil;
      await this.#evictBeyondLimit();
      return connection;
    } catch (error) {
      entry.lastErrorCode = (error as { code?: string }).code ?? 'connection_closed';
      entry.failures += 1;
      if (entry.failures >= (this.#options.breaker?.failures ?? BREAKER_FAILURES)) {
        entry.openUntil = Date.now() + (this.#options.breaker?.coolDownMs ?? BREAKER_COOL_DOWN_MS);
      }
      throw error;
    } finally {
      delete entry.starting;
    }
  }

  async #release(entry: Entry, router: ServerRequestRouter): Promise<void> {
    entry.routers.delete(router);
    entry.lastUsed = Date.now();
    if (entry.routers.size > 0 || this.#entries.get(entry.key) !== entry) return;
    if (this.#closed || entry.superseded || entry.connection?.closed) {
      await this.#close(entry);
      return;
    }
    entry.idleTimer = setTimeout(() => void this.#close(entry), this.#options.idleMs ?? DEFAULT_IDLE_MS);
    entry.idleTimer.unref(); // an idle pool never keeps the host alive
    await this.#evictBeyondLimit();
  }

  // Beyond maxConnections, the least recently used idle connections close; leased ones never do.
  async #evictBeyondLimit(): Promise<void> {
    const limit = this.#options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const open = [...this.#entries.values()].filter((e) => e.connection !== undefined);
    if (open.length <= limit) return;
    const idle = open.filter((e) => e.routers.size === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    await Promise.all(idle.slice(0, open.length - limit).map((e) => this.#close(e)));
  }

  #drop(entry: Entry): undefined {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
    clearTimeout(entry.idleTimer);
    return undefined;
  }

  async #close(entry: Entry): Promise<void> {
    this.#drop(entry);
    await entry.connection?.close();
  }

  /** Per key: state, leases, starts, the last error code. */
  stats(): PoolStats {
    const keys = [...this.#entries.values()].map((e): PoolKeyStats => ({
      key: e.key,
      reference: e.reference,
      scope: e.scope,
      state: stateOf(e),
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

  /** Closes every connection (leased ones too: their runs' calls then fail with connection_closed) and ends their process trees. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    await Promise.all(entries.map(async (e) => (await e.starting?.catch(() => undefined), this.#close(e))));
  }

  /** `await using pool = new McpPool(…)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function stateOf(e: Entry): PoolKeyStats['state'] {
  if (e.connection !== undefined) return e.connection.closed ? 'closed' : e.routers.size > 0 ? 'open' : 'idle';
  if (e.starting !== undefined) return 'starting';
  return e.openUntil !== undefined && Date.now() < e.openUntil ? 'unavailable' : 'failed';
}
