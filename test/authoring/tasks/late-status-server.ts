/**
 * A kit server on stdio whose task store takes its time over one write: a
 * status write saying `late` is held (and `held` written to the log given
 * as `--log FILE`) until a write of another task lands, and lands after it.
 * Its tool `late` says `late` without awaiting it and returns at once, so
 * the task's end is asked for while that status write is held; `quick`
 * answers at once (a task started to let the held write land). The test:
 * runner-race.test.ts.
 */
import fs from 'node:fs';
import * as v from 'valibot';
import { createToolServer, defineTool, MemoryTaskStore, serveStdio, type TaskRecord } from '../../../src/authoring/index.js';

const at = process.argv.indexOf('--log');
const log = at >= 0 ? (process.argv[at + 1] ?? '/dev/null') : '/dev/null';

class LateStore extends MemoryTaskStore {
  readonly #held: { taskId: string; land(): void }[] = [];

  override async put(record: TaskRecord): Promise<void> {
    if (record.statusMessage === 'late') {
      await new Promise<void>((land) => {
        this.#held.push({ taskId: record.taskId, land });
        fs.appendFileSync(log, 'held\n');
      });
      return super.put(record);
    }
    await super.put(record);
    const others = this.#held.filter((h) => h.taskId !== record.taskId);
    this.#held.splice(0, this.#held.length, ...this.#held.filter((h) => h.taskId === record.taskId));
    for (const h of others) h.land();
  }
}

const late = defineTool({
  name: 'late',
  description: 'Says how it goes without waiting for it, and returns at once.',
  input: v.object({}),
  execution: { taskSupport: 'optional' },
  handler: async (_input, ctx) => {
    void ctx.progress(0, { message: 'late' });
    return 'the report';
  },
});
const quick = defineTool({
  name: 'quick',
  description: 'Answers at once.',
  input: v.object({}),
  execution: { taskSupport: 'optional' },
  handler: () => 'quick',
});

await serveStdio(
  createToolServer({ name: 'late', version: '1.0.0', tools: [late, quick], tasks: { pollIntervalMs: 50, store: new LateStore() } }),
);
