/**
 * What a pool tells a host's audit about its connections: starts, restarts,
 * failed starts, an open breaker, evictions and closes. No values: the key is
 * a hash, the reference and scope are names the host gave, a code is one of
 * AGT_ERROR_CODES.
 */

/** One thing the pool did with one key's connection. */
export interface PoolEvent {
  type: 'pool_connection';
  /** ISO 8601. */
  at: string;
  /**
   * `started`: its first start; `restarted`: started again after its server died or closed;
   * `start_failed` (with `code`); `breaker_open`: it fails fast for the cool-down;
   * `evicted`: closed idle beyond maxConnections; `closed`: see `reason`;
   * `request_declined`: a server request (`request`) no single run could answer (none or several busy).
   */
  action: 'started' | 'restarted' | 'start_failed' | 'breaker_open' | 'evicted' | 'closed' | 'request_declined';
  /** For `request_declined`: what the server asked for. */
  request?: 'elicitation' | 'sampling';
  /** For `closed`: idle for idleMs, superseded by a newer revision, its server died, or the pool closed. */
  reason?: 'idle' | 'superseded' | 'died' | 'pool_closed';
  reference: string;
  scope: string;
  key: string;
  starts: number;
  code?: string;
}

/** Receives the pool's events; a failing sink never breaks the pool. */
export interface PoolAuditSink {
  record(event: PoolEvent): void | Promise<void>;
}

/** Hands `event` to `sink` without waiting for it; its failures are ignored. */
export function recordPoolEvent(sink: PoolAuditSink | undefined, event: PoolEvent): void {
  if (sink === undefined) return;
  try {
    void Promise.resolve(sink.record(event)).catch(() => undefined);
  } catch {
    // an audit sink must not break the pool
  }
}
