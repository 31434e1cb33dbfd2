/**
 * Era verdicts remembered beside the registry (E2), never inside a resource
 * (R1: a record holds its config only). A verdict names the revision it was
 * learned on: another revision, or a legacy verdict older than its bound,
 * is not used, so the next connection negotiates again and records anew.
 *
 * A stale verdict heals itself: a connection that fails to open from a
 * remembered verdict forgets it and negotiates at once; one whose first
 * request fails (a modern verdict opens with no round trip) forgets it and
 * says so, so the next connection negotiates. A stale legacy verdict would
 * succeed silently against an upgraded server, hence its age bound.
 */
import type { EraVerdict } from './era.js';
import { DEFAULT_LEGACY_VERDICT_MS } from '../../bounds.js';
import { checkMs } from '../../check-ms.js';

/** How long a legacy verdict is trusted by default: one day. */
export { DEFAULT_LEGACY_VERDICT_MS };

/** A verdict as stored: the revision of the config it was learned on. */
export interface StoredVerdict {
  revision: number;
  verdict: EraVerdict;
}

/**
 * Where era verdicts are kept, by stored server reference. `get` is called
 * before each connection to a stored server, `put` after a connection that
 * negotiated (nothing remembered fitted); a store that fails is ignored (the
 * connection negotiates), so a verdict is a convenience, never a requirement.
 */
export interface EraVerdictStore {
  get(reference: string): Promise<StoredVerdict | undefined> | StoredVerdict | undefined;
  put(reference: string, stored: StoredVerdict): Promise<void> | void;
  /** Forgets the verdict of `reference` (the server no longer speaks as remembered). Without it, a stale verdict stays until the revision changes. */
  delete?(reference: string): Promise<void> | void;
}

/** Verdicts in this process's memory (a pool or a long-lived host). */
export class MemoryVerdictStore implements EraVerdictStore {
  readonly #verdicts = new Map<string, StoredVerdict>();
  /** The stored verdict of `reference`. */
  get(reference: string): StoredVerdict | undefined {
    return this.#verdicts.get(reference);
  }
  /** Remembers `stored` for `reference` (a copy). */
  put(reference: string, stored: StoredVerdict): void {
    this.#verdicts.set(reference, structuredClone(stored));
  }
  /** Forgets the verdict of `reference`. */
  delete(reference: string): void {
    this.#verdicts.delete(reference);
  }
}

/** The verdict to start a connection from: one of this revision, and for legacy one younger than `legacyMaxAgeMs`. */
export function usableVerdict(
  stored: StoredVerdict | undefined,
  revision: number,
  now = Date.now(),
  legacyMaxAgeMs = DEFAULT_LEGACY_VERDICT_MS,
): EraVerdict | undefined {
  if (stored === undefined || stored.revision !== revision) return undefined;
  const { verdict } = stored;
  if (verdict.era === 'modern') return verdict;
  const learned = Date.parse(verdict.learnedAt);
  return Number.isFinite(learned) && now - learned <= legacyMaxAgeMs && now >= learned ? verdict : undefined;
}

/** Checks a legacy verdict age bound: a positive whole number of milliseconds. */
export function checkVerdictAge(value: number | undefined): void {
  checkMs(value, 'legacyVerdictMs', { whole: true });
}

/** Where a connection finds and leaves its verdict: the store, the server's reference and revision. */
export interface VerdictMemory {
  verdicts?: EraVerdictStore;
  legacyVerdictMs?: number;
  reference?: string;
  revision?: number;
  /** How long the store may take to answer (the handshake timeout): a store slower than that is skipped. */
  waitMs: number;
  /** Where a skipped store is said (the connection's warnings). */
  warnings: string[];
}

const NO_ANSWER = Symbol('no answer');

// The store's answer, or NO_ANSWER (with a warning) when it did not settle within memory.waitMs; its failure is thrown.
async function withinWait<T>(memory: VerdictMemory, what: string, answer: () => Promise<T> | T): Promise<T | typeof NO_ANSWER> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof NO_ANSWER>((resolve) => {
    timer = setTimeout(() => resolve(NO_ANSWER), memory.waitMs);
  });
  try {
    const settled = await Promise.race([Promise.resolve().then(answer), late]);
    if (settled === NO_ANSWER)
      memory.warnings.push(
        `the era verdict store did not answer ${what} within ${memory.waitMs} ms; it was skipped (the era is negotiated)`,
      );
    return settled;
  } finally {
    clearTimeout(timer);
  }
}

/** The remembered verdict of a stored server, when one fits (a store that fails, or does not answer in time, is no verdict). */
export async function rememberedVerdict(memory: VerdictMemory): Promise<EraVerdict | undefined> {
  const { verdicts, reference, revision } = memory;
  if (verdicts === undefined || reference === undefined || reference === '' || revision === undefined) return undefined;
  try {
    const stored = await withinWait(memory, 'get', () => verdicts.get(reference));
    return stored === NO_ANSWER ? undefined : usableVerdict(stored, revision, Date.now(), memory.legacyVerdictMs);
  } catch {
    return undefined;
  }
}

/** Records what a connection learned, when it negotiated (it used no remembered verdict). */
export async function rememberVerdict(memory: VerdictMemory, learned: EraVerdict, used: EraVerdict | undefined): Promise<void> {
  const { verdicts, reference, revision } = memory;
  if (used !== undefined || verdicts === undefined || reference === undefined || reference === '' || revision === undefined) return;
  try {
    await withinWait(memory, 'put', () => verdicts.put(reference, { revision, verdict: learned }));
  } catch {
    // a verdict is a convenience: the next connection negotiates again
  }
}

/** Forgets the stored verdict of a connection's server (a store that fails, is slow or cannot forget changes nothing). */
export async function forgetVerdict(memory: VerdictMemory): Promise<void> {
  const { verdicts, reference } = memory;
  if (verdicts?.delete === undefined || reference === undefined || reference === '') return;
  try {
    await withinWait(memory, 'delete', () => verdicts.delete!(reference));
  } catch {
    // the next connection may try the stale verdict again, and heal again
  }
}
