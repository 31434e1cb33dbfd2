/**
 * PostgresRunStore and PostgresAuditStore (`agt-mcp/postgres`): suspended runs
 * and audit events on PostgreSQL, so a run suspended on one host resumes on
 * another. Every write is one statement (compare-and-set in the WHERE clause);
 * tables are created on first use, or ahead of time by `migrate()`.
 */
import type { AuditEvent } from '../runtime/audit/audit-events.js';
import { type AuditQuery, type AuditStore, checkAuditQuery, eventRunId } from '../runtime/audit/audit-store.js';
import { revisionConflict } from '../resources/conflict.js';
import {
  checkRunId,
  checkRunListFilter,
  checkRunWrite,
  readableRun,
  type RunAnnouncement,
  type RunListFilter,
  type RunStore,
  type RunWatch,
  type RunWrite,
  type StoredRun,
  WAITING_FORMAT,
} from '../runtime/store/run-store.js';
import { DEFAULT_PG_WATCH_HEARTBEAT_MS, PG_WATCH_HEARTBEAT_MS_RULE } from '../bounds.js';
import { checkMs } from '../check-ms.js';
import { checkRunWatch, type RunWatchOptions } from '../runtime/store/run-watch.js';
import { notifyColumn, readAnnouncement } from './pg-announce.js';
import { PgConnection, type PgOptions, tableName } from './pg-db.js';
import { watchChannel } from './pg-watch.js';

/** The schema of the runs table (docs/postgres.md). */
function runsSql(t: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (
      run_id text PRIMARY KEY, agent text NOT NULL, revision integer NOT NULL, format integer NOT NULL,
      state json NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${t}_by_agent ON ${t} (agent, run_id COLLATE "C");
    CREATE INDEX IF NOT EXISTS ${t}_waiting ON ${t} (run_id COLLATE "C") WHERE format >= 2;
    CREATE INDEX IF NOT EXISTS ${t}_waiting_by_agent ON ${t} (agent, run_id COLLATE "C") WHERE format >= 2;`,
  ];
}

/** The schema of the audit table (docs/postgres.md). */
function auditSql(t: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (seq bigserial PRIMARY KEY, run_id text NOT NULL, type text NOT NULL, at text NOT NULL, event json NOT NULL);
    CREATE INDEX IF NOT EXISTS ${t}_by_run ON ${t} (run_id, seq);`,
  ];
}

interface RunRow {
  run_id: string;
  agent: string;
  revision: number;
  state: unknown;
  created_at: Date | string;
  updated_at: Date | string;
}

