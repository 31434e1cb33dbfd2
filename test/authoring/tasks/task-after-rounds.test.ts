/**
 * Input first, then a task (E5, E6; the conformance
 * scenario tasks-mrtr-composition): a kit tool declaring `execution.taskStart:
 * 'handler'` asks by rounds on 2026-07-28 and becomes a task at
 * `ctx.startTask()` — the final round is answered with the task
 * (CreateTaskResult, no requestState), the task's result carries the answer
 * gathered before it, and after it the handler's signal is the task's. In
 * the 2025 era the same definition is a task from the call, its question
 * pushed. Real HTTP on loopback, the project's client.
 */
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createToolServer,
  defineTool,
  type HttpToolService,
  MemoryTaskStore,
  serveHttp,
  type ToolContext,
} from '../../../src/authoring/index.js';
import { connectMcp, isAgtError, type McpConnection, type McpInputRequired } from '../../../src/index.js';
import type { McpTaskStarted } from '../../../src/adapters.js';
import { text } from '../../support/index.js';

const services: HttpToolService[] = [];
const connections: McpConnection[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) await c.close().catch(() => undefined);
  for (const s of services.splice(0)) await s.close();
});

const nameForm = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

// What the handler did, in order: `asked` on each run up to its question, `task` once it runs as the task.
const events: string[] = [];
let aborted: ((reason: unknown) => void) | undefined;
const greet = defineTool({
  name: 'greet_later',
  description: "Asks the user's name, then greets them as a task.",
  input: v.object({ hold: v.optional(v.boolean()) }),
  execution: { taskSupport: 'optional', taskStart: 'handler' },
  handler: async ({ hold }, ctx) => {
    events.push('asked');
    const who = await ctx.elicit({ message: 'Your name?', requestedSchema: nameForm }, { key: 'user_name' });
    await ctx.startTask();
    events.push('task');
    if (hold === true)
      await new Promise<void>((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted?.(ctx.signal.reason);
          resolve();
        });
      });
    return `Hello, ${String(who.content?.name)}!`;
  },
});

const start = async () => {
  const service = await serveHttp(() =>
    createToolServer({ name: 'greeter', version: '1.0.0', tools: [greet], requestStateKey: 'g'.repeat(32), tasks: { pollIntervalMs: 20 } }),
  );
  services.push(service);
  return service;
};
const connect = async (url: string, options: Parameters<typeof connectMcp>[1], protocol: '2026-07-28' | 'legacy' = '2026-07-28') => {
  const connection = await connectMcp({ url, protocol }, options);
  connections.push(connection);
  return connection;
};

// Polls a task (at its own interval, on the server's clock) until it ends.
async function ended(c: McpConnection, taskId: string) {
  for (let status = await c.getTask(taskId); ; status = await c.getTask(taskId))
    if (['completed', 'failed', 'cancelled'].includes(status.status)) return status;
}

describe('E6: input first, then a task', () => {
  it('E6: on 2026-07-28 the first round asks (no task), the final round is answered with the task, whose result carries the answer', async () => {
    events.length = 0;
    const service = await start();
    const c = await connect(service.url, { elicitation: 'defer', tasks: 'defer' });
    const round1 = (await c.callToolOrInput('greet_later', {})) as McpInputRequired;
    expect(round1.resultType).toBe('input_required');
    expect(Object.keys(round1.inputRequests)).toEqual(['user_name']);
    expect(round1).not.toHaveProperty('task');
    const started = (await c.callToolOrInput(
      'greet_later',
      {},
      {
        input: {
          requests: round1.inputRequests,
          responses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
          ...(round1.requestState ? { requestState: round1.requestState } : {}),
        },
      },
    )) as McpTaskStarted;
    expect(started.resultType).toBe('task');
    expect(started).not.toHaveProperty('requestState');
    expect((await ended(c, started.task.id)).status).toBe('completed');
    expect(text(await c.getTaskResult(started.task.id))).toBe('Hello, Alice!');
    expect(events).toEqual(['asked', 'asked', 'task']); // the rounds ran up to the question; the task's part once
  });

  it('E6: the project client answers the round inline and waits for the task: one callTool, the greeting', async () => {
    const service = await start();
    const c = await connect(service.url, { elicitation: async () => ({ action: 'accept', content: { name: 'Bo' } }) });
    expect(text(await c.callTool('greet_later', {}))).toBe('Hello, Bo!');
  });

  it('E6: once the task started, its cancel reaches the handler (ctx.signal is the task’s), and the task ends cancelled', async () => {
    const service = await start();
    const c = await connect(service.url, { elicitation: async () => ({ action: 'accept', content: { name: 'Cy' } }), tasks: 'defer' });
    const reason = new Promise<unknown>((resolve) => (aborted = resolve));
    const started = (await c.callToolOrInput('greet_later', { hold: true })) as McpTaskStarted;
    expect(started.resultType).toBe('task');
    await c.cancelTask(started.task.id);
    await reason; // the handler, holding after startTask, heard the task's cancel
    expect((await ended(c, started.task.id)).status).toBe('cancelled');
  });

  it('E6: a client whose requests do not declare the Tasks extension gets a plain result (startTask does nothing)', async () => {
    const service = await start();
    const c = await connect(service.url, { elicitation: async () => ({ action: 'accept', content: { name: 'Di' } }), tasks: false });
    expect(text(await c.callTool('greet_later', {}))).toBe('Hello, Di!');
  });

  it('E6: in the 2025 era the same tool is a task from the call, its question pushed', async () => {
    const service = await start();
    const c = await connect(service.url, { elicitation: async () => ({ action: 'accept', content: { name: 'Ed' } }) }, 'legacy');
    expect(text(await c.callTool('greet_later', {}))).toBe('Hello, Ed!');
  });

  it('E6: taskStart must be "call" or "handler", and "handler" needs a taskSupport that allows a task: invalid_input', () => {
    const def = (execution: unknown) => () =>
      defineTool({ name: 't', description: 'd', input: v.object({}), execution: execution as never, handler: () => 'x' });
    for (const bad of [
      { taskSupport: 'optional', taskStart: 'later' },
      { taskSupport: 'forbidden', taskStart: 'handler' },
    ]) {
      const thrown = (() => {
        try {
          def(bad)();
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(isAgtError(thrown) && thrown.code, JSON.stringify(bad)).toBe('invalid_input');
    }
    expect(def({ taskSupport: 'required', taskStart: 'handler' })).not.toThrow();
    expect(def({ taskSupport: 'required', taskStart: 'handler' })()).not.toHaveProperty('execution.taskStart'); // never published
  });
});

describe('E6: startTask() after the call was answered', () => {
  it('E6: a handler that kept its context and calls startTask() after it returned starts no task nobody could name', async () => {
    let kept: ToolContext | undefined;
    const early = defineTool({
      name: 'answers_first',
      description: 'Answers at once, then tries to become a task.',
      input: v.object({}),
      execution: { taskSupport: 'optional', taskStart: 'handler' },
      handler: (_args, ctx) => {
        kept = ctx;
        return 'answered';
      },
    });
    const store = new MemoryTaskStore();
    const service = await serveHttp(() =>
      createToolServer({ name: 'early', version: '1.0.0', tools: [early], requestStateKey: 'e'.repeat(32), tasks: { store } }),
    );
    services.push(service);
    const c = await connect(service.url, { elicitation: 'defer', tasks: 'defer' });
    expect(text((await c.callToolOrInput('answers_first', {})) as { content: unknown[] })).toBe('answered');
    await kept?.startTask();
    expect(await store.list(null)).toEqual([]);
  });
});
