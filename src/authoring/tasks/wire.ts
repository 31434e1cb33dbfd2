/**
 * A kit task on the wire, in each era's words: 2025-11-25 (`task` with `ttl`
 * and `pollInterval`; the result read with `tasks/result`) and the 2026-07-28
 * Tasks extension (`resultType: "task"`, `ttlMs`, `pollIntervalMs`; the
 * result, error or questions inline in `tasks/get`). The owner, the tool and
 * anything else the kit keeps never leave the server.
 */
import type { TaskRecord } from './store.js';

/** The 2025-11-25 related-task `_meta` key a task's messages carry. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

const common = (r: TaskRecord) => ({
  taskId: r.taskId,
  status: r.status,
  ...(r.statusMessage === undefined ? {} : { statusMessage: r.statusMessage }),
  createdAt: r.createdAt,
  lastUpdatedAt: r.lastUpdatedAt,
});

/** A task as the 2025 era shows it (`tasks/get`, `tasks/cancel`, `tasks/list`, and `task` of CreateTaskResult). */
export function legacyTask(r: TaskRecord): Record<string, unknown> {
  return { ...common(r), ttl: r.ttlMs, pollInterval: r.pollIntervalMs };
}

/** A task as the 2026-07-28 extension shows it in CreateTaskResult. */
export function modernTask(r: TaskRecord): Record<string, unknown> {
  return { ...common(r), ttlMs: r.ttlMs, pollIntervalMs: r.pollIntervalMs };
}

/** A DetailedTask (2026-07-28 `tasks/get`): the task, with its result, error or outstanding questions. */
export function detailedTask(r: TaskRecord): Record<string, unknown> {
  return {
    ...modernTask(r),
    ...(r.status === 'completed' && r.result !== undefined ? { result: { resultType: 'complete', ...r.result } } : {}),
    ...(r.status === 'failed' && r.error !== undefined ? { error: r.error } : {}),
    ...(r.status === 'input_required' && r.inputRequests !== undefined ? { inputRequests: r.inputRequests } : {}),
  };
}
