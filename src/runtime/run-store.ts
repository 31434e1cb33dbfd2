/**
 * The RunStore port: suspended runs by run id, with compare-and-set on a
 * revision like ResourceStore, so two hosts that resumed the same run cannot
 * both write it back. Adapters: MemoryRunStore (here), SqliteRunStore
 * (`agt-mcp/sqlite`), PostgresRunStore (`agt-mcp/postgres`); every adapter
 * passes `runStoreConformanceSuite` (`agt-mcp/testing`).
 */
import { AgtError } from '../errors.js';
import { checkExpectedRevision, expectedRevisionOf } from '../resources/conflict.js';
import type { SuspendedRun } from './run-options.js';
import { isStoredApproval, type StoredApproval } from './pending/record.js';

/** The newest format of SuspendedRun this version reads and writes (2: with pending approvals; 1 is read too, and written without them). */
export const RUN_FORMAT_VERSION = 2;

const readsFormat = (version: unknown): boolean => version === 1 || version === 2;

/** A suspended run as stored. `revision` starts at 1 and increases on every put. */
export interface StoredRun {
  runId: string;
  agent: string;
  revision: number;
  state: SuspendedRun;
  /** ISO 8601 timestamps. */
  createdAt: string;
  updatedAt: string;
}

/** What is written. */
export interface RunWrite {
  runId: string;
  agent: string;
  state: SuspendedRun;
}

/**
 * Where suspended runs live. Each method may be called from any number of
 * processes at once; writes are atomic.
 */
export interface RunStore {
  /** The run, or undefined. A record of a newer format than this version reads rejects with store_unavailable naming it. */
  get(runId: string): Promise<StoredRun | undefined>;
  /** Every stored run (of `agent`), ordered by run id (code points). */
  list(filter?: { agent?: string }): Promise<StoredRun[]>;
  /**
   * Writes a run, compare-and-set as ResourceStore.put: `expectedRevision` is
   * required, `null` means it must not exist yet, a number is the revision it
   * was read at. A failed check throws revision_conflict and writes nothing.
   */
  put(run: RunWrite, options: { expectedRevision: number | null }): Promise<StoredRun>;
  /** Deletes a run; false when there was none. With `expectedRevision`, only that revision (else revision_conflict, nothing deleted). */
  delete(runId: string, options?: { expectedRevision?: number }): Promise<boolean>;
  /** Releases connections or files, when the adapter holds any. */
  close?(): Promise<void>;
}

/** A state of a newer format than this version reads: store_unavailable, reason newer_format, naming the version. */
export function newerFormat(runId: string, version: unknown): AgtError {
  return new AgtError(
    'store_unavailable',
    `the run "${runId}" has format version ${String(version)}; this agt-mcp reads format ${RUN_FORMAT_VERSION}: upgrade agt-mcp to resume it`,
    {
      details: { reason: 'newer_format', runId, formatVersion: version, supported: RUN_FORMAT_VERSION },
    },
  );
}

/** Checks a record read from a store: a newer format than this version reads is store_unavailable (newer_format). */
export function readableRun(run: StoredRun): StoredRun {
  const version = (run.state as { version?: unknown } | null)?.version;
  if (!readsFormat(version)) throw newerFormat(run.runId, version);
  return run;
}

/** Checks what is about to be written and returns the expected revision; invalid_input names what is wrong. */
export function checkRunWrite(run: RunWrite, options: unknown): number | null {
  if (typeof run?.runId !== 'string' || run.runId === '' || typeof run.agent !== 'string' || run.agent === '') {
    throw new AgtError('invalid_input', 'a stored run needs a non-empty runId and agent');
  }
  if (run.state?.runId !== run.runId) throw new AgtError('invalid_input', 'the state is not the suspended state of this run id');
  return expectedRevisionOf(options, 'RunStore.put');
}

const copy = <T>(value: T): T => structuredClone(value);

