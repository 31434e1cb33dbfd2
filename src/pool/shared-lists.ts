/**
 * Tool lists a 2026-07-28 server marked `cacheScope: "public"` (E3): any user
 * of that server may reuse them, so every scope of a pool shares one within its
 * ttl. A `private` list stays with its connection (its scope, its auth
 * identity). A list change announced by any connection of the server drops it.
 */
import type { CacheHints, RawTool } from '../mcp/lists.js';
import type { PoolClock } from './types.js';

/** The public tool lists of a pool, by server (its reference, revision and launch). */
export class PublicLists {
  readonly #lists = new Map<string, { tools: RawTool[]; until: number }>();
  readonly #clock: PoolClock;

  constructor(clock: PoolClock) {
    this.#clock = clock;
  }

  /** The public list of `server` while its ttl lasts, with when it expires. */
  get(server: string): { tools: RawTool[]; until: number } | undefined {
    const list = this.#lists.get(server);
    if (list === undefined || this.#clock.now() < list.until) return list;
    this.#lists.delete(server); // past its ttl: never served again
    return undefined;
  }

  /** Keeps `tools` for every scope when the server marked them public with a ttl. */
  put(server: string, tools: RawTool[], hints: CacheHints | undefined): void {
    if (hints?.cacheScope !== 'public' || hints.ttlMs <= 0) return;
    const now = this.#clock.now();
    // Lists nobody asked for again (an older revision's) go once expired: a pool that lives for weeks keeps none.
    for (const [key, list] of this.#lists) if (now >= list.until) this.#lists.delete(key);
    this.#lists.set(server, { tools, until: now + hints.ttlMs });
  }

  /** How many lists are kept (expired ones included until the next put). */
  get size(): number {
    return this.#lists.size;
  }

  /** Forgets the list of `server` (a list change, the server's last connection gone). */
  drop(server: string): void {
    this.#lists.delete(server);
  }
}
