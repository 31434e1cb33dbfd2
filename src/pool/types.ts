/**
 * The pool's shapes: its options, what a run asks for (a lease), what hosts
 * see (stats); the state it keeps per key is a PoolEntry (entry.ts).
 */
import type { McpSkillListing } from '../mcp/connection-types.js';
import type { ConnectOptions } from '../mcp/connect.js';
import type { McpConnection } from '../mcp/connection.js';
import type { RawTool } from '../mcp/requests/lists.js';
import type { ConnectSettings } from '../mcp/settings/settings.js';
import type { McpDocument } from '../config/mcp-config.js';
import type { ResourceService } from '../resources/service.js';
import type { ToolSchemaRegistry } from '../schema/registry.js';
import type { PoolAuditSink } from './events.js';

/** Options of {@link McpPool}: its ConnectSettings (a run's own auth and variables win for its leases), and its bounds. */
export interface McpPoolOptions extends Omit<ConnectSettings, 'elicitation' | 'sampling' | 'elicitationModes' | 'samplingTools'> {
  service: ResourceService;
  registry?: ToolSchemaRegistry;
  /** How long a connection without leases stays open. Default 300,000 (5 min). */
  idleMs?: number;
  /** Connections kept open at most; beyond it the least recently used idle one closes (a leased one never). Default 64. */
  maxConnections?: number;
  /**
   * After `failures` failed starts in a row, a key fails fast with `server_unavailable` for `coolDownMs`. Default 3 and 30,000.
   * Before that, each start after a failed one waits `backoffMs` × 2^(failures − 1) (default 100 ms, at most coolDownMs).
   */
  breaker?: { failures?: number; coolDownMs?: number; backoffMs?: number };
  /** Told of starts, restarts, failed starts, an open breaker, evictions and closes (no values). */
  audit?: PoolAuditSink;
  /**
   * Who shares a tool list a server marked `cacheScope: "public"` (E3): `'same-credentials'` (the default) — runs of
   * every scope whose connection launches alike and carries the same credentials (no auth, or one auth the pool
   * gives all); `'any'` — every scope, whatever credentials its runs bring (opt in only when the server's lists
   * cannot differ by user: a server that marks a per-user list public would show one user's tools to another).
   */
  publicLists?: 'same-credentials' | 'any';
  /** The pool's time: idle closes, LRU order and the breaker's cool-down (tests inject one). Default: the system clock. */
  clock?: PoolClock;
}

/** Time as the pool sees it. */
export interface PoolClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` after `ms` without keeping the host alive; returns the cancel. */
  after(ms: number, callback: () => void): () => void;
}

/** The system clock: Date.now and unref'd timers. */
export const SYSTEM_CLOCK: PoolClock = {
  now: () => Date.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    timer.unref(); // an idle pool never keeps the host alive
    return () => clearTimeout(timer);
  },
};

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
  /** The server's skills (the MCP Skills extension), listed once per connection and again after it announces a resources change. */
  listSkills(): Promise<McpSkillListing>;
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
