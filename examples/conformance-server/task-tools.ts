/**
 * The tools the official `tasks-*` server scenarios (the Tasks extension,
 * SEP-2663) call: `greet` (never a task), `slow_compute` (a task that sleeps,
 * ends cancelled when cancelled), `failing_job` (a tool error; a task only),
 * `protocol_error_job` (a protocol error: the task fails), `confirm_delete`
 * and `multi_input` (tasks that ask: one question, two at once), and
 * `test_tool_with_task` (input first, then a task: it asks for the user's
 * name by rounds and becomes a task once it has it, on 2026-07-28).
 */
import * as v from 'valibot';
import { defineTool, toolError } from 'agt-mcp/authoring';
import { ProtocolError } from '@modelcontextprotocol/server';

const confirmForm = { type: 'object' as const, properties: { confirm: { type: 'boolean' as const } }, required: ['confirm'] };

// Resolves after `ms`, or rejects when `signal` aborts (a cancelled task stops at once).
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** The task tools of the conformance server. */
export function conformanceTaskTools() {
  return [
    defineTool({
      name: 'greet',
      description: 'Greets someone (never a task).',
      input: v.object({ name: v.string() }),
      handler: ({ name }) => `Hello, ${name}!`,
    }),
    defineTool({
      name: 'slow_compute',
      description: 'Sleeps `seconds`, then answers (a task).',
      input: v.object({ seconds: v.optional(v.number()), label: v.optional(v.string()) }),
      execution: { taskSupport: 'optional' },
      handler: async ({ seconds, label }, ctx) => {
        await sleep((seconds ?? 0) * 1000, ctx.signal);
        return `computed ${label ?? 'result'} after ${seconds ?? 0}s`;
      },
    }),
    defineTool({
      name: 'failing_job',
      description: 'Always ends with a tool error (only as a task).',
      input: v.object({}),
      execution: { taskSupport: 'required' },
      handler: async (_input, ctx) => {
        await sleep(1000, ctx.signal);
        return toolError('job_failed', 'the job failed');
      },
    }),
    defineTool({
      name: 'protocol_error_job',
      description: 'Ends with a protocol error (the task fails).',
      input: v.object({}),
      execution: { taskSupport: 'optional' },
      handler: () => {
        throw new ProtocolError(-32603, 'the job broke down');
      },
    }),
    defineTool({
      name: 'confirm_delete',
      description: 'Asks before it deletes (a task).',
      input: v.object({ path: v.optional(v.string()) }),
      execution: { taskSupport: 'optional' },
      handler: async ({ path }, ctx) => {
        const answer = await ctx.elicit({ message: `Delete ${path ?? 'the file'}?`, requestedSchema: confirmForm });
        return answer.action === 'accept' && answer.content?.confirm === true ? `deleted ${path ?? 'the file'}` : 'kept';
      },
    }),
    defineTool({
      name: 'test_tool_with_task',
      description: "Asks for the user's name, then greets them as a task (input first, then a task).",
      input: v.object({}),
      execution: { taskSupport: 'required', taskStart: 'handler' },
      handler: async (_input, ctx) => {
        const answer = await ctx.elicit(
          {
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
          { key: 'user_name' },
        );
        if (answer.action !== 'accept') return 'no name given';
        await ctx.startTask(); // the call is answered with the task; what follows is the task's work
        return `Hello, ${String(answer.content?.name)}!`;
      },
    }),
    defineTool({
      name: 'multi_input',
      description: 'Asks two questions at once (a task).',
      input: v.object({}),
      execution: { taskSupport: 'optional' },
      handler: async (_input, ctx) => {
        const [a, b] = await Promise.all([
          ctx.elicit({ message: 'First?', requestedSchema: confirmForm }),
          ctx.elicit({ message: 'Second?', requestedSchema: confirmForm }),
        ]);
        return `answered ${a.action} and ${b.action}`;
      },
    }),
  ];
}
