/**
 * A task as a server sent it — either era's field names (`ttl`/`pollInterval`
 * in 2025, `ttlMs`/`pollIntervalMs` on 2026-07-28) — read into what callers
 * see: its id and status, its message escaped and bounded, its poll interval
 * clamped. Nothing else of it is carried.
 */
import { AgtError } from '../../errors.js';
import { serverWords } from '../server-words.js';
import type { McpTask } from '../connection-types.js';
import { clampPoll } from './port.js';

const STATUSES: readonly McpTask['status'][] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** A task as the server sent it, read into what callers see (protocol_error for a status MCP does not define). */
export function taskOf(raw: Record<string, unknown>, taskId: string): McpTask {
  const status = STATUSES.includes(raw.status as McpTask['status']) ? (raw.status as McpTask['status']) : undefined;
  if (status === undefined)
    throw new AgtError('protocol_error', 'the server sent a task with a status MCP does not define', {
      details: { reason: 'invalid_task', taskId },
    });
  const ttl = raw.ttlMs ?? raw.ttl;
  const poll = clampPoll(raw.pollIntervalMs ?? raw.pollInterval);
  return {
    id: taskId,
    status,
    ...(typeof raw.statusMessage === 'string' ? { statusMessage: serverWords(raw.statusMessage) } : {}),
    ...(poll === undefined ? {} : { pollIntervalMs: poll }),
    ...(ttl === null || (typeof ttl === 'number' && Number.isFinite(ttl)) ? { ttlMs: ttl as number | null } : {}),
  };
}
