/**
 * Who waits for a waiting call to end (run.awaitCall): an app's call held
 * open until a host decides it, in this process. Each waiter is settled once —
 * by the call's result, its signal, or the run closing — and leaves nothing
 * behind (its abort listener is removed as it settles).
 */
import { AgtError, isAgtError } from '../../errors.js';
import type { ToolResult } from '../types.js';

interface Waiter {
  resolve(result: ToolResult): void;
  reject(error: unknown): void;
}

/** The waiters of one run's calls, by batch and call id. */
export class CallWaiters {
  readonly #waiters = new Map<string, Set<Waiter>>();

  /** Waits for call `callId` of batch `batchId` to end; `signal` rejects with its reason (cancelled when it has none). */
  wait(batchId: string, callId: string, signal: AbortSignal | undefined): Promise<ToolResult> {
    return new Promise<ToolResult>((resolve, reject) => {
      const key = keyOf(batchId, callId);
      const onAbort = () => settle(() => reject(abortReason(signal)));
      const settle = (end: () => void) => {
        signal?.removeEventListener('abort', onAbort);
        const set = this.#waiters.get(key);
        set?.delete(waiter);
        if (set?.size === 0) this.#waiters.delete(key);
        end();
      };
      const waiter: Waiter = { resolve: (r) => settle(() => resolve(r)), reject: (e) => settle(() => reject(e)) };
      if (signal?.aborted) return reject(abortReason(signal));
      signal?.addEventListener('abort', onAbort, { once: true });
      const set = this.#waiters.get(key) ?? new Set<Waiter>();
      set.add(waiter);
      this.#waiters.set(key, set);
    });
  }

  /** Settles the waiters of the calls of batch `batchId` that ended with `results`. */
  ended(batchId: string, results: readonly ToolResult[]): void {
    if (this.#waiters.size === 0) return; // the usual case: nobody waits
    for (const result of results)
      for (const waiter of [...(this.#waiters.get(keyOf(batchId, result.callId)) ?? [])]) waiter.resolve(result);
  }

  /** Rejects every waiter (the run closed). */
  clear(error: AgtError): void {
    for (const set of [...this.#waiters.values()]) for (const waiter of [...set]) waiter.reject(error);
  }

  /** How many wait (tests: nothing outlives a closed run). */
  get size(): number {
    return this.#waiters.size;
  }
}

const keyOf = (batchId: string, callId: string) => JSON.stringify([batchId, callId]);

const abortReason = (signal: AbortSignal | undefined): unknown =>
  isAgtError(signal?.reason) ? signal.reason : new AgtError('cancelled', 'the wait for the call was cancelled (the call still waits)');
