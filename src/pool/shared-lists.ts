/**
 * Tool lists a 2026-07-28 server marked `cacheScope: "public"` (E3): every
 * scope of a pool whose connection launches alike and carries the same
 * credentials shares one within its ttl (every scope at all when the pool
 * says `publicLists: 'any'`). A `private` list stays with its connection (its
 * scope, its auth identity). A list change announced by any connection of
 * the server drops every public list of it.
 */
import type { CacheHints, RawTool } from '../mcp/requests/lists.js';
import type { PoolClock } from './types.js';

/** The public tool lists of a pool, by server (its reference, revision and launch). */
export class PublicLists {
  readonly #lists = new Map<string, { server: string; tools: RawTool[]; until: number }>();
  readonly #clock: PoolClock;

  constructor(clock: PoolClock) {
    this.#clock = clock;
  }

  /** The public list shared by `key` (publicListKeyOf) while its ttl lasts, with when it expires. */
  get(key: string): { tools: RawTool[]; until: number } | undefined {
    const list = this.#lists.get(key);
    if (list === undefined || this.#clock.now() < list.until) return list;
    this.#lists.delete(key); // past its ttl: never served again
    return undefined;
  }

  /** Keeps `tools` of `server` for every scope that shares `key`, when the server marked them public with a ttl. */
  put(key: string, server: string, tools: RawTool[], hints: CacheHints | undefined): void {
    if (hints?.cacheScope !== 'public' || hints.ttlMs <= 0) return;
    const now = this.#clock.now();
    // Lists nobody asked for again (an older revision's) go once expired: a pool that lives for weeks keeps none.
    for (const [kept, list] of this.#lists) if (now >= list.until) this.#lists.delete(kept);
    this.#lists.set(key, { server, tools, until: now + hints.ttlMs });
  }

  /** How many lists are kept (expired ones included until the next put). */
  get size(): number {
    return this.#lists.size;
  }

  /** Forgets every public list of `server`, whoever shares it (a list change, the server's last connection gone). */
  drop(server: string): void {
    for (const [key, list] of this.#lists) if (list.server === server) this.#lists.delete(key);
  }
}
