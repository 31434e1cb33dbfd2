/**
 * PostgresRunStore's announcements (E8): NOTIFY carries under 8,000 bytes, so
 * a write never depends on the size of what it announces (issue 58 #24). An
 * announcement that fits (MAX_ANNOUNCEMENT_BYTES) is sent whole; one whose
 * run id or agent does not fit is sent as a reference — the md5 of the run
 * id, computed by PostgreSQL in the write itself — and the watcher reads the
 * run id and agent back, with every change counted in `omitted`.
 */
import { isPlainObject } from '../json.js';
import { announcementOf, type RunAnnouncement, type RunWrite } from '../runtime/store/run-store.js';
import type { CallChange } from '../runtime/types.js';
import { MAX_ANNOUNCEMENT_BYTES } from '../bounds.js';

/**
 * The `pg_notify(…)` column of a put's RETURNING (empty when the write changes no call), its values pushed on `values`.
 * The payload is bounded whatever the run id and agent: whole when it fits, else a reference built from the row
 * (`{ runKey: md5(run_id), revision, omitted }`: the watcher reads the run id and agent back by `runKey`).
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
 * The announcement a NOTIFY payload carries, rebuilt field by field as a store sends it (anyone who can reach the
 * database can NOTIFY on the channel: a forged payload reaches no listener), reading a reference's run id and agent
 * back through `query` (on the watch's own connection); undefined when it is not one, or the run is gone.
 */
export async function readAnnouncement(
  payload: string,
  table: string,
  query: (text: string, values: unknown[]) => Promise<unknown[]>,
): Promise<RunAnnouncement | undefined> {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(payload) as typeof parsed;
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed) || !isCount(parsed.revision, 1) || !(parsed.omitted === undefined || isCount(parsed.omitted, 0)))
    return undefined;
  const { revision, omitted } = parsed as { revision: number; omitted?: number };
  if (typeof parsed.runId === 'string' && typeof parsed.agent === 'string' && Array.isArray(parsed.changes)) {
    if (!parsed.changes.every(isCallChange)) return undefined;
    const changes = parsed.changes.map(({ change, batchId, callId }) => ({ change, batchId, callId }));
    return { runId: parsed.runId, agent: parsed.agent, revision, changes, ...(omitted === undefined ? {} : { omitted }) };
  }
  if (typeof parsed.runKey !== 'string' || !MD5.test(parsed.runKey) || omitted === undefined) return undefined;
  // A scan of the table (no index on md5): only a run id and agent whose JSON escapes grow them past NOTIFY's bound.
  const [row] = (await query(`SELECT run_id, agent FROM ${table} WHERE md5(run_id) = $1 LIMIT 1`, [parsed.runKey])) as {
    run_id: string;
    agent: string;
  }[];
  if (row === undefined) return undefined;
  return { runId: row.run_id, agent: row.agent, revision, changes: [], omitted };
}

const MD5 = /^[0-9a-f]{32}$/;
const CHANGES: readonly unknown[] = ['waiting', 'decided', 'ended', 'interrupted'] satisfies CallChange['change'][];
const isCount = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && (value as number) >= min;
const isCallChange = (value: unknown): value is CallChange =>
  isPlainObject(value) && CHANGES.includes(value.change) && typeof value.batchId === 'string' && typeof value.callId === 'string';
