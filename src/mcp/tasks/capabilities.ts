/**
 * Which calls may run as tasks: the server's side (2025-11-25 `tasks.requests.tools.call`,
 * or the 2026-07-28 `io.modelcontextprotocol/tasks` extension) and the tool's
 * (`execution.taskSupport`). What a connection asks for is its `tasks` setting.
 */
import { isPlainObject } from '../../json.js';

/** The identifier of the 2026-07-28 Tasks extension. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What a connection does with calls a server runs as tasks: never asks for one, waits for it inline, or hands it back. */
export type TaskMode = 'off' | 'wait' | 'defer';

/** The `tasks` setting as given (`true` is `'wait'`, `false` is `'off'`), resolved; absent: `'wait'`. */
export function taskMode(given: boolean | 'wait' | 'defer' | undefined): TaskMode {
  return given === undefined || given === true ? 'wait' : given === false ? 'off' : given;
}

/** True when the server takes tool calls as tasks: 2025 `tasks.requests.tools.call`, or the 2026-07-28 extension. */
export function serverRunsToolTasks(capabilities: Record<string, unknown> | undefined, era: 'legacy' | 'modern'): boolean {
  if (era === 'modern') {
    const extensions = capabilities?.extensions;
    return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
  }
  const tasks = capabilities?.tasks;
  const requests = isPlainObject(tasks) ? tasks.requests : undefined;
  const tools = isPlainObject(requests) ? requests.tools : undefined;
  return isPlainObject(tools) && isPlainObject(tools.call);
}

/** True for a tool whose `execution.taskSupport` lets it run as a task. */
export function runsAsTask(tool: { execution?: unknown }): boolean {
  const support = isPlainObject(tool.execution) ? tool.execution.taskSupport : undefined;
  return support === 'required' || support === 'optional';
}
