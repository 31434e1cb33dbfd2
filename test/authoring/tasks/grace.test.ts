/**
 * Short tasks (issue 64). On 2026-07-28 the server alone decides whether a
 * call becomes a task: a kit task tool whose handler ends within the grace
 * (`tasks.graceMs`) answers the `tools/call` with its result; one that runs
 * on, or asks, answers with its task; a 2025 client that asked for a task
 * gets one whatever the grace. The client's first `tasks/get` of a working
 * task comes when the server's poll interval allows after its answer — not at
 * once, not later — shown by the order of events in one process (the client's
 * waits and the markers are timers of one event loop), not by wall-clock bounds.
 */
import http from 'node:http';
import { ProtocolError } from '@modelcontextprotocol/server';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createToolServer,
  defineTool,
  type HttpToolService,
  MemoryTaskStore,
  serveHttp,
  type TaskServingOptions,
} from '../../../src/authoring/index.js';
import { connectMcp } from '../../../src/index.js';
import { heldTool } from '../fixtures/task-tools.js';
import { modernRequest as modern, rawSession, type RpcAnswer, taskIdOf } from '../../support/index.js';

const services: HttpToolService[] = [];
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) c();
  for (const s of services.splice(0)) await s.close();
});

// Released by the test: a handler held on it cannot end before the test says so.
const { tool: held, release } = heldTool();
const tools = () => [
  held,
  defineTool({
    name: 'fast',
    description: 'Ends in 5 ms.',
    input: v.object({}),
    execution: { taskSupport: 'optional' },
    handler: async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'fast done';
    },
  }),
  defineTool({
    name: 'throws',
    description: 'Throws at once.',
    input: v.object({ protocol: v.optional(v.boolean()) }),
    execution: { taskSupport: 'optional' },
    handler: ({ protocol }) => {
      if (protocol === true) throw new ProtocolError(-32050, 'refused by the tool');
      throw new Error('broken');
    },
  }),
  defineTool({
    name: 'asks',
    description: 'Asks first.',
    input: v.object({}),
    execution: { taskSupport: 'optional' },
    handler: async (_input, ctx) => {
      const answer = await ctx.elicit({ message: 'Go?', requestedSchema: { type: 'object', properties: {} } });
      return answer.action;
    },
  }),
];

async function serve(tasks: TaskServingOptions = {}) {
  const service = await serveHttp(() => createToolServer({ name: 'grace', version: '1.0.0', tools: tools(), tasks }));
  services.push(service);
  return service.url;
}

