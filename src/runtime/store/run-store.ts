/**
 * The RunStore port: suspended runs by run id, with compare-and-set on a
 * revision like ResourceStore, so two hosts that resumed the same run cannot
 * both write it back. Adapters: MemoryRunStore (here), SqliteRunStore
 * (`agt-mcp/sqlite`), PostgresRunStore (`agt-mcp/postgres`); every adapter
 * passes `runStoreConformanceSuite` (`agt-mcp/testing`).
 */
import { MAX_ANNOUNCEMENT_BYTES, MAX_RUN_ID_BYTES, MAX_RUN_LIST_LIMIT } from '../../bounds.js';
import { AgtError } from '../../errors.js';
import { jsonCopy } from '../../json.js';
import { expectedRevisionOf } from '../../resources/conflict.js';
import type { SuspendedRun } from '../run-options.js';
import type { RunWatchOptions } from './run-watch.js';
import type { CallChange } from '../types.js';
import { isStoredCall, type StoredCall, storedCall, type WaitingCall } from '../pending/waiting-call.js';
import { type InFlightCall, isInFlightCall, type StoredInFlightCall, storedInFlight } from '../pending/in-flight.js';
import { type DecidedCall, isDecidedCall } from '../pending/decided.js';
import type { StoredResults } from '../results/kept-results.js';

/**
 * The newest format of SuspendedRun this version reads and writes: 5 with results cut at the budget (B8), 4 with calls that wait on a task (E6), 3 with
 * decided calls in flight, 2 with pending calls only, 1 without either (each is written only when needed, so an
 * older host refuses what it would drop or misread).
 */
export const RUN_FORMAT_VERSION = 5;

const readsFormat = (version: unknown): boolean => version === 1 || version === 2 || version === 3 || version === 4 || version === 5;

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

/**
 * Which stored runs `RunStore.list` returns, ordered by run id: those of `agent`; with `waiting`, only runs with
 * calls that wait for a decision or decided calls in flight (format 2 or 3: what `run.decide` and `run.recover()`
 * end), answered by an index; at most `limit` (1 … MAX_RUN_LIST_LIMIT), after the run id `cursor` (the last run id
 * of the page before).
 */
export interface RunListFilter {
  agent?: string;
  waiting?: boolean;
  limit?: number;
  cursor?: string;
}

/** Checks a list filter: invalid_input names the field that is wrong. */
export function checkRunListFilter(filter: unknown): RunListFilter {
  if (filter === undefined) return {};
  const f = filter as Record<string, unknown>;
  const bad = (field: string, what: string) =>
    new AgtError('invalid_input', `RunStore.list: "${field}" must be ${what}`, { details: { field } });
  if (typeof f !== 'object' || f === null || Array.isArray(f)) throw bad('filter', 'an object { agent?, waiting?, limit?, cursor? }');
  if (f.agent !== undefined && !isKeptText(f.agent)) throw bad('agent', `a string ${KEPT_AS_GIVEN}`);
  if (f.waiting !== undefined && typeof f.waiting !== 'boolean') throw bad('waiting', 'true or false');
  if (f.limit !== undefined && (!Number.isInteger(f.limit) || (f.limit as number) < 1 || (f.limit as number) > MAX_RUN_LIST_LIMIT))
    throw bad('limit', `an integer from 1 to ${MAX_RUN_LIST_LIMIT}`);
  if (f.cursor !== undefined && !isKeptText(f.cursor)) throw bad('cursor', `a run id (the last of the page before) ${KEPT_AS_GIVEN}`);
  return f as RunListFilter;
}

// SQL stores keep text as UTF-8 without NUL (E8): a lone surrogate comes back as U+FFFD — two run ids one row, a get or
// delete of one reaching the other — and NUL fails the statement. Refused alike by every store, before any I/O.
const UNKEPT = /[\0\p{Cs}]/u;
const KEPT_AS_GIVEN = 'without NUL or lone surrogates';
const isKeptText = (value: unknown): value is string => typeof value === 'string' && !UNKEPT.test(value);

