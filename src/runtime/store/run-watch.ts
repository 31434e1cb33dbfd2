/**
 * The options every RunStore `watch` takes (E8): one code path for hosts on any store. A store whose watch can lose
 * its connection (PostgreSQL) reconnects by itself and, once it listens again, tells the host of the gap — the
 * announcements it may have missed — so the host reads `list({ waiting: true })` again; a store that cannot lose
 * one (MemoryRunStore) never calls `onGap`.
 */
import { AgtError } from '../../errors.js';

/** A time a watch could not hear announcements: those sent then were missed, and `list({ waiting: true })` has them. */
export interface RunWatchGap {
  /** What was lost, in the store's words (a driver code at most: never a connection string, host, user or password). */
  reason: string;
  /** When the loss was noticed (ISO 8601). */
  lostAt: string;
  /** When the watch listened again (ISO 8601): announcements from here on reach the listener. */
  resumedAt: string;
  /** Connection attempts it took to listen again, 1 or more. */
  attempts: number;
}

/** Options of `RunStore.watch`. */
export interface RunWatchOptions {
  /**
   * Called each time the watch listens again after a loss, before the announcements heard since: read
   * `list({ waiting: true })` again. What it throws or rejects is ignored.
   */
  onGap?: (gap: RunWatchGap) => void;
}

/** Checks a `watch` call's listener and options: invalid_input naming the field when one is not what it must be. */
export function checkRunWatch(listener: unknown, options: unknown, who: string): RunWatchOptions {
  if (typeof listener !== 'function')
    throw new AgtError('invalid_input', `${who}: the listener must be a function (announcement) => void`, {
      details: { field: 'listener' },
    });
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new AgtError('invalid_input', `${who}: the options must be an object { onGap? }`, { details: { field: 'options' } });
  // A misspelt option would leave a host deaf to gaps without a word: refused (the key not echoed: it is the caller's text).
  if (Object.keys(options).some((key) => key !== 'onGap'))
    throw new AgtError('invalid_input', `${who}: the only option is onGap`, { details: { field: 'options' } });
  const { onGap } = options as { onGap?: unknown };
  if (onGap !== undefined && typeof onGap !== 'function')
    throw new AgtError('invalid_input', `${who}: onGap must be a function (gap) => void`, { details: { field: 'onGap' } });
  return options as RunWatchOptions;
}

/** Calls a host's callback whose failures are its own concern: a throw or a rejected promise is dropped. */
export function callSafely<T>(callback: ((value: T) => unknown) | undefined, value: T): void {
  if (callback === undefined) return;
  try {
    const result = callback(value);
    if (typeof (result as { then?: unknown })?.then === 'function') (result as Promise<unknown>).then(undefined, () => undefined);
  } catch {
    // the host's own concern: the watch goes on
  }
}
