/**
 * One key of an McpPool and its life: the connection starting (once, for
 * every concurrent lease), open, idle, found dead and started again; the
 * breaker after failed starts; the tool list its leases share within its
 * ttl; the timer of its idle close. Each state changes only through the
 * transitions here, so the pool reads as what happens, not as field edits.
 */
import { AgtError } from '../errors.js';
import type { McpConnection } from '../mcp/connection.js';
import type { McpSkillListing } from '../mcp/connection-types.js';
import type { RawTool } from '../mcp/requests/lists.js';
import type { ServerRequestRouter } from './routing.js';
import type { PublicLists } from './shared-lists.js';
import type { PoolClock, PoolKeyStats } from './types.js';

/** What names a key: its hash, the server whatever the scope, the mount, the scope and the config revision. */
export interface EntryIdentity {
  key: string;
  /** The server whatever the scope (serverKeyOf): a list change of any of its connections drops its public lists. */
  server: string;
  /** What its public tool list is shared by (publicListKeyOf): the server, and its credentials unless the pool says `'any'`. */
  lists: string;
  reference: string;
  scope: string;
  revision: number;
}

/** One pooled key (see the module comment). */
export class PoolEntry {
  readonly key: string;
  readonly server: string;
  readonly lists: string;
  readonly reference: string;
  readonly scope: string;
  readonly revision: number;
  /** The leases holding it, each with its server-request handlers. */
  readonly routers = new Set<ServerRequestRouter>();
  starts = 0;
  restarts = 0;
  lastUsed: number;
  #superseded = false;
  #connection: McpConnection | undefined;
  #starting: Promise<McpConnection> | undefined;
  #restarting = false;
  #failures = 0;
  #openUntil: number | undefined;
  #lastErrorCode: string | undefined;
  #tools: Promise<RawTool[]> | undefined;
  #toolsUntil: number | undefined;
  #skills: Promise<McpSkillListing> | undefined;
  #skillsUntil: number | undefined;
  #cancelTimer: (() => void) | undefined;

  constructor(identity: EntryIdentity, now: number) {
    ({
      key: this.key,
      server: this.server,
      lists: this.lists,
      reference: this.reference,
      scope: this.scope,
      revision: this.revision,
    } = identity);
    this.lastUsed = now;
  }

  /** The open (or dead, not yet noticed) connection. */
  get connection(): McpConnection | undefined {
    return this.#connection;
  }
  /** The start in progress, if any. */
  get starting(): Promise<McpConnection> | undefined {
    return this.#starting;
  }
  /** Failed starts in a row. */
  get failures(): number {
    return this.#failures;
  }
  /** The code of the last failed start, until a start succeeds. */
  get lastErrorCode(): string | undefined {
    return this.#lastErrorCode;
  }
  /** A newer revision of its config was leased in its scope: it closes with its last lease. */
  get superseded(): boolean {
    return this.#superseded;
  }

  /** The state stats show at `now`. */
  state(now: number): PoolKeyStats['state'] {
    if (this.#connection !== undefined) return this.#connection.closed ? 'closed' : this.routers.size > 0 ? 'open' : 'idle';
    if (this.#starting !== undefined) return 'starting';
    return this.#openUntil !== undefined && now < this.#openUntil ? 'unavailable' : 'failed';
  }

  /** Marks it superseded by a newer revision. */
  supersede(): void {
    this.#superseded = true;
  }

  /** True when its server died since it started: the next start is a restart (its list is dropped). */
  noticeDeath(): boolean {
    if (this.#connection?.closed !== true) return false;
    this.#connection = undefined;
    this.#tools = undefined;
    this.#skills = undefined;
    this.restarts += 1;
    this.#restarting = true;
    return true;
  }

  /** With the breaker open at `now`: server_unavailable saying when the pool tries again; else undefined. */
  unavailable(now: number): AgtError | undefined {
    if (this.#connection !== undefined || this.#starting !== undefined || this.#openUntil === undefined || now >= this.#openUntil)
      return undefined;
    const wait = Math.ceil((this.#openUntil - now) / 1000);
    return new AgtError(
      'server_unavailable',
      `the server of mount "${this.reference}" failed to start ${this.#failures} times in a row; the pool tries again in ${wait} s`,
      { details: { mount: this.reference, failures: this.#failures, lastErrorCode: this.#lastErrorCode } },
    );
  }

  /** Its connection: the open one, the start in progress, or a new start by `start` (concurrent callers share one). */
  connect(start: () => Promise<McpConnection>): Promise<McpConnection> {
    if (this.#connection !== undefined) return Promise.resolve(this.#connection);
    this.#starting ??= start().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  /** A start succeeded: the breaker closes. True when it was a restart after the server died. */
  started(connection: McpConnection): boolean {
    const restart = this.#restarting;
    this.#connection = connection;
    this.#restarting = false;
    this.#failures = 0;
    this.#openUntil = undefined;
    this.#lastErrorCode = undefined;
    return restart;
  }

  /** A start failed with `code`: true when this failure opens the breaker (after `limit` in a row, for `coolDownMs`). */
  startFailed(code: string, now: number, limit: number, coolDownMs: number): boolean {
    this.#lastErrorCode = code;
    this.#failures += 1;
    if (this.#failures < limit) return false;
    this.#openUntil = now + coolDownMs;
    return true;
  }

  /** When the breaker closes (0 when it is not open): how long a key without leases is kept. */
  get openUntil(): number {
    return this.#openUntil ?? 0;
  }

  /** The server announced a tools change: the shared list is stale. */
  dropTools(): void {
    this.#tools = undefined;
  }

  /** The server announced a resources change (its skills are resources): the shared skill list is stale. */
  dropSkills(): void {
    this.#skills = undefined;
  }

  /** The skill list its leases share (K2): listed once, kept until a resources change or past the server's ttl; a failed list is not kept. */
  listSkills(connection: McpConnection, clock: PoolClock): Promise<McpSkillListing> {
    if (this.#skillsUntil !== undefined && clock.now() >= this.#skillsUntil) this.#skills = undefined;
    const listed = (this.#skills ??= connection.listSkills().then((listing) => {
      this.#skillsUntil = listing.ttlMs === undefined ? undefined : clock.now() + listing.ttlMs;
      return listing;
    }));
    listed.catch(() => this.#skills === listed && (this.#skills = undefined));
    return listed;
  }

  /**
   * The tool list its leases share: listed once, kept until a list change or
   * past the server's ttl (E3); a list another scope keeps as `public` is taken
   * as it is; a failed list is not kept.
   */
  listTools(connection: McpConnection, clock: PoolClock, shared: PublicLists): Promise<RawTool[]> {
    if (this.#toolsUntil !== undefined && clock.now() >= this.#toolsUntil) this.#tools = undefined; // past its ttl
    const kept = this.#tools === undefined ? shared.get(this.lists) : undefined; // another scope's public list
    if (kept !== undefined) [this.#tools, this.#toolsUntil] = [Promise.resolve(kept.tools), kept.until];
    const listed = (this.#tools ??= connection.listTools().then((tools) => {
      const hints = connection.toolListHints();
      this.#toolsUntil = hints === undefined ? undefined : clock.now() + hints.ttlMs;
      shared.put(this.lists, this.server, tools, hints);
      return tools;
    }));
    listed.catch(() => this.#tools === listed && (this.#tools = undefined));
    return listed;
  }

  /** Replaces its pending timer (an idle close, or forgetting the key). */
  schedule(cancel: () => void): void {
    this.#cancelTimer?.();
    this.#cancelTimer = cancel;
  }

  /** Cancels its pending timer. */
  cancelPending(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }
}