/** Checks the run id of a get or delete: invalid_input when no store could hold it (not a string, NUL, lone surrogates). */
export function checkRunId(runId: unknown, who: string): string {
  if (!isKeptText(runId))
    throw new AgtError('invalid_input', `${who}: the run id must be a string ${KEPT_AS_GIVEN}`, { details: { field: 'runId' } });
  return runId;
}

/** The lowest run format whose runs `list({ waiting: true })` returns: 2 (calls pending), 3 (decided calls in flight). */
export const WAITING_FORMAT = 2;

/** What is written. */
export interface RunWrite {
  runId: string;
  agent: string;
  state: SuspendedRun;
  /** What this write does to the run's calls, for a store that announces (`watch`): sent with the write, only if it lands. */
  announce?: CallChange[];
}

/** A write announced to watchers: the run, the revision the write made, and what it did to which calls. */
export interface RunAnnouncement {
  runId: string;
  agent: string;
  revision: number;
  changes: CallChange[];
  /** How many changes did not fit the announcement (PostgreSQL carries at most ~7 kB); read the run for them. */
  omitted?: number;
}

/** The announcement of a write that landed at `revision`, bounded in size; undefined when it changes no call. */
export function announcementOf(run: RunWrite, revision: number): RunAnnouncement | undefined {
  const all = Array.isArray(run.announce) ? run.announce : [];
  if (all.length === 0) return undefined;
  const base = { runId: run.runId, agent: run.agent, revision };
  const changes: CallChange[] = [];
  let bytes = Buffer.byteLength(JSON.stringify({ ...base, changes: [], omitted: all.length }));
  for (const c of all) {
    const change = { change: c.change, batchId: c.batchId, callId: c.callId };
    const size = Buffer.byteLength(JSON.stringify(change)) + 1;
    if (bytes + size > MAX_ANNOUNCEMENT_BYTES) break;
    bytes += size;
    changes.push(change);
  }
  return { ...base, changes, ...(changes.length < all.length ? { omitted: all.length - changes.length } : {}) };
}

