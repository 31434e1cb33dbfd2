/**
 * withRevision (`service.withRevision`): a read-modify-write of one resource under compare-and-set
 * (A4), retried for the caller. The change is computed from the record as
 * read and written with that record's `expectedRevision`; when another host
 * wrote in between (`revision_conflict`), it waits a jittered, growing delay,
 * reads again and computes the change again — at most `attempts` times.
 * Nothing is written on a change computed from a stale read. For changes that
 * do not depend on what is stored (add or remove a mount), `service.write`
 * without `expectedRevision` already retries inside.
 */
import { AgtError, isAgtError } from '../errors.js';
import type { WriteInput, WriteResult } from './write-input.js';
import type { ResourceKind, ResourceRecord } from './types.js';
import { DEFAULT_REVISION_ATTEMPTS, DEFAULT_REVISION_BACKOFF_MS, DEFAULT_REVISION_MAX_DELAY_MS } from '../bounds.js';

/** The change of a write of kind K: its data (typed by kind), or mount changes of an agent. */
export type RevisionChange<K extends ResourceKind> = Omit<
  Extract<WriteInput, { kind: K }>,
  'kind' | 'reference' | 'create' | 'expectedRevision'
>;

/** What withRevision needs of a service: a read and a write (ResourceService has both). */
export interface RevisionService {
  read(target: { kind: ResourceKind; reference: string }): Promise<ResourceRecord>;
  write(input: WriteInput): Promise<WriteResult>;
}

/** Options of {@link withRevision}. */
export interface WithRevisionOptions {
  /** Reads and writes at most this many times. Default 50. */
  attempts?: number;
  /** The first wait after a conflict is up to this many milliseconds, doubling each time. Default 5. */
  backoffMs?: number;
  /** The same as `attempts` (its first name); `attempts` wins when both are given. */
  maxAttempts?: number;
  /** The same as `backoffMs` (its first name); `backoffMs` wins when both are given. */
  baseDelayMs?: number;
  /** The longest wait between attempts. Default 250. */
  maxDelayMs?: number;
  /** Stops waiting (`cancelled`); a write already sent is not undone. */
  signal?: AbortSignal;
}

/** What {@link withRevision} did: the record now stored, and how many read-and-write attempts it took. */
export interface WithRevisionResult extends WriteResult {
  attempts: number;
  /** False when `update` returned undefined (nothing to change): `record` is the one read. */
  written: boolean;
}

/**
 * Reads `target`, computes the change with `update(record)` and writes it with the revision read; on a conflict
 * reads again and retries with a jittered backoff (see the module comment). `update` may return undefined to write
 * nothing. The last conflict is thrown (`details.attempts`) once `attempts` are used.
 */
export async function withRevision<K extends ResourceKind>(
  service: RevisionService,
  target: { kind: K; reference: string },
  update: (record: ResourceRecord) => RevisionChange<K> | undefined | Promise<RevisionChange<K> | undefined>,
  options: WithRevisionOptions = {},
): Promise<WithRevisionResult> {
  const { maxDelayMs = DEFAULT_REVISION_MAX_DELAY_MS, signal } = options;
  const maxAttempts = options.attempts ?? options.maxAttempts ?? DEFAULT_REVISION_ATTEMPTS;
  const baseDelayMs = options.backoffMs ?? options.baseDelayMs ?? DEFAULT_REVISION_BACKOFF_MS;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1)
    throw new AgtError('invalid_input', 'withRevision: attempts must be a whole number, 1 or more', {
      details: { field: options.attempts === undefined && options.maxAttempts !== undefined ? 'maxAttempts' : 'attempts' },
    });
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw new AgtError('cancelled', 'withRevision was cancelled before it could write');
    const record = await service.read(target);
    const change = await update(record);
    if (change === undefined) return { record, warnings: [], attempts: attempt, written: false };
    try {
      const input = { ...change, kind: target.kind, reference: target.reference, expectedRevision: record.revision } as WriteInput;
      return { ...(await service.write(input)), attempts: attempt, written: true };
    } catch (error) {
      if (!isAgtError(error) || error.code !== 'revision_conflict') throw error;
      if (attempt >= maxAttempts)
        throw new AgtError('revision_conflict', `${error.message} (gave up after ${attempt} attempts)`, {
          details: { ...error.details, attempts: attempt },
          cause: error,
        });
      await jitteredDelay(Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)), signal);
    }
  }
}

// "Full jitter": a random wait up to the bound, so hosts that collided do not collide again in step.
function jitteredDelay(boundMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, Math.random() * boundMs);
    const stop = () => {
      clearTimeout(timer);
      reject(new AgtError('cancelled', 'withRevision was cancelled while it waited to retry'));
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
