/**
 * A kit task while its handler runs in this process: what the handler may do
 * beyond its result (TaskControl), what the runner keeps of it (Running), and
 * the one unknown-task error of both eras (runner.ts).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { TaskRecord, TaskStatus } from './store.js';

/** What a running task's handler may do beyond its result: say how it goes, and ask (2026-07-28). */
export interface TaskControl {
  signal: AbortSignal;
  /** Sets the task's statusMessage. */
  status(message: string): Promise<void>;
  /** Asks the client a question through the task (input_required, answered by tasks/update) and waits for its answer. */
  ask(request: { method: string; params?: Record<string, unknown> }): Promise<unknown>;
}

/** The statuses a task ends in. */
export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** What the kit keeps of a task its handler runs in this process. */
export interface Running {
  /** Whose running tasks it counts among (maxRunningPerCaller). */
  caller: string | null;
  controller: AbortController;
  /** Questions asked and not answered, by key: each resolves with its answer. */
  waiting: Map<string, { request: { method: string; params?: Record<string, unknown> }; answer(value: unknown): void }>;
  asked: number;
  /** Told of every change of this task, with its record (none: read it again): tasks/result, a held tasks/get. */
  changed: Set<(record?: TaskRecord) => void>;
  /** Tells the client of the task's changes (2025 `notifications/tasks/status`), best effort. */
  notify?: (record: TaskRecord) => void;
  /** The handler returned (or threw): only its end's write is left. */
  returned?: boolean;
}

/** The unknown-task error both eras answer with (no task, an expired one, or another caller's). */
export const unknownTask = () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'unknown task: no task of this caller has that taskId');