/** A RunStore in memory (one process; tests and single-host use). */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();

  /** {@inheritDoc RunStore.get} */
  async get(runId: string): Promise<StoredRun | undefined> {
    const run = this.#runs.get(runId);
    return run === undefined ? undefined : readableRun(copy(run));
  }

  /** {@inheritDoc RunStore.list} */
  async list(filter: { agent?: string } = {}): Promise<StoredRun[]> {
    return [...this.#runs.values()]
      .filter((r) => filter.agent === undefined || r.agent === filter.agent)
      .sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
      .map(copy);
  }

  /** {@inheritDoc RunStore.put} */
  async put(run: RunWrite, options: { expectedRevision: number | null }): Promise<StoredRun> {
    const expected = checkRunWrite(run, options);
    const current = this.#runs.get(run.runId);
    checkExpectedRevision({ runId: run.runId }, expected, current?.revision ?? null);
    const now = new Date().toISOString();
    const stored: StoredRun = {
      runId: run.runId,
      agent: run.agent,
      revision: (current?.revision ?? 0) + 1,
      state: copy(run.state),
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    this.#runs.set(run.runId, stored);
    return copy(stored);
  }

  /** {@inheritDoc RunStore.delete} */
  async delete(runId: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    checkExpectedRevision({ runId }, options.expectedRevision, this.#runs.get(runId)?.revision ?? null);
    return this.#runs.delete(runId);
  }

  /** Nothing to release; here so that `await using` works for every store. */
  async close(): Promise<void> {}

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** The JSON state of a run: format 1, or 2 when calls wait for an approval (so an older host refuses it rather than drop them). */
export function suspendedStateOf(
  run: { id: string; agent: string },
  snapshot: Pick<SuspendedRun, 'fingerprint' | 'settingsHash' | 'mountsHash'>,
  seen: Iterable<string>,
  pending: StoredApproval[],
  loadedTools: string[] = [],
): SuspendedRun {
  return {
    version: pending.length > 0 ? RUN_FORMAT_VERSION : 1,
    runId: run.id,
    agent: run.agent,
    fingerprint: snapshot.fingerprint,
    settingsHash: snapshot.settingsHash,
    mountsHash: snapshot.mountsHash,
    seenBatchIds: [...seen],
    ...(pending.length > 0 ? { pending } : {}),
    ...(loadedTools.length > 0 ? { loadedTools } : {}),
  };
}

/** The state to resume: given, or read by run id from `store` (with its revision); checks the format. */
export async function suspendedState(
  target: SuspendedRun | string,
  store: RunStore | undefined,
): Promise<{ state: SuspendedRun; revision: number | null }> {
  let state: SuspendedRun = target as SuspendedRun;
  let revision: number | null = null;
  if (typeof target === 'string') {
    if (store === undefined) throw new AgtError('invalid_input', 'resume by run id needs { store }: the RunStore the run was suspended to');
    const stored = await store.get(target);
    if (stored === undefined) throw new AgtError('not_found', `no suspended run "${target}" in the store`, { details: { runId: target } });
    ({ state, revision } = stored);
    // A record must hold its own run: a row copied from another run (or edited) never resumes that run here.
    if (stored.runId !== target || !isShaped(state) || state.runId !== target || state.agent !== stored.agent) {
      throw new AgtError(
        'store_unavailable',
        `the stored run "${target}" does not hold this run's suspended state (a tampered or corrupt record); delete it and start a new run`,
        {
          details: { reason: 'tampered_record', runId: target },
        },
      );
    }
  }
  const version = (state as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > RUN_FORMAT_VERSION)
    throw newerFormat(String((state as { runId?: unknown }).runId ?? ''), version);
  if (!readsFormat(version) || !isShaped(state)) {
    throw new AgtError('invalid_input', 'resume needs the object that suspend() returned');
  }
  return { state, revision };
}

// The fields resume reads, each of its type (seenBatchIds: strings only).
function isShaped(state: unknown): state is SuspendedRun {
  const s = state as Partial<Record<keyof SuspendedRun, unknown>> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.runId === 'string' &&
    typeof s.agent === 'string' &&
    typeof s.fingerprint === 'string' &&
    typeof s.settingsHash === 'string' &&
    typeof s.mountsHash === 'string' &&
    Array.isArray(s.seenBatchIds) &&
    s.seenBatchIds.every((id) => typeof id === 'string') &&
    (s.pending === undefined || (s.version === 2 && Array.isArray(s.pending) && s.pending.every(isStoredApproval)))
  );
}

/** F6, F7: the resumed run's snapshot against the suspended state — fingerprint_mismatch naming the part that changed, or undefined. */
export function fingerprintMismatch(
  state: SuspendedRun,
  now: { fingerprint: string; settingsHash: string; mountsHash: string },
): AgtError | undefined {
  const part = now.settingsHash !== state.settingsHash ? 'settings' : now.mountsHash !== state.mountsHash ? 'mounts' : undefined;
  if (part === undefined) return undefined;
  const what = part === 'settings' ? 'model, provider, base prompt, permissions or delegation' : 'mounted tools';
  return new AgtError('fingerprint_mismatch', `the run cannot resume: its ${what} changed since it was suspended; start a new run`, {
    details: { part, expected: state.fingerprint, actual: now.fingerprint },
  });
}
