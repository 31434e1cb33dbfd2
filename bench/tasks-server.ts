/**
 * The kit task server of `npm run bench -- tasks` on stdio: the task tools of
 * the tests (test/authoring/fixtures/task-tools.ts: `quick` answers at once)
 * and `nap`, whose handler ends after `ms` milliseconds, both runnable as
 * tasks. `--poll-ms N` is its `tasks.pollIntervalMs` (default 50), `--grace-ms
 * N` its `tasks.graceMs` (default: the kit's).
 */
import * as v from 'valibot';
import { createToolServer, defineTool, serveStdio } from '../src/authoring/index.js';
import { taskTools } from '../test/authoring/fixtures/task-tools.js';

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const grace = arg('--grace-ms');
const nap = defineTool({
  name: 'nap',
  description: 'Ends after `ms` milliseconds.',
  input: v.object({ ms: v.number() }),
  execution: { taskSupport: 'optional' },
  handler: async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `slept ${ms}`;
  },
});
await serveStdio(
  createToolServer({
    name: 'bench-tasks',
    version: '1.0.0',
    tools: [...taskTools('/dev/null'), nap],
    tasks: { pollIntervalMs: Number(arg('--poll-ms') ?? 50), ...(grace === undefined ? {} : { graceMs: Number(grace) }) },
  }),
);
