/**
 * A task record as read back from a task store, checked before the kit acts
 * on it or shows it (issue 58 #12): a store is a file or a database someone
 * can write, and a record edited by hand (a status no kit writes, a TTL past
 * the last date, another task's id, not an object at all) must reach no
 * client as it is, nor break the kit with a raw TypeError or RangeError. What
 * is wrong is said by field, never by value, and never with the task's id.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isPlainObject } from '../../json.js';
import type { TaskRecord } from './store.js';

const STATUSES: ReadonlySet<unknown> = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);
// The last time a Date holds (ms since the epoch).
const LAST_DATE_MS = 8.64e15;

const date = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN);
const optional = (value: unknown, check: (v: unknown) => boolean) => value === undefined || check(value);

// The first field of `r` no kit writes as it is, or undefined when the record is whole.
function wrongField(r: Record<string, unknown>, taskId: string): string | undefined {
  if (r.taskId !== taskId) return 'taskId';
  if (typeof r.tool !== 'string') return 'tool';
  if (!optional(r.session, (s) => typeof s === 'string')) return 'session';
  if (!STATUSES.has(r.status)) return 'status';
  if (!optional(r.statusMessage, (s) => typeof s === 'string')) return 'statusMessage';
  const created = date(r.createdAt);
  if (!Number.isFinite(created)) return 'createdAt';
  if (!Number.isFinite(date(r.lastUpdatedAt))) return 'lastUpdatedAt';
  // A TTL a date can be computed from (a 2025 client may have asked for a fraction of a millisecond).
  const ttl = r.ttlMs;
  if (ttl !== null && !(typeof ttl === 'number' && ttl >= 0 && created + ttl <= LAST_DATE_MS)) return 'ttlMs';
  if (!(Number.isSafeInteger(r.pollIntervalMs) && (r.pollIntervalMs as number) >= 1)) return 'pollIntervalMs';
  if (!optional(r.result, isPlainObject)) return 'result';
  if (!optional(r.error, (e) => isPlainObject(e) && Number.isSafeInteger(e.code) && typeof e.message === 'string')) return 'error';
  if (!optional(r.inputRequests, isPlainObject)) return 'inputRequests';
  return undefined;
}

/** The error of a task whose stored record is not whole: what is wrong named, never a value or the task's id. */
export const invalidRecord = (field?: string) =>
  new ProtocolError(
    ProtocolErrorCode.InternalError,
    `the task store holds an invalid record for this task (${field === undefined ? 'not an object' : `its ${field}`}: a corrupt or hand-edited store); the server's operator restores or deletes it`,
  );

// Why `read` is not a whole record of task `taskId` ('': not an object), or undefined when it is one.
function problemOf(read: unknown, taskId: string): string | undefined {
  if (!isPlainObject(read)) return '';
  return read.owner === null || typeof read.owner === 'string' ? wrongField(read, taskId) : 'owner';
}

/** What the store holds for task `taskId` (`read`), whole: undefined when it holds none; invalidRecord when it is not whole. */
export function wholeTask(read: unknown, taskId: string): TaskRecord | undefined {
  if (read === undefined) return undefined;
  const problem = problemOf(read, taskId);
  if (problem !== undefined) throw invalidRecord(problem === '' ? undefined : problem);
  return read as TaskRecord;
}

/**
 * `read` as a task of `owner`: undefined when the store holds none of that owner — another caller's, whole or not, is
 * none (it learns nothing of it); invalidRecord when the owner's record (or one that is no object) is not whole.
 */
export function ownedTask(read: unknown, taskId: string, owner: string | null): TaskRecord | undefined {
  if (isPlainObject(read) && read.owner !== owner) return undefined;
  return wholeTask(read, taskId);
}

/** True when `read` is a whole record (a list leaves out those that are not: one bad record hides no other). */
export const isWholeTask = (read: unknown): read is TaskRecord =>
  isPlainObject(read) && typeof read.taskId === 'string' && problemOf(read, read.taskId) === undefined;
