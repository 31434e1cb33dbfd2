/**
 * What a kit server trusts of a question's answer (E4, E5):
 * a sealed state is spent only once every check it is bound to holds — the
 * caller, the tool, the arguments — so a refused presentation costs its owner
 * nothing; and every answer the kit receives (a 2026-07-28 retry's
 * inputResponses, a 2026-07-28 task's `tasks/update`, a 2025 client's answer
 * to a pushed question, in a call or a task) is checked against the question
 * it answers (an elicitation's `requestedSchema`) with the project's
 * validator before the handler sees it. Over real HTTP with two bearer
 * callers, and real server processes over stdio with a raw JSON-RPC client
 * (the project's own client checks its answers first, so it cannot send a
 * wrong one).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolServer, defineTool, type HttpToolService, serveHttp } from '../../../src/authoring/index.js';
import { connectMcp, isAgtError, type McpInputRequired } from '../../../src/index.js';
import type { McpTaskStarted } from '../../../src/adapters.js';
import { REPO_ROOT, tempDir, text } from '../../support/index.js';
import { deleteFileTool } from '../fixtures/delete-file.js';
import { taskTools } from '../fixtures/task-tools.js';

const services: HttpToolService[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  for (const s of services.splice(0)) await s.close();
});

const { tool: deleteFile, runs } = deleteFileTool();
// Another tool with the same arguments that asks too: a state of delete_file presented to it must be refused.
const moveFile = defineTool({
  name: 'move_file',
  description: 'Moves a file once the user confirms.',
  input: v.object({ path: v.string() }),
  handler: async ({ path: file }, ctx) => {
    const answer = await ctx.elicit({
      message: `Move ${file}?`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    return answer.action === 'accept' ? `moved ${file}` : `left ${file}`;
  },
});

const KEY = 'k'.repeat(32);
const CALLERS: Record<string, string> = { 'tok-a': 'alice', 'tok-b': 'bob' };
const start = async () => {
  const service = await serveHttp(
    () => createToolServer({ name: 'files', version: '1.0.0', tools: [deleteFile, moveFile], requestStateKey: KEY }),
    { auth: { verify: (token) => (CALLERS[token] ? { token, clientId: CALLERS[token], scopes: ['files'] } : undefined) } },
  );
  services.push(service);
  return service;
};
const as = async (service: HttpToolService, token: string) => {
  const connection = await connectMcp(
    { url: service.url, protocol: '2026-07-28', headers: { Authorization: `Bearer ${token}` } },
    { elicitation: 'defer' },
  );
  closers.push(() => connection.close());
  return connection;
};
const respond = (state: McpInputRequired, responses: Record<string, unknown>) => ({
  input: { requests: state.inputRequests, responses, ...(state.requestState ? { requestState: state.requestState } : {}) },
});
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('E5: a refused state costs its owner nothing', () => {
  it("E5: bob presenting alice's sealed state is refused, and so is the state on other arguments or another tool; alice's own retry then goes on", async () => {
    const service = await start();
    const [alice, bob] = [await as(service, 'tok-a'), await as(service, 'tok-b')];
    const round1 = (await alice.callToolOrInput('delete_file', { path: '/a' })) as McpInputRequired;
    expect(round1.resultType).toBe('input_required');
    const answered = respond(round1, { q1: { action: 'accept', content: { confirm: true } } });
    const before = runs();
    for (const [who, tool, args] of [
      [bob, 'delete_file', { path: '/a' }],
      [alice, 'delete_file', { path: '/etc/passwd' }],
      [alice, 'move_file', { path: '/a' }],
    ] as const) {
      const refused = await refusal(who.callToolOrInput(tool, args, answered));
      expect(isAgtError(refused) && refused.message, `${tool} ${args.path}`).toMatch(/Invalid or expired requestState/);
    }
    expect(runs()).toBe(before); // no handler ran for a refused state
    // Her state was not spent by the refusals: her retry takes it, and the handler asks its next question.
    const round2 = (await alice.callToolOrInput('delete_file', { path: '/a' }, answered)) as McpInputRequired;
    expect(round2.resultType).toBe('input_required');
    expect(Object.values(round2.inputRequests)[0]).toMatchObject({ params: { message: 'Why?' } });
    // Taken once: the same retry again is refused.
    expect(await refusal(alice.callToolOrInput('delete_file', { path: '/a' }, answered))).toSatisfy(
      (e: unknown) => isAgtError(e) && /Invalid or expired requestState/.test(e.message),
    );
  });
});

describe('E5: two rounds alike seal two states', () => {
  it('E5: the same caller making the same call twice at once gets two states, and each retry is taken (neither is a replay of the other)', async () => {
    const service = await start();
    const [one, two] = [await as(service, 'tok-a'), await as(service, 'tok-a')];
    const rounds = (await Promise.all([one, two].map((c) => c.callToolOrInput('delete_file', { path: '/same' })))) as McpInputRequired[];
    expect(rounds[0]!.requestState).not.toBe(rounds[1]!.requestState); // sealed within one second, still two states
    const next = (await Promise.all(
      [one, two].map((c, i) =>
        c.callToolOrInput('delete_file', { path: '/same' }, respond(rounds[i]!, { q1: { action: 'accept', content: { confirm: true } } })),
      ),
    )) as McpInputRequired[];
    for (const round of next) expect(Object.values(round.inputRequests)[0]).toMatchObject({ params: { message: 'Why?' } });
  });
});

describe('E5: the kit checks answers against the questions it asked', () => {
  it('E5: a 2026-07-28 retry whose answer breaks the requestedSchema is refused (-32602 naming the question and the path), the handler does not run, and the state stays good for a right answer', async () => {
    const service = await start();
    const alice = await as(service, 'tok-a');
    const round1 = (await alice.callToolOrInput('delete_file', { path: '/w' })) as McpInputRequired;
    const before = runs();
    for (const wrong of [
      { action: 'accept', content: { confirm: 'yes' } }, // a string for a boolean
      { action: 'accept', content: {} }, // the required field missing
      { action: 'accept' }, // accepted with no content
      { action: 'maybe' }, // not an ElicitResult
    ]) {
      const refused = await refusal(alice.callToolOrInput('delete_file', { path: '/w' }, respond(round1, { q1: wrong })));
      expect(isAgtError(refused) && refused.message, JSON.stringify(wrong)).toMatch(/the answer to question "q1"/);
      expect((refused as Error).message).not.toMatch(/yes/); // names paths and expectations, never the value
    }
    const typed = await refusal(
      alice.callToolOrInput('delete_file', { path: '/w' }, respond(round1, { q1: { action: 'accept', content: { confirm: 'yes' } } })),
    );
    expect((typed as Error).message).toMatch(/"\/confirm"/);
    expect(runs()).toBe(before); // the handler never saw a wrong answer
    const round2 = (await alice.callToolOrInput(
      'delete_file',
      { path: '/w' },
      respond(round1, { q1: { action: 'accept', content: { confirm: true } } }),
    )) as McpInputRequired;
    expect(Object.values(round2.inputRequests)[0]).toMatchObject({ params: { message: 'Why?' } });
    // A decline needs no content: it reaches the handler.
    const declined = await alice.callToolOrInput(
      'delete_file',
      { path: '/x' },
      {
        input: { requests: round1.inputRequests, responses: { q1: { action: 'decline' } } },
      },
    );
    expect('content' in declined && text(declined)).toBe('kept /x');
  });

  it("E5: a first call's own answer (no state yet, SEP-2322) that breaks the question's schema is not used: the question is asked", async () => {
    const service = await start();
    const alice = await as(service, 'tok-a');
    const asked = (await alice.callToolOrInput(
      'delete_file',
      { path: '/f' },
      {
        input: { requests: {}, responses: { q1: { action: 'accept', content: { confirm: 'sure' } } } },
      },
    )) as McpInputRequired;
    expect(asked.resultType).toBe('input_required');
    expect(Object.values(asked.inputRequests)[0]).toMatchObject({ params: { message: 'Delete /f?' } });
  });

  it("E5: a first call's answer to a later question, sealed unchecked in the state, is still checked when the handler asks it in a later round", async () => {
    const service = await start();
    const alice = await as(service, 'tok-a');
    // q2 ("Why?") answered up front with a number for the string the question will ask; q1 not answered: round 1 asks it.
    const round1 = (await alice.callToolOrInput(
      'delete_file',
      { path: '/u' },
      { input: { requests: {}, responses: { q2: { action: 'accept', content: { reason: 42 } } } } },
    )) as McpInputRequired;
    expect(Object.values(round1.inputRequests)[0]).toMatchObject({ params: { message: 'Delete /u?' } });
    const round2 = await alice.callToolOrInput(
      'delete_file',
      { path: '/u' },
      respond(round1, { q1: { action: 'accept', content: { confirm: true } } }),
    );
    // The handler never sees the wrong answer: q2 is asked.
    expect('content' in round2 && text(round2)).toBe(false);
    expect(Object.values((round2 as McpInputRequired).inputRequests)[0]).toMatchObject({ params: { message: 'Why?' } });
  });

  it("E5: a first call's answers under keys no question asks are not sealed: 100 KB of them neither fail the round nor fill its state", async () => {
    const service = await start();
    const alice = await as(service, 'tok-a');
    const round1 = (await alice.callToolOrInput(
      'delete_file',
      { path: '/j' },
      { input: { requests: {}, responses: { junk: { action: 'accept', content: { pad: 'z'.repeat(100_000) } } } } },
    )) as McpInputRequired;
    expect(round1.resultType).toBe('input_required');
    expect(round1.requestState!.length).toBeLessThan(4096);
  });

  it('E6: a 2026-07-28 tasks/update whose answer breaks the requestedSchema is refused; the task still waits, and a right answer ends it', async () => {
    const tmp = tempDir('agt-answers-');
    closers.push(async () => tmp.cleanup());
    const log = path.join(tmp.dir, 'log');
    const service = await serveHttp(() =>
      createToolServer({ name: 'answer-tasks', version: '1.0.0', tools: taskTools(log), tasks: { pollIntervalMs: 20 } }),
    );
    services.push(service);
    const c = await connectMcp({ url: service.url, protocol: '2026-07-28' }, { elicitation: 'defer', tasks: 'defer' });
    closers.push(() => c.close());
    const started = (await c.callToolOrInput('confirm', { id: 'u' })) as McpTaskStarted;
    expect(started.resultType).toBe('task');
    const taskId = started.task.id;
    let status = await c.getTask(taskId);
    while (status.status === 'working') status = await c.getTask(taskId); // the handler asks at once
    expect(status.status).toBe('input_required');
    const key = Object.keys(status.inputRequests ?? {})[0] as string;
    // Sent raw: the server's own error is what this test reads (the project's client checks its answers first).
    const refused = await modernRequest(service.url, 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { ok: 'yes' } } },
    });
    expect(refused.error?.code).toBe(-32602);
    expect(refused.error?.message).toMatch(new RegExp(`the answer to question "${key}".*"/ok"`));
    expect(refused.error?.message).not.toMatch(/yes/);
    expect((await c.getTask(taskId)).status).toBe('input_required'); // still waiting for a right answer
    // Through the project's client the refusal is the caller's to fix (invalid_input), never task_lost.
    await expect(c.answerTask(taskId, { [key]: { action: 'accept', content: { ok: 'yes' } } })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { reason: 'invalid_answer' },
    });
    expect((await c.getTask(taskId)).status).toBe('input_required');
    await c.answerTask(taskId, { [key]: { action: 'accept', content: { ok: true } } });
    for (status = await c.getTask(taskId); status.status !== 'completed'; status = await c.getTask(taskId))
      expect(['working', 'input_required']).toContain(status.status);
    expect(text(await c.getTaskResult(taskId))).toBe('acted on u');
  });

  for (const [label, script, call] of [
    ['a call', 'test/authoring/fixtures/questions-server.ts', { name: 'delete_file', arguments: { path: '/p' } }],
    ['a task', 'test/authoring/fixtures/task-server.ts', { name: 'confirm', arguments: { id: 'p' }, task: { ttl: 60_000 } }],
  ] as const)
    it(`E5: a 2025 client's answer to a pushed question in ${label} that breaks the requestedSchema ends the call with the tool error invalid_answer`, async () => {
      const server = rawStdio(path.join(REPO_ROOT, script), (request) =>
        request.method === 'elicitation/create' ? { action: 'accept', content: { confirm: 'yes', ok: 'yes' } } : {},
      );
      closers.push(server.close);
      await server.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {}, tasks: { requests: { elicitation: { create: {} } } } },
        clientInfo: { name: 'raw', version: '1' },
      });
      server.notify('notifications/initialized');
      let result = (await server.request('tools/call', call)).result as Record<string, unknown>;
      if ('task' in call) {
        const { taskId } = result.task as { taskId: string };
        result = (await server.request('tasks/result', { taskId })).result as Record<string, unknown>;
      }
      expect(result.isError).toBe(true);
      const failure = JSON.parse((result.content as { text: string }[])[0]!.text) as { error: { code: string; message: string } };
      expect(failure.error.code).toBe('invalid_answer');
      expect(failure.error.message).toMatch(/requestedSchema/);
      expect(failure.error.message).not.toMatch(/yes/);
    }, 60_000);
});

// One 2026-07-28 request over HTTP, its envelope declaring elicitation and the Tasks extension; its JSON-RPC answer.
async function modernRequest(url: string, method: string, params: Record<string, unknown>): Promise<RpcMessage> {
  const capabilities = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    }),
  });
  const body = await response.text();
  const json = body.startsWith('{') ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? '{}');
  return JSON.parse(json) as RpcMessage;
}

interface RpcMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
}

// A kit server process over stdio, spoken to line by line: requests, and the server's own requests answered by `answer`.
function rawStdio(script: string, answer: (request: RpcMessage) => unknown) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<number, (message: RpcMessage) => void>();
  let next = 0;
  const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as RpcMessage;
    if (message.method !== undefined && message.id !== undefined) send({ id: message.id, result: answer(message) });
    else if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  return {
    request: (method: string, params: Record<string, unknown>) =>
      new Promise<RpcMessage>((resolve) => {
        next += 1;
        waiting.set(next, resolve);
        send({ id: next, method, params });
      }),
    notify: (method: string) => send({ method }),
    close: async () => {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
