/**
 * PostgresRunStore's announcements (E8): NOTIFY carries under 8,000 bytes, so
 * a write never depends on the size of what it announces (issue 58 #24). An
 * announcement that fits (MAX_ANNOUNCEMENT_BYTES) is sent whole; one whose
 * run id or agent does not fit is sent as a reference — the md5 of the run
 * id, computed by PostgreSQL in the write itself — and the watcher reads the
 * run id and agent back, with every change counted in `omitted`.
 */
import { announcementOf, MAX_ANNOUNCEMENT_BYTES, type RunAnnouncement, type RunWrite } from '../runtime/run-store.js';

/** The announcement as NOTIFY carries it when the run id or agent does not fit: read them back by `runKey`. */
interface RunReference {
  runKey: string;
  revision: number;
  omitted: number;
}

/**
 * The `pg_notify(…)` column of a put's RETURNING (empty when the write changes no call), its values pushed on `values`.
 * The payload is bounded whatever the run id and agent: whole when it fits, else a reference built from the row.
 */
export function notifyColumn(run: RunWrite, revision: number, channel: string, values: unknown[]): string {
  const announcement = announcementOf(run, revision);
  if (announcement === undefined) return '';
  const param = (value: unknown) => `$${values.push(value)}`;
  const payload = JSON.stringify(announcement);
  if (Buffer.byteLength(payload) <= MAX_ANNOUNCEMENT_BYTES) return `, pg_notify(${param(channel)}, ${param(payload)})`;
  const omitted = announcement.changes.length + (announcement.omitted ?? 0);
  return `, pg_notify(${param(channel)}, json_build_object('runKey', md5(run_id), 'revision', revision, 'omitted', ${param(omitted)}::integer)::text)`;
}

/**
 * The announcement a NOTIFY payload carries (our own JSON, read defensively), reading a reference's run id and agent
 * back through `query` (on the watch's own connection); undefined when it is not one, or the run is gone.
 */
export async function readAnnouncement(
  payload: string,
  table: string,
  query: (text: string, values: unknown[]) => Promise<unknown[]>,
): Promise<RunAnnouncement | undefined> {
  let parsed: Partial<RunAnnouncement & RunReference>;
  try {
    parsed = JSON.parse(payload) as typeof parsed;
  } catch {
    return undefined;
  }
  if (typeof parsed?.revision !== 'number') return undefined;
  if (typeof parsed.runId === 'string' && Array.isArray(parsed.changes)) return parsed as RunAnnouncement;
  if (typeof parsed.runKey !== 'string' || typeof parsed.omitted !== 'number') return undefined;
  // A scan of the table (no index on md5): only a run id or agent of kilobytes is announced this way.
  const [row] = (await query(`SELECT run_id, agent FROM ${table} WHERE md5(run_id) = $1 LIMIT 1`, [parsed.runKey])) as {
    run_id: string;
    agent: string;
  }[];
  if (row === undefined) return undefined;
  return { runId: row.run_id, agent: row.agent, revision: parsed.revision, changes: [], omitted: parsed.omitted };
}
