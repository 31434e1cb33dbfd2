/**
 * `agt mcp task get|result|cancel <ref> <taskId>`: a task a server runs (E6) —
 * one `agt mcp call --detach` started, or any other the server knows for this
 * caller — reached by its id on a new connection: its status, its result once
 * it ended (exit 6 while it still runs), or a cancel.
 */
import { oneLine } from '../../outside-text.js';
import { parseArgs } from 'node:util';
import { AgtError } from '../../errors.js';
import { type CliContext, emit, EXIT } from '../context.js';
import { SESSION_OPTIONS } from './mcp-session.js';
import { withConnection } from './mcp-call.js';
import { contentLines, structuredLines } from '../terminal/tool-output.js';

const USAGE = 'agt mcp task get|result|cancel <ref> <taskId> [--timeout MS] [--input id=VALUE]…';

/** `agt mcp task VERB REF TASK_ID`. */
export async function taskCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: SESSION_OPTIONS });
  const [verb, raw, taskId] = positionals as [string | undefined, string | undefined, string | undefined];
  if (positionals.length !== 3 || !['get', 'result', 'cancel'].includes(verb ?? '') || !taskId)
    throw new AgtError('invalid_input', `usage: ${USAGE}`);
  if (verb === 'get') {
    const task = await withConnection(ctx, raw, values, USAGE, (c, signal) => c.getTask(taskId, { signal }));
    const questions = Object.keys(task.inputRequests ?? {});
    emit(ctx, task, () =>
      [
        oneLine`task ${task.id} ${task.status}` + (task.statusMessage ? oneLine`: ${task.statusMessage}` : ''),
        ...(questions.length > 0 ? [oneLine`waits for: ${questions.join(', ')}`] : []),
      ].join('\n'),
    );
    return EXIT.ok;
  }
  if (verb === 'cancel') {
    await withConnection(ctx, raw, values, USAGE, (c, signal) => c.cancelTask(taskId, { signal }));
    emit(ctx, { taskId, cancelled: true }, () => oneLine`task ${taskId}: cancel sent (the server may still end it otherwise)`);
    return EXIT.ok;
  }
  const outcome = await withConnection(ctx, raw, values, USAGE, async (c, signal) => {
    const task = await c.getTask(taskId, { signal });
    if (task.status === 'working' || task.status === 'input_required') return { task };
    return { task, result: await c.getTaskResult(taskId, { signal }) };
  });
  if (outcome.result === undefined) {
    emit(ctx, outcome, () => oneLine`task ${taskId} is still ${outcome.task.status}; ask again later (agt mcp task result)`);
    return EXIT.waiting;
  }
  const result = outcome.result;
  emit(ctx, outcome, () =>
    [
      ...contentLines(result.content),
      ...(result.structuredContent === undefined ? [] : structuredLines(result.structuredContent, 'not checked: read by task id')),
    ].join('\n'),
  );
  return result.isError ? EXIT.failed : EXIT.ok;
}
