/**
 * The audit events a run records around its batches and refreshes
 * (`batch_rejected`, `batch_started`, `batch_finished`, `refresh`), built in
 * one place, and the model-facing message of a refresh. Events hold no
 * argument or env values; a failing sink never breaks the run.
 */
import type { ListChangedKind } from '../../mcp/connection.js';
import { recordSafely } from '../pipeline/call-identity.js';
import type { RefreshOutcome } from '../assembly/refresh.js';
import type { BatchResult, ToolResult } from '../types.js';
import type { AuditSink } from './audit-events.js';

/** Why a batch boundary refreshes: the run's own framework change (F1), list changes announced (by mount), pooled mounts whose server died. */
export interface RefreshCause {
  framework: boolean;
  stale: ReadonlyMap<string, ReadonlySet<ListChangedKind>>;
  reopen: readonly string[];
}

/** The batch and refresh events of one run. */
export class RunAudit {
  readonly #sink: AuditSink | undefined;
  readonly #runId: string;
  readonly #agent: string;

  constructor(sink: AuditSink | undefined, runId: string, agent: string) {
    this.#sink = sink;
    this.#runId = runId;
    this.#agent = agent;
  }

  #base() {
    return { at: new Date().toISOString(), runId: this.#runId, agent: this.#agent };
  }

  /** A batch rejected in stage 1 (B6); `batchId` as sent. */
  rejected(batchId: unknown, reason: unknown): Promise<void> {
    return recordSafely(this.#sink, { type: 'batch_rejected', ...this.#base(), batchId: batchId ?? null, reason });
  }

  /** A batch passed stage 1 and its calls start. */
  async started(batchId: string, calls: number): Promise<void> {
    if (this.#sink) await recordSafely(this.#sink, { type: 'batch_started', ...this.#base(), batchId, calls });
  }

  /** A batch's calls all ended (`startedAt`: performance.now() when it started). */
  async finished(batchId: string, results: readonly ToolResult[], startedAt: number): Promise<void> {
    if (!this.#sink) return;
    const failed = results.filter((r) => r.status !== 'ok').length;
    await recordSafely(this.#sink, {
      type: 'batch_finished',
      ...this.#base(),
      batchId,
      calls: results.length,
      failed,
      durationMs: performance.now() - startedAt,
    });
  }

  /** Tools loaded (and unloaded) by tool search at a batch boundary. */
  async toolsLoaded(batchId: string, loaded: string[], unloaded: string[]): Promise<void> {
    if (this.#sink) await recordSafely(this.#sink, { type: 'tools_loaded', ...this.#base(), batchId, loaded, unloaded });
  }

  /** A refresh at a batch boundary (F1–F4); returns what the model is told. */
  async refresh(cause: RefreshCause, outcome: RefreshOutcome, startedAt: number): Promise<NonNullable<BatchResult['refresh']>> {
    const { framework, stale, reopen } = cause;
    const message = refreshMessage(cause, outcome);
    const trigger = framework ? 'framework_change' : stale.size > 0 ? 'list_changed' : 'reconnect';
    const status = outcome.ok ? 'applied' : 'failed';
    await recordSafely(this.#sink, {
      type: 'refresh',
      ...this.#base(),
      trigger,
      status,
      message,
      durationMs: performance.now() - startedAt,
      ...(stale.size + reopen.length > 0 ? { mounts: [...new Set([...stale.keys(), ...reopen])] } : {}),
      ...(outcome.ok ? { fingerprint: outcome.snapshot.fingerprint } : { code: outcome.error.code }),
    });
    return { status, message, trigger };
  }
}

// What the model and the audit are told of a refresh (F4: a failure says the previous tools stay).
function refreshMessage({ framework, stale, reopen }: RefreshCause, outcome: RefreshOutcome): string {
  const announced = [...stale].map(([mount, kinds]) => `${mount} (${[...kinds].join(', ')})`).join('; ');
  const gone = reopen.join(', ');
  if (outcome.ok) {
    const loaded = `${outcome.snapshot.aliases.length} tools from ${outcome.snapshot.mounts.length} mounts`;
    if (framework) return `tools reloaded: ${loaded}`;
    return stale.size > 0 ? `tools reloaded after a list change announced by ${announced}: ${loaded}` : `reconnected ${gone}: ${loaded}`;
  }
  if (framework) return `configuration saved, but loading failed: ${outcome.error.message}`;
  return stale.size > 0
    ? `${announced} announced a list change, but reloading failed: ${outcome.error.message}; the previous tools stay`
    : `the server of ${gone} went away and could not be started again: ${outcome.error.message}; its tools stay listed and fail until it can`;
}

/** Runs `fn` over `items` with at most `limit` at once; results in item order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  if (items.length === 1) return [await fn(items[0] as T)];
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
