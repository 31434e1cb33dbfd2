/**
 * SqliteTaskStore (`agt-mcp/sqlite`): a kit server's tasks in a SQLite file
 * (table agt_tasks), so ended tasks and their results outlive the server's
 * process for their TTL (E6): a client that started a task collects it from
 * the server started again. A task still running when its process ended is
 * never finished by another process: the kit server that next reads it ends it
 * failed ("the server restarted…", authoring/tasks/orphans.ts). Expired tasks
 * are not read, and are deleted as the store is written.
 */
import type { TaskRecord, TaskStore } from '../authoring/tasks/store.js';
import { expired } from '../authoring/tasks/store.js';
import { isPlainObject } from '../json.js';
import { guard, parseStored, SqliteHandle, type SqliteOptions } from './sqlite-db.js';
import { MAX_LISTED_TASKS } from '../bounds.js';

/** A kit server's tasks in a SQLite file, safe for several processes. */
export class SqliteTaskStore implements TaskStore {
  readonly #handle: SqliteHandle;

  constructor(options: SqliteOptions) {
    this.#handle = new SqliteHandle(options, 'SqliteTaskStore');
  }

  /** {@inheritDoc TaskStore.get} */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const db = await this.#handle.open();
    const row = guard(() => db.prepare('SELECT record FROM agt_tasks WHERE task_id = ?').get(taskId)) as { record: string } | undefined;
    if (row === undefined) return undefined;
    // Named without its id (a task's id is its key: issue 58 #3). A record that is no object is the kit's to refuse.
    const record = parseStored(row.record, 'a stored task record') as TaskRecord;
    return isPlainObject(record) && expired(record) ? undefined : record;
  }

  /** {@inheritDoc TaskStore.put} */
  async put(record: TaskRecord): Promise<void> {
    const db = await this.#handle.open();
    const now = new Date().toISOString();
    const expiresAt = record.ttlMs === null ? null : new Date(Date.parse(record.createdAt) + record.ttlMs).toISOString();
    guard(() => {
      db.prepare('DELETE FROM agt_tasks WHERE expires_at IS NOT NULL AND expires_at <= ?').run(now);
      db.prepare(
        `INSERT INTO agt_tasks (task_id, owner, record, expires_at, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (task_id) DO UPDATE SET record = excluded.record, expires_at = excluded.expires_at`,
      ).run(record.taskId, record.owner, JSON.stringify(record), expiresAt, record.createdAt);
    });
  }

  /** {@inheritDoc TaskStore.list} */
  async list(owner: string | null): Promise<TaskRecord[]> {
    const db = await this.#handle.open();
    const rows = guard(() =>
      db
        .prepare(
          'SELECT task_id, record FROM agt_tasks WHERE owner IS ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC LIMIT ?',
        )
        .all(owner, new Date().toISOString(), MAX_LISTED_TASKS),
    ) as { task_id: string; record: string }[];
    // A row that is not JSON, or whose record names another task, is left out: it stops no other caller's list, and no
    // caller learns its id (issue 58 #3, #12).
    return rows.flatMap((r) => {
      try {
        const record = parseStored(r.record, 'a stored task record') as TaskRecord;
        return isPlainObject(record) && record.taskId === r.task_id ? [record] : [];
      } catch {
        return [];
      }
    });
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
