/**
 * A task as a server sent it — either era's field names (`ttl`/`pollInterval`
 * in 2025, `ttlMs`/`pollIntervalMs` on 2026-07-28) — read into what callers
 * see: its id and status, its message escaped and bounded, its poll interval
 * and its TTL clamped (a TTL past MAX_SERVER_TASK_TTL_MS — even past the last
 * date JavaScript holds — is cut to it before any date is made of it). Nothing
 * else of it is carried.
 */
import { AgtError } from '../../errors.js';
import { serverWords } from '../server-words.js';
import type { McpTask } from '../connection-types.js';
import { MAX_SERVER_TASK_TTL_MS } from '../../bounds.js';
import { clampPoll } from './port.js';

/** A server's task TTL cut to [0, MAX_SERVER_TASK_TTL_MS] (issue 58 #1); undefined for what is not a number. */
export function clampTtl(ms: unknown): number | undefined {
  if (typeof ms !== 'number' || Number.isNaN(ms)) return undefined;
  return Math.min(MAX_SERVER_TASK_TTL_MS, Math.max(0, Math.round(ms)));
}

const STATUSES: readonly McpTask['status'][] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** A task as the server sent it, read into what callers see (protocol_error for a status MCP does not define). */
export function taskOf(raw: Record<string, unknown>, taskId: string): McpTask {
  const status = STATUSES.includes(raw.status as McpTask['status']) ? (raw.status as McpTask['status']) : undefined;
  if (status === undefined)
    throw new AgtError('protocol_error', 'the server sent a task with a status MCP does not define', {
      details: { reason: 'invalid_task', taskId },
    });
  const given = 'ttlMs' in raw ? raw.ttlMs : raw.ttl; // null: no limit given
  const ttl = given === null ? null : clampTtl(given);
  const poll = clampPoll(raw.pollIntervalMs ?? raw.pollInterval);
  return {
    id: taskId,
    status,
    ...(typeof raw.statusMessage === 'string' ? { statusMessage: serverWords(raw.statusMessage) } : {}),
    ...(poll === undefined ? {} : { pollIntervalMs: poll }),
    ...(ttl === undefined ? {} : { ttlMs: ttl }),
  };
}
