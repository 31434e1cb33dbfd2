/**
 * Waiting on the host under a run's or batch's signal: a stage that waits (a
 * policy asking a human, a hook, a delegate) stops waiting the moment the
 * signal aborts, and never piles listeners on a signal nobody can abort.
 */

const ABORTED = Symbol('aborted');

/** The signal of a run and batch that nobody can cancel (no host signal given). */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** `promise`, or ABORTED as soon as `signal` aborts (the promise is then ignored). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (signal === undefined || signal === NEVER_ABORTED) return promise;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** True for the value `abortable` gives when the signal aborted. */
export const wasAborted = (value: unknown): value is typeof ABORTED => value === ABORTED;
