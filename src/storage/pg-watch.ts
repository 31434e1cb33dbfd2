/**
 * A LISTEN that outlives its connection (E8; issue 58): a host lives for weeks, its database restarts, an
 * administrator terminates a backend, a network is cut. The watch notices — the client's 'error' or 'end', or a
 * heartbeat unanswered by the next one (a cut network says nothing) — reconnects after a bounded, jittered backoff
 * (bounds.ts: PG_WATCH_RETRY_FIRST_MS doubling to PG_WATCH_RETRY_MAX_MS) until it listens again or is stopped, and
 * then tells the host of the gap (`onGap`), ahead of the announcements heard since, so it re-reads what waits.
 */
import { PG_WATCH_RETRY_FIRST_MS, PG_WATCH_RETRY_MAX_MS } from '../bounds.js';
import { callSafely, type RunWatchGap } from '../runtime/store/run-watch.js';
import type { PgConnection, PgListenLink } from './pg-db.js';

/** What a channel watch listens to, how it reads a payload, and whom it tells. */
export interface ChannelWatch<T> {
  channel: string;
  /** How often the connection is asked for an answer; one unanswered by the next ends it. */
  heartbeatMs: number;
  /** What the listener gets for a payload (undefined: dropped), reading on the watch's own connection if need be. */
  read(payload: string, query: PgListenLink['query']): Promise<T | undefined>;
  listener(value: T): void;
  onGap?(gap: RunWatchGap): void;
}

/** The wait before reconnect attempt `attempt` (1, 2, …): the first ~100 ms, doubled each time up to 30 s, jittered down to half. */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const full = Math.min(PG_WATCH_RETRY_MAX_MS, PG_WATCH_RETRY_FIRST_MS * 2 ** Math.min(attempt - 1, 30));
  return Math.round(full * (0.5 + random() / 2));
}

/**
 * LISTENs as `spec` says until the returned stop (a first connection that fails rejects: store_unavailable). stop()
 * ends a reconnect wait at once, waits for an attempt under way (bounded by acquireTimeoutMs) and releases its
 * connection: no timer, connection or client listener outlives it, and no gap is told after it.
 */
export async function watchChannel<T>(db: PgConnection, spec: ChannelWatch<T>): Promise<() => Promise<void>> {
  let link: PgListenLink | undefined;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined; // the heartbeat while listening, the retry wait while not
  let attempting: Promise<void> | undefined;
  let outage: { reason: string; lostAt: string; attempts: number; settle(gap: RunWatchGap | undefined): void } | undefined;

  // In the order heard, though one may be read back from the table first (a long run id); a gap before what follows it.
  let delivered = Promise.resolve();
  const deliver = (next: Promise<(() => void) | undefined>) => {
    delivered = delivered.then(async () => (await next)?.());
  };

  const open = async (): Promise<PgListenLink> => {
    let linked!: (link: PgListenLink) => void;
    const own = new Promise<PgListenLink>((resolve) => (linked = resolve));
    const query: PgListenLink['query'] = async (text, values) => (await own).query(text, values);
    const opened = await db.listen(
      spec.channel,
      (payload) => {
        const reading = spec.read(payload, query).catch(() => undefined); // a hint: a failed read is dropped
        deliver(reading.then((value) => (value === undefined ? undefined : () => callSafely(spec.listener, value))));
      },
      lost,
    );
    linked(opened);
    return opened;
  };

  const beat = () => {
    let answered = true;
    const tick = () => {
      const current = link;
      if (current === undefined) return;
      if (!answered) return current.lose(`no answer to a heartbeat within ${spec.heartbeatMs} ms`);
      answered = false;
      current.query('SELECT 1', []).then(
        () => void (answered = true),
        () => undefined, // a broken connection says so by 'error' or 'end'; else the next beat ends it
      );
      timer = setTimeout(tick, spec.heartbeatMs);
    };
    timer = setTimeout(tick, spec.heartbeatMs);
  };

  function lost(reason: string): void {
    link = undefined;
    clearTimeout(timer);
    if (stopped) return;
    let settle!: (gap: RunWatchGap | undefined) => void;
    const gap = new Promise<RunWatchGap | undefined>((resolve) => (settle = resolve));
    deliver(gap.then((g) => (g === undefined ? undefined : () => callSafely(spec.onGap, g))));
    outage = { reason, lostAt: new Date().toISOString(), attempts: 0, settle };
    retry();
  }

  const retry = () => {
    timer = setTimeout(
      () => {
        timer = undefined;
        attempting = reconnect().finally(() => (attempting = undefined));
      },
      retryDelay((outage?.attempts ?? 0) + 1),
    );
  };

  const reconnect = async () => {
    const now = outage;
    if (now === undefined) return;
    now.attempts += 1;
    let fresh: PgListenLink;
    try {
      fresh = await open();
    } catch {
      if (!stopped) retry(); // down still (refused, pool_timeout, no answer): wait longer, try again
      return;
    }
    if (stopped) return fresh.close();
    link = fresh;
    outage = undefined;
    now.settle({ reason: now.reason, lostAt: now.lostAt, resumedAt: new Date().toISOString(), attempts: now.attempts });
    beat();
  };

  link = await open();
  beat();
  let stopping: Promise<void> | undefined;
  const stop = async () => {
    stopped = true;
    clearTimeout(timer);
    timer = undefined;
    outage?.settle(undefined);
    outage = undefined;
    await attempting;
    const current = link;
    link = undefined;
    await current?.close();
  };
  return () => (stopping ??= stop());
}
