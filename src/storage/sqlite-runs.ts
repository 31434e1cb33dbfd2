/**
 * SqliteRunStore and SqliteAuditStore (`agt-mcp/sqlite`): suspended runs and
 * audit events in the registry's SQLite file, each in its own table. Writes are
 * IMMEDIATE transactions, so several processes share the file safely.
 */
import type { AuditEvent } from '../runtime/audit/audit-events.js';
import { type AuditQuery, type AuditStore, checkAuditQuery, eventRunId } from '../runtime/audit/audit-store.js';
import { checkExpectedRevision } from '../resources/conflict.js';
import {
  checkRunId,
  checkRunListFilter,
  checkRunWrite,
  readableRun,
  type RunListFilter,
  type RunStore,
  type RunWrite,
  type StoredRun,
  WAITING_FORMAT,
} from '../runtime/store/run-store.js';
import { guard, immediate, parseStored, SqliteHandle, type SqliteOptions } from './sqlite-db.js';

interface RunRow {
  run_id: string;
  agent: string;
  revision: number;
  state: string;
  created_at: string;
  updated_at: string;
}

const toRun = (row: RunRow): StoredRun => ({
  runId: row.run_id,
  agent: row.agent,
  revision: row.revision,
  state: parseStored(row.state, `the stored run "${row.run_id}"`) as StoredRun['state'],
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Suspended runs in a SQLite file (table agt_runs). */
export class SqliteRunStore implements RunStore {
  readonly #handle: SqliteHandle;

  constructor(options: SqliteOptions) {
    this.#handle = new SqliteHandle(options, 'SqliteRunStore');
  }

  /** Opens the file and creates the schema if missing, as the first query would. */
  async migrate(): Promise<void> {
    await this.#handle.open();
  }

  /** {@inheritDoc RunStore.get} */
  async get(runId: string): Promise<StoredRun | undefined> {
    checkRunId(runId, 'RunStore.get');
    const db = await this.#handle.open();
    const row = guard(() => db.prepare('SELECT * FROM agt_runs WHERE run_id = ?').get(runId)) as RunRow | undefined;
    return row === undefined ? undefined : readableRun(toRun(row));
  }

  /** {@inheritDoc RunStore.list} */
  async list(filter?: RunListFilter): Promise<StoredRun[]> {
    const { agent, waiting, limit, cursor } = checkRunListFilter(filter);
    const db = await this.#handle.open();
    // `format >= 2` as the partial indexes state it, so the waiting runs are read from them, not from every run.
    const where = [
      ...(waiting === true ? [`format >= ${WAITING_FORMAT}`] : []),
      ...(agent === undefined ? [] : ['agent = ?']),
      ...(cursor === undefined ? [] : ['run_id > ?']),
    ];
    const sql = `SELECT * FROM agt_runs${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY run_id LIMIT ?`;
    const values = [...(agent === undefined ? [] : [agent]), ...(cursor === undefined ? [] : [cursor]), limit ?? -1];
    const rows = guard(() => db.prepare(sql).all(...values)) as RunRow[];
    return rows.map(toRun);
  }

  /** {@inheritDoc RunStore.put} */
  async put(run: RunWrite, options: { expectedRevision: number | null }): Promise<StoredRun> {
    const expected = checkRunWrite(run, options);
    const db = await this.#handle.open();
    const state = JSON.stringify(run.state);
    const now = new Date().toISOString();
    const write = () =>
      immediate(db, (): RunRow => {
        const current = db.prepare('SELECT revision FROM agt_runs WHERE run_id = ?').get(run.runId) as { revision: number } | undefined;
        checkExpectedRevision({ runId: run.runId }, expected, current?.revision ?? null);
        if (current === undefined) {
          db.prepare(
            'INSERT INTO agt_runs (run_id, agent, revision, format, state, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?)',
          ).run(run.runId, run.agent, run.state.version, state, now, now);
        } else {
          db.prepare('UPDATE agt_runs SET agent = ?, revision = revision + 1, format = ?, state = ?, updated_at = ? WHERE run_id = ?').run(
            run.agent,
            run.state.version,
            state,
            now,
            run.runId,
          );
        }
        return db.prepare('SELECT * FROM agt_runs WHERE run_id = ?').get(run.runId) as RunRow;
      });
    return toRun(guard(write));
  }

  /** {@inheritDoc RunStore.delete} */
  async delete(runId: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    checkRunId(runId, 'RunStore.delete');
    const db = await this.#handle.open();
    const remove = () =>
      immediate(db, (): boolean => {
        const current = db.prepare('SELECT revision FROM agt_runs WHERE run_id = ?').get(runId) as { revision: number } | undefined;
        checkExpectedRevision({ runId }, options.expectedRevision, current?.revision ?? null);
        return db.prepare('DELETE FROM agt_runs WHERE run_id = ?').run(runId).changes > 0;
      });
    return guard(remove);
  }

  /** {@inheritDoc RunStore.close} */
  close(): Promise<void> {
    return this.#handle.close();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Audit events in a SQLite file (table agt_audit), queryable by run id. */
export class SqliteAuditStore implements AuditStore {
  readonly #handle: SqliteHandle;

  constructor(options: SqliteOptions) {
    this.#handle = new SqliteHandle(options, 'SqliteAuditStore');
  }

  /** Opens the file and creates the schema if missing, as the first query would. */
  async migrate(): Promise<void> {
    await this.#handle.open();
  }

  /** {@inheritDoc AuditStore.append} */
  async append(event: AuditEvent): Promise<void> {
    const runId = eventRunId(event);
    const db = await this.#handle.open();
    guard(() =>
      db
        .prepare('INSERT INTO agt_audit (run_id, type, at, event) VALUES (?, ?, ?, ?)')
        .run(runId, String(event.type), String(event.at), JSON.stringify(event)),
    );
  }

  /** {@inheritDoc AuditStore.query} */
  async query(query: AuditQuery): Promise<AuditEvent[]> {
    const limit = checkAuditQuery(query) ?? -1;
    const db = await this.#handle.open();
    const rows = guard(() =>
      query.type === undefined
        ? db.prepare('SELECT event FROM agt_audit WHERE run_id = ? ORDER BY seq LIMIT ?').all(query.runId, limit)
        : db.prepare('SELECT event FROM agt_audit WHERE run_id = ? AND type = ? ORDER BY seq LIMIT ?').all(query.runId, query.type, limit),
    ) as { event: string }[];
    return rows.map((r, i) => parseStored(r.event, `audit event ${i + 1} of the query`) as AuditEvent);
  }

  /** Closes the file. */
  close(): Promise<void> {
    return this.#handle.close();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