/** A subscription to a store's announcements; `stop()` (or `close()`, the same) ends it. */
export interface RunWatch {
  stop(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where suspended runs live. Each method may be called from any number of
 * processes at once; writes are atomic.
 */
export interface RunStore {
  /** The run, or undefined. A record of a newer format than this version reads rejects with store_unavailable naming it. */
  get(runId: string): Promise<StoredRun | undefined>;
  /** The stored runs the filter names (all by default), ordered by run id (code points); see {@link RunListFilter}. */
  list(filter?: RunListFilter): Promise<StoredRun[]>;
  /**
   * Writes a run, compare-and-set as ResourceStore.put: `expectedRevision` is
   * required, `null` means it must not exist yet, a number is the revision it
   * was read at. A failed check throws revision_conflict and writes nothing.
   */
  put(run: RunWrite, options: { expectedRevision: number | null }): Promise<StoredRun>;
  /** Deletes a run; false when there was none. With `expectedRevision`, only that revision (else revision_conflict, nothing deleted). */
  delete(runId: string, options?: { expectedRevision?: number }): Promise<boolean>;
  /**
   * Calls `listener` for each write with call changes, in any process sharing the store (PostgreSQL: LISTEN/NOTIFY),
   * or in this process (MemoryRunStore). Absent when the store does not announce (SQLite): poll `list({ waiting })`.
   * Announcements are hints sent after the write commits; what the store holds is the truth.
   *
   * Lifecycle (E8): it resolves once the watch listens (a store it cannot reach rejects, store_unavailable), and
   * lasts until `stop()`/`close()` of the watch or `close()` of the store. A connection lost meanwhile is not the
   * host's to mend: the store reconnects with a bounded backoff until it listens again or is stopped, then calls
   * `options.onGap` (announcements were missed: read `list({ waiting: true })` again); stop() ends a reconnect at
   * once and leaves no timer or connection behind. Listener and options are checked (invalid_input).
   */
  watch?(listener: (announcement: RunAnnouncement) => void, options?: RunWatchOptions): Promise<RunWatch>;
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
  for (const field of ['runId', 'agent'] as const) {
    const value: unknown = run?.[field];
    if (!isKeptText(value) || value === '' || Buffer.byteLength(value) > MAX_RUN_ID_BYTES)
      throw new AgtError(
        'invalid_input',
        `a stored run needs a non-empty ${field} of at most ${MAX_RUN_ID_BYTES} bytes (UTF-8), ${KEPT_AS_GIVEN}`,
        { details: { field } },
      );
  }
  if (run.state?.runId !== run.runId) throw new AgtError('invalid_input', 'the state is not the suspended state of this run id');
  return expectedRevisionOf(options, 'RunStore.put');
}

/** The JSON state of a run: format 1, or 2 when calls wait for an approval (so an older host refuses it rather than drop them). */
export function suspendedStateOf(
  run: { id: string; agent: string },
  snapshot: Pick<SuspendedRun, 'fingerprint' | 'settingsHash' | 'mountsHash'>,
  seen: Iterable<string>,
  pending: WaitingCall[],
  loadedTools: string[] = [],
  inFlight: InFlightCall[] = [],
  decided: DecidedCall[] = [],
  results?: StoredResults,
): SuspendedRun {
  const state: SuspendedRun = {
    version: 1,
    runId: run.id,
    agent: run.agent,
    fingerprint: snapshot.fingerprint,
    settingsHash: snapshot.settingsHash,
    mountsHash: snapshot.mountsHash,
    seenBatchIds: [...seen],
    ...(loadedTools.length > 0 ? { loadedTools } : {}),
    ...(decided.length > 0 ? { decided } : {}),
    ...(results === undefined ? {} : { results }),
  };
  return withCalls(state, pending, inFlight);
}

/**
 * The state with its pending and in-flight calls replaced, in their stored form (storedCall), and the format each
 * needs: 4 with a call that waits on a task, 3 with calls in flight, 2 with pending ones.
 */
export function withCalls(state: SuspendedRun, pending: readonly StoredCall[], inFlight: readonly StoredInFlightCall[]): SuspendedRun {
  const { pending: _pending, inFlight: _inFlight, ...rest } = state;
  const onTask = (a: StoredCall) => (a.waitingFor === 'input' || a.waitingFor === 'task') && a.task !== undefined;
  const tasks = [...pending, ...inFlight.map((c) => c.approval)].some(onTask);
  return {
    ...rest,
    version: rest.results !== undefined ? 5 : tasks ? 4 : inFlight.length > 0 ? 3 : pending.length > 0 ? 2 : 1,
    ...(pending.length > 0 ? { pending: pending.map(storedCall) } : {}),
    ...(inFlight.length > 0 ? { inFlight: inFlight.map(storedInFlight) } : {}),
  };
}

/** The state to resume: given, or read by run id from `store` (with its revision); checks the format. */
export async function suspendedState(
  target: SuspendedRun | string,
  store: RunStore | undefined,
): Promise<{ state: SuspendedRun; revision: number | null }> {
  // A copy of a state given: the run keeps no object of the host's, which could change past the checks below.
  let state = (typeof target === 'string' ? undefined : jsonCopy(target)) as SuspendedRun;
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
    (s.pending === undefined || (s.version !== 1 && Array.isArray(s.pending) && s.pending.every(isStoredCall))) &&
    // Calls in flight are format 3, or 4 beside a call that waits on a task (withCalls): both resume, or no host recovers them (E8).
    (s.inFlight === undefined ||
      ((s.version === 3 || s.version === 4 || s.version === 5) && Array.isArray(s.inFlight) && s.inFlight.every(isInFlightCall))) &&
    (s.results === undefined || (s.version === 5 && typeof s.results === 'object' && s.results !== null)) && // entries: KeptResults.load
    (s.decided === undefined || (Array.isArray(s.decided) && s.decided.every(isDecidedCall)))
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