describe('2026-07-28: a task tool whose handler ends within the grace answers as a plain call', () => {
  it('E6: a handler that ends in 5 ms answers with its result (no task); its task record is stored expired, never listed', async () => {
    const store = new MemoryTaskStore();
    const url = await serve({ store });
    const answer = await modern(url, 'tools/call', { name: 'fast', arguments: {} });
    expect(answer.result).toMatchObject({ content: [{ type: 'text', text: 'fast done' }] });
    // The same as a plain call of the tool (a request that does not declare the Tasks extension).
    const plain = await modern(url, 'tools/call', { name: 'fast', arguments: {} }, false);
    const { _meta: _a, ...direct } = answer.result as Record<string, unknown>;
    const { _meta: _b, ...called } = plain.result as Record<string, unknown>;
    expect(direct).toEqual(called);
    expect(answer.result).not.toHaveProperty('taskId');
    expect(answer.result?.resultType).not.toBe('task');
    expect(await store.list(null)).toEqual([]); // nobody can name it: it takes no place from a task a client can read
  });

  it('E6: a handler still running when the grace ends answers with its task (working); its result is read with tasks/get', async () => {
    const url = await serve({ graceMs: 20 });
    const created = await modern(url, 'tools/call', { name: 'held', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result?.taskId as string;
    release(); // the handler could not have ended before the answer: it waited for this
    let read: RpcAnswer;
    do read = await modern(url, 'tasks/get', { taskId });
    while (read.result?.status === 'working');
    expect(read.result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'held done' }] } });
  });

  it('E6: a handler that throws within the grace is a tool error result as on a plain call; a ProtocolError it throws is the JSON-RPC error', async () => {
    const url = await serve();
    const failed = await modern(url, 'tools/call', { name: 'throws', arguments: {} });
    expect(failed.result).toMatchObject({ isError: true });
    expect(failed.result?.resultType).not.toBe('task');
    expect(JSON.stringify(failed.result)).not.toContain('broken'); // as a plain call: the cause is not told
    const refused = await modern(url, 'tools/call', { name: 'throws', arguments: { protocol: true } });
    expect(refused.error).toMatchObject({ code: -32050, message: 'refused by the tool' });
  });

  it('E6: a handler that asks ends the grace: the call is answered with its task (input_required), its question read with tasks/get', async () => {
    const url = await serve({ graceMs: 1_000 });
    const created = await modern(url, 'tools/call', { name: 'asks', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task' });
    const read = await modern(url, 'tasks/get', { taskId: created.result?.taskId as string });
    expect(read.result).toMatchObject({ status: 'input_required', inputRequests: expect.any(Object) });
  });

  it('E6: graceMs 0 answers every call the client lets become a task with its task, as before', async () => {
    const url = await serve({ graceMs: 0 });
    const created = await modern(url, 'tools/call', { name: 'fast', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task' });
  });

  it('E6: a 2025 client that asks for a task gets one whatever the grace (its era: the task-augmented request returns CreateTaskResult)', async () => {
    const rpc = await rawSession(await serve({ graceMs: 1_000 }));
    const created = await rpc('tools/call', { name: 'fast', arguments: {}, task: {} });
    expect(created.result?.task).toMatchObject({ taskId: taskIdOf(created) });
    // Not asked for a task: a plain call, as before.
    expect((await rpc('tools/call', { name: 'fast', arguments: {} })).result).toMatchObject({ content: [{ text: 'fast done' }] });
  });
});

describe("the client's looks at a 2026-07-28 task", () => {
  it('E6: the first tasks/get of a working task comes when the poll interval allows after the answer (not at once, not later); the next one a poll interval after it', async () => {
    const POLL = 400; // within the client's bounds (MIN_TASK_POLL_MS … MAX_TASK_POLL_MS)
    const target = await serve({ pollIntervalMs: POLL, graceMs: 0 });
    // A proxy in front of the server records, in order, what arrives and markers at fractions of the interval after
    // the task's answer went back: one event loop runs them and the client's waits, so their order is the timers'.
    const events: string[] = [];
    const mark = (label: string, ms: number) => setTimeout(() => events.push(label), ms);
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      const forward = async () => {
        const body = Buffer.concat(chunks);
        const method = body.length > 0 ? String((JSON.parse(body.toString()) as { method?: string }).method) : '';
        if (method === 'tasks/get') events.push(`get ${events.filter((e) => e.startsWith('get')).length + 1}`);
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            (e): e is [string, string] => typeof e[1] === 'string' && !['host', 'content-length'].includes(e[0]),
          ),
        );
        const answer = await fetch(target, { method: req.method ?? 'POST', headers, ...(req.method === 'POST' ? { body } : {}) });
        const out = Buffer.from(await answer.arrayBuffer());
        const back: Record<string, string> = {};
        answer.headers.forEach((value, key) => {
          if (!['content-length', 'transfer-encoding'].includes(key)) back[key] = value;
        });
        res.writeHead(answer.status, back);
        res.end(out, () => {
          if (method !== 'tools/call' && method !== 'tasks/get') return;
          const at = method === 'tools/call' ? 'answered' : 'looked';
          events.push(at);
          // The first look read the task working; its handler ends now, so the second look reads it completed.
          if (at === 'looked' && !events.includes('released')) {
            events.push('released');
            release();
          }
          const timers = [mark(`${at} +half`, POLL / 2), mark(`${at} +double`, 2 * POLL)];
          closers.push(() => timers.forEach(clearTimeout));
        });
      };
      req.on('end', () => void forward());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    closers.push(() => proxy.close());
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/mcp`;
    await using connection = await connectMcp({ url, protocol: '2026-07-28' }, { tasks: 'wait' });
    await connection.listTools();
    const result = await connection.callTool('held', {});
    expect(JSON.stringify(result)).toContain('held done');
    const at = (e: string) => events.indexOf(e);
    // Before: a look at once read the task working again (get 1 before half the interval had passed).
    expect(at('answered +half')).toBeGreaterThan(at('answered'));
    expect(at('get 1')).toBeGreaterThan(at('answered +half'));
    expect(at('answered +double') === -1 || at('get 1') < at('answered +double')).toBe(true);
    // The second look (the handler was released as the first was answered): a poll interval after the first, not
    // sooner, not much later; it reads the task completed, and no third look is made.
    expect(events.filter((e) => e.startsWith('get'))).toEqual(['get 1', 'get 2']);
    expect(at('get 2')).toBeGreaterThan(at('looked +half'));
    expect(at('looked +double') === -1 || at('get 2') < at('looked +double')).toBe(true);
  }, 30_000);
});
