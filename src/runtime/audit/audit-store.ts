/**
 * Persisted audit: an AuditStore port (append, query by run id) with a memory
 * adapter here and SQLite and PostgreSQL adapters in their subpaths, and
 * StoreAuditSink, the AuditSink that writes into one. The events are the
 * pipeline's own: they hold no argument or env values.
 */
import { jsonProblem } from '../../json.js';
import { AgtError } from '../../errors.js';
import type { AuditEvent, AuditSink } from './audit-events.js';
import { MAX_AUDIT_EVENT_BYTES, MAX_JSON_DEPTH } from '../../bounds.js';

/** What a query asks for. */
export interface AuditQuery {
  runId: string;
  /** Only events of this type (tool_call, refresh, batch_rejected, …). */
  type?: string;
  /** At most this many, the oldest first. */
  limit?: number;
}

/** Where audit events are kept. */
export interface AuditStore {
  /** Appends one event (an AuditEvent, with its `runId`). */
  append(event: AuditEvent): Promise<void>;
  /** The run's events in the order they were appended. */
  query(query: AuditQuery): Promise<AuditEvent[]>;
  close?(): Promise<void>;
}

/** Checks a query; invalid_input names what is wrong. */
export function checkAuditQuery(query: AuditQuery): number | undefined {
  if (typeof query?.runId !== 'string' || query.runId === '') throw new AgtError('invalid_input', 'an audit query needs a runId');
  if (query.limit !== undefined && (!Number.isInteger(query.limit) || query.limit < 1))
    throw new AgtError('invalid_input', 'limit must be a positive integer');
  return query.limit;
}

/** The largest audit event stored, as JSON. */
export { MAX_AUDIT_EVENT_BYTES } from '../../bounds.js';

/** The run id of an event that can be stored (a JSON value within limits), or invalid_input naming what is wrong. */
export function eventRunId(event: AuditEvent): string {
  if (typeof event?.runId !== 'string' || event.runId === '')
    throw new AgtError('invalid_input', 'an audit event needs a runId to be stored');
  const problem = jsonProblem(event, { depth: MAX_JSON_DEPTH, bytes: MAX_AUDIT_EVENT_BYTES });
  if (problem !== undefined) {
    throw new AgtError(
      'invalid_input',
      `an audit event must be JSON to be stored (${problem === 'cyclic' ? 'it refers to itself' : problem === 'too_deep' ? `it nests deeper than ${MAX_JSON_DEPTH} levels` : problem === 'too_large' ? `it is over ${MAX_AUDIT_EVENT_BYTES} bytes` : 'it holds a function, symbol or BigInt'}); nothing was stored`,
      {
        details: { reason: problem },
      },
    );
  }
  return event.runId;
}

/** Audit events in memory. */
export class MemoryAuditStore implements AuditStore {
  readonly #events: AuditEvent[] = [];

  /** {@inheritDoc AuditStore.append} */
  async append(event: AuditEvent): Promise<void> {
    eventRunId(event);
    this.#events.push(structuredClone(event));
  }

  /** {@inheritDoc AuditStore.query} */
  async query(query: AuditQuery): Promise<AuditEvent[]> {
    const limit = checkAuditQuery(query);
    const found = this.#events.filter((e) => e.runId === query.runId && (query.type === undefined || e.type === query.type));
    return structuredClone(limit === undefined ? found : found.slice(0, limit));
  }

  /** Nothing to release; here so that `await using` works for every store. */
  async close(): Promise<void> {}

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** An AuditSink that keeps every event in an AuditStore (awaited, in order). */
export class StoreAuditSink implements AuditSink {
  readonly #store: AuditStore;

  constructor(store: AuditStore) {
    this.#store = store;
  }

  /** Appends the event. */
  record(event: AuditEvent): Promise<void> {
    return this.#store.append(event);
  }
}