const iso = (v: Date | string) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString());
const toRun = (row: RunRow): StoredRun => ({
  runId: row.run_id,
  agent: row.agent,
  revision: row.revision,
  state: row.state as StoredRun['state'],
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

/** Options of {@link PostgresRunStore}. */
export type PostgresRunStoreOptions = PgOptions & {
  /** Default `agt_runs`. */
  table?: string;
  /** How often a watch asks its connection for an answer (default DEFAULT_PG_WATCH_HEARTBEAT_MS, 30 s; 100 ms to 10 min). */
  watchHeartbeatMs?: number;
};

/** Suspended runs on PostgreSQL. */
export class PostgresRunStore implements RunStore {
  readonly #db: PgConnection;
  readonly #table: string;

  readonly #channel: string;
  readonly #heartbeatMs: number;
  readonly #watches = new Set<RunWatch>();

  constructor(options: PostgresRunStoreOptions) {
    this.#table = tableName(options.table ?? 'agt_runs', 'PostgresRunStore');
    checkMs(options.watchHeartbeatMs, 'watchHeartbeatMs', PG_WATCH_HEARTBEAT_MS_RULE);
    this.#heartbeatMs = options.watchHeartbeatMs ?? DEFAULT_PG_WATCH_HEARTBEAT_MS;
    this.#channel = `${this.#table}_calls`;
    this.#db = new PgConnection(options, 'PostgresRunStore', { key: this.#table, statements: runsSql(this.#table) });
  }

  /** Creates the table if missing (idempotent; the first query does it too). */
  migrate(): Promise<void> {
    return this.#db.migrate();
  }

  async #rows(text: string, values: unknown[]): Promise<RunRow[]> {
    return (await this.#db.query(text, values)) as RunRow[];
  }

  /** {@inheritDoc RunStore.get} */
  async get(runId: string): Promise<StoredRun | undefined> {
    checkRunId(runId, 'RunStore.get');
    const [row] = await this.#rows(`SELECT * FROM ${this.#table} WHERE run_id = $1`, [runId]);
    return row === undefined ? undefined : readableRun(toRun(row));
  }

  /** {@inheritDoc RunStore.list} */
  async list(filter?: RunListFilter): Promise<StoredRun[]> {
    const { agent, waiting, limit, cursor } = checkRunListFilter(filter);
    const values: unknown[] = [];
    const param = (value: unknown) => `$${values.push(value)}`;
    // `format >= 2` as the partial indexes state it, so the waiting runs are read from them, not from every run.
    const where = [
      ...(waiting === true ? [`format >= ${WAITING_FORMAT}`] : []),
      ...(agent === undefined ? [] : [`agent = ${param(agent)}`]),
      ...(cursor === undefined ? [] : [`run_id COLLATE "C" > ${param(cursor)}`]),
    ];
    const rows = await this.#rows(
      `SELECT * FROM ${this.#table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY run_id COLLATE "C" LIMIT ${param(limit ?? null)}`,
      values,
    );
    return rows.map(toRun);
  }

  /** {@inheritDoc RunStore.put} */
  async put(run: RunWrite, options: { expectedRevision: number | null }): Promise<StoredRun> {
    const expected = checkRunWrite(run, options);
    const t = this.#table;
    const values: unknown[] = [run.runId, run.agent, run.state.version, JSON.stringify(run.state), new Date().toISOString()];
    // The announcement goes with the write (NOTIFY in RETURNING): sent on commit, only if the compare-and-set landed;
    // bounded whatever the run id and agent, so the write never fails for its size (pg-announce.ts).
    const notify = notifyColumn(run, expected === null ? 1 : expected + 1, this.#channel, values);
    const rows =
      expected === null
        ? await this.#rows(
            `INSERT INTO ${t} (run_id, agent, revision, format, state, created_at, updated_at) VALUES ($1, $2, 1, $3, $4::json, $5, $5) ON CONFLICT (run_id) DO NOTHING RETURNING *${notify}`,
            values,
          )
        : await this.#rows(
            `UPDATE ${t} SET agent = $2, revision = revision + 1, format = $3, state = $4::json, updated_at = $5 WHERE run_id = $1 AND revision = $${values.push(expected)} RETURNING *${notify}`,
            values,
          );
    const [row] = rows;
    if (row === undefined) throw revisionConflict({ runId: run.runId }, expected, await this.#revision(run.runId));
    return toRun(row);
  }

  async #revision(runId: string): Promise<number | null> {
    const [row] = await this.#rows(`SELECT revision FROM ${this.#table} WHERE run_id = $1`, [runId]);
    return row?.revision ?? null;
  }

  /** {@inheritDoc RunStore.delete} */
  async delete(runId: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    checkRunId(runId, 'RunStore.delete');
    if (options.expectedRevision === undefined)
      return (await this.#rows(`DELETE FROM ${this.#table} WHERE run_id = $1 RETURNING revision`, [runId])).length > 0;
    const rows = await this.#rows(`DELETE FROM ${this.#table} WHERE run_id = $1 AND revision = $2 RETURNING revision`, [
      runId,
      options.expectedRevision,
    ]);
    if (rows.length === 0) throw revisionConflict({ runId }, options.expectedRevision, await this.#revision(runId));
    return true;
  }

  /**
   * Announcements of every host's writes (LISTEN on `<table>_calls`, NOTIFY sent with each write that changes a
   * call), on a connection of its own held until `stop()` of the watch or `close()` of the store. A connection lost
   * later is reconnected, and `options.onGap` told once it listens again (pg-watch.ts; E8).
   */
  async watch(listener: (announcement: RunAnnouncement) => void, options?: RunWatchOptions): Promise<RunWatch> {
    const { onGap } = checkRunWatch(listener, options, 'PostgresRunStore.watch');
    const stop = await watchChannel(this.#db, {
      channel: this.#channel,
      heartbeatMs: this.#heartbeatMs,
      read: (payload, query) => readAnnouncement(payload, this.#table, query),
      listener,
      ...(onGap === undefined ? {} : { onGap }),
    });
    const end = async () => {
      this.#watches.delete(watch);
      await stop();
    };
    const watch: RunWatch = { stop: end, close: end };
    this.#watches.add(watch);
    return watch;
  }

  /** Ends its watches and the pool the store created. */
  async close(): Promise<void> {
    await Promise.all([...this.#watches].map((w) => w.close()));
    return this.#db.close();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Options of {@link PostgresAuditStore}. */
export type PostgresAuditStoreOptions = PgOptions & { /** Default `agt_audit`. */ table?: string };

/** Audit events on PostgreSQL, queryable by run id. */
export class PostgresAuditStore implements AuditStore {
  readonly #db: PgConnection;
  readonly #table: string;

  constructor(options: PostgresAuditStoreOptions) {
    this.#table = tableName(options.table ?? 'agt_audit', 'PostgresAuditStore');
    this.#db = new PgConnection(options, 'PostgresAuditStore', { key: this.#table, statements: auditSql(this.#table) });
  }

  /** Creates the table if missing (idempotent; the first query does it too). */
  migrate(): Promise<void> {
    return this.#db.migrate();
  }

  /** {@inheritDoc AuditStore.append} */
  async append(event: AuditEvent): Promise<void> {
    await this.#db.query(`INSERT INTO ${this.#table} (run_id, type, at, event) VALUES ($1, $2, $3, $4::json)`, [
      eventRunId(event),
      String(event.type),
      String(event.at),
      JSON.stringify(event),
    ]);
  }

  /** {@inheritDoc AuditStore.query} */
  async query(query: AuditQuery): Promise<AuditEvent[]> {
    const limit = checkAuditQuery(query) ?? null;
    const rows = (
      query.type === undefined
        ? await this.#db.query(`SELECT event FROM ${this.#table} WHERE run_id = $1 ORDER BY seq LIMIT $2`, [query.runId, limit])
        : await this.#db.query(`SELECT event FROM ${this.#table} WHERE run_id = $1 AND type = $2 ORDER BY seq LIMIT $3`, [
            query.runId,
            query.type,
            limit,
          ])
    ) as { event: AuditEvent }[];
    return rows.map((r) => r.event);
  }

  /** Ends the pool the store created. */
  close(): Promise<void> {
    return this.#db.close();
  }

  /** `await using` closes the store at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
