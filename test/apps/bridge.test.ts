/**
 * The host bridge of agt-mcp/apps against a real ext-apps App (the view's
 * side) over the SDK's in-memory transport, with a fake run: what the app
 * asks reaches the run's methods only (never a connection), and what the app
 * gets of the tool's own call waits for the run (U3, U4, U5).
 */
import { describe, expect, it } from 'vitest';
import { type AppHostRun, type AppHostTool, createAppBridge } from '../../src/apps/index.js';
import { AgtError } from '../../src/errors.js';
import type { BatchResult, PendingCall, ToolResult } from '../../src/runtime/types.js';
import { connectApp } from './app-side.js';

const TOOL = 'tools__py__widget';
const ARGS = { city: 'Oslo' };

/** A call that waits for approval, as run.pending() lists it. */
function waitingCall(batchId: string, callId: string, extra: Partial<PendingCall> = {}): PendingCall {
  return {
    batchId,
    callId,
    tool: TOOL,
    kind: 'mcp',
    mount: 'tools/py',
    remoteTool: 'widget',
    arguments: ARGS,
    deferredAt: new Date(0).toISOString(),
    expiresAt: new Date(0).toISOString(),
    waitingFor: 'approval',
    ...extra,
  } as PendingCall;
}

/** A fake run: records what the bridge asks; calls answer with `answer`; waiting calls end with `end`. */
function fakeRun(options: { tools?: AppHostTool[]; answer?: (tool: string, batchId: string) => BatchResult } = {}) {
  const asked: { tool: string; args: Record<string, unknown>; from: string; batchId: string }[] = [];
  const reads: [string, string][] = [];
  const contexts: [string, unknown][] = [];
  const waiting: PendingCall[] = [];
  const waiters = new Map<string, { resolve(r: ToolResult): void; signal?: AbortSignal }>();
  let waiterAdded: () => void = () => undefined;
  const aborted: string[] = [];
  const run: AppHostRun = {
    tools: () => options.tools ?? [],
    async callFromApp(tool, args, opts) {
      asked.push({ tool, args, from: opts.from, batchId: opts.batchId });
      return (options.answer ?? (() => ({ results: [{ callId: 'c', status: 'ok', content: [] }] })))(tool, opts.batchId);
    },
    awaitCall(batchId, callId, opts = {}) {
      if (!waiting.some((p) => p.batchId === batchId && p.callId === callId))
        return Promise.reject(new AgtError('not_found', 'no such call waits'));
      return new Promise<ToolResult>((resolve, reject) => {
        const key = `${batchId}/${callId}`;
        waiters.set(key, { resolve, ...(opts.signal ? { signal: opts.signal } : {}) });
        opts.signal?.addEventListener('abort', () => {
          aborted.push(key);
          waiters.delete(key);
          reject(new AgtError('cancelled', 'the wait was cancelled'));
        });
        waiterAdded();
      });
    },
    pending: (batchId) => waiting.filter((p) => batchId === undefined || p.batchId === batchId),
    async readResource(mount, uri) {
      reads.push([mount, uri]);
      return { contents: [{ uri, mimeType: 'text/plain', text: `read from ${mount}` }] };
    },
    updateAppContext(from, context) {
      if (JSON.stringify(context).length > 100) throw new AgtError('invalid_input', 'the app context is over its bound');
      contexts.push([from, context]);
    },
  };
  return {
    run,
    asked,
    reads,
    contexts,
    waiting,
    aborted,
    /** Resolves once the bridge waits on a call (run.awaitCall). */
    waiterAdded: () => new Promise<void>((resolve) => (waiterAdded = resolve)),
    /** Ends a waiting call with `result`, as run.decide would. */
    end(batchId: string, callId: string, result: ToolResult) {
      waiting.splice(
        waiting.findIndex((p) => p.batchId === batchId && p.callId === callId),
        1,
      );
      const waiter = waiters.get(`${batchId}/${callId}`);
      waiters.delete(`${batchId}/${callId}`);
      waiter?.resolve(result);
    },
  };
}

describe('createAppBridge: the app side through the run', () => {
  it("U3: an app tool call is a batch of one of the run, from the app's tool, with a fresh batch id; ok maps to a CallToolResult", async () => {
    const fake = fakeRun({
      answer: () => ({
        results: [{ callId: 'c', status: 'ok', content: [{ type: 'text', text: '4' }], structuredContent: { n: 4 }, _meta: { k: 1 } }],
      }),
    });
    const { app } = await connectApp(TOOL, fake.run);
    const one = await app.callServerTool({ name: 'count', arguments: { a: 1 } });
    await app.callServerTool({ name: 'count' });
    expect(one).toEqual({ content: [{ type: 'text', text: '4' }], structuredContent: { n: 4 }, _meta: { k: 1 } });
    expect(fake.asked.map(({ tool, args, from }) => ({ tool, args, from }))).toEqual([
      { tool: 'count', args: { a: 1 }, from: TOOL },
      { tool: 'count', args: {}, from: TOOL },
    ]);
    expect(new Set(fake.asked.map((a) => a.batchId)).size).toBe(2);
  });

  it('U3: a denied call is an error result the app reads, its code first and the message one line', async () => {
    const fake = fakeRun({
      answer: () => ({
        results: [{ callId: 'c', status: 'permission_denied', error: { code: 'permission_denied', message: 'no\n\u001b[31mway' } }],
      }),
    });
    const { app } = await connectApp(TOOL, fake.run);
    expect(await app.callServerTool({ name: 'pay', arguments: {} })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'permission_denied: no\\n\\x1b[31mway' }],
    });
  });

  it('U3: a call the run refuses by throwing is still a result (its code), never a dropped request', async () => {
    const fake = fakeRun({
      answer: () => {
        throw new AgtError('batch_rejected', 'unknown tool', { details: { reason: 'unknown_tool' } });
      },
    });
    const { app } = await connectApp(TOOL, fake.run);
    expect(await app.callServerTool({ name: 'nope', arguments: {} })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'batch_rejected: "nope" is no tool this app may call, or the call is malformed' }],
    });
  });

  it('U3: a call deferred for approval answers the app only once decided; meanwhile the app gets progress', async () => {
    const fake = fakeRun({
      answer: (_tool, batchId) => {
        fake.waiting.push(waitingCall(batchId, 'app-1'));
        return { results: [], pending: fake.waiting.filter((p) => p.batchId === batchId) };
      },
    });
    const { app } = await connectApp(TOOL, fake.run, { progressIntervalMs: 1 });
    const waited = fake.waiterAdded();
    let progressed: () => void = () => undefined;
    const progress = new Promise<void>((resolve) => (progressed = resolve));
    let answered = false;
    const call = app.callServerTool({ name: 'pay', arguments: {} }, { onprogress: () => progressed() }).then((r) => {
      answered = true;
      return r;
    });
    await waited;
    await progress;
    expect(answered).toBe(false);
    const batchId = fake.asked[0]!.batchId;
    fake.end(batchId, 'app-1', { callId: 'app-1', status: 'ok', content: [{ type: 'text', text: 'paid' }] });
    expect(await call).toEqual({ content: [{ type: 'text', text: 'paid' }] });
  });

  it('closing the bridge aborts what it waits for: the run sees the abort and the app call is answered no more', async () => {
    const fake = fakeRun({
      answer: (_tool, batchId) => {
        fake.waiting.push(waitingCall(batchId, 'app-1'));
        return { results: [], pending: fake.waiting.filter((p) => p.batchId === batchId) };
      },
    });
    const { app, bridge } = await connectApp(TOOL, fake.run);
    const waited = fake.waiterAdded();
    const call = app.callServerTool({ name: 'pay', arguments: {} });
    await waited;
    await bridge.close();
    await expect(call).rejects.toThrow();
    expect(fake.aborted).toEqual([`${fake.asked[0]!.batchId}/app-1`]);
  });
});

describe("createAppBridge: the tool's own call (U4)", () => {
  it('U4: a call waiting for approval sends the app nothing; approved, the input then the result', async () => {
    const fake = fakeRun();
    fake.waiting.push(waitingCall('b1', 'w1'));
    const waited = fake.waiterAdded();
    const { seen, seenCount, roundTrip } = await connectApp(TOOL, fake.run, { batchId: 'b1', callId: 'w1' });
    await waited;
    await roundTrip();
    expect(seen).toEqual([]);
    fake.end('b1', 'w1', { callId: 'w1', status: 'ok', content: [{ type: 'text', text: 'sunny' }], structuredContent: { t: 20 } });
    expect(await seenCount(2)).toEqual([
      { kind: 'input', params: { arguments: ARGS } },
      { kind: 'result', params: { content: [{ type: 'text', text: 'sunny' }], structuredContent: { t: 20 } } },
    ]);
  });

  it('U4: a call approved while the app loads (after the bridge was made, before its handshake) still reaches the app', async () => {
    const fake = fakeRun();
    fake.waiting.push(waitingCall('b1', 'w1'));
    const result: ToolResult = { callId: 'w1', status: 'ok', content: [{ type: 'text', text: 'early' }] };
    const { seenCount } = await connectApp(TOOL, fake.run, { batchId: 'b1', callId: 'w1' }, () => fake.end('b1', 'w1', result));
    expect(await seenCount(2)).toEqual([
      { kind: 'input', params: { arguments: ARGS } },
      { kind: 'result', params: { content: [{ type: 'text', text: 'early' }] } },
    ]);
  });

  it('U4: a call denied while the app shows is cancelled for the app, with the reason; its input never sent', async () => {
    const fake = fakeRun();
    fake.waiting.push(waitingCall('b1', 'w1'));
    const waited = fake.waiterAdded();
    const { seenCount } = await connectApp(TOOL, fake.run, { batchId: 'b1', callId: 'w1' });
    await waited;
    fake.end('b1', 'w1', {
      callId: 'w1',
      status: 'permission_denied',
      error: { code: 'permission_denied', message: 'rejected by a person' },
    });
    expect(await seenCount(1)).toEqual([{ kind: 'cancelled', params: { reason: 'permission_denied: rejected by a person' } }]);
  });

  it('U4: a call already permitted (waiting for a task) gets its input at once and its result when it ends', async () => {
    const fake = fakeRun();
    fake.waiting.push(waitingCall('b1', 'w1', { waitingFor: 'task', task: { id: 't', status: 'working' } } as Partial<PendingCall>));
    const { seenCount } = await connectApp(TOOL, fake.run, { batchId: 'b1', callId: 'w1', arguments: { city: 'Bergen' } });
    expect(await seenCount(1)).toEqual([{ kind: 'input', params: { arguments: { city: 'Bergen' } } }]);
    fake.end('b1', 'w1', { callId: 'w1', status: 'ok', content: [] });
    expect((await seenCount(2))[1]).toEqual({ kind: 'result', params: { content: [] } });
  });

  it('U4: a call that already ended: its input and result after the handshake; a failed one only cancelled', async () => {
    const ok = await connectApp(TOOL, fakeRun().run, {
      arguments: ARGS,
      result: { callId: 'w1', status: 'ok', content: [{ type: 'text', text: 'x' }] },
    });
    expect(await ok.seenCount(2)).toEqual([
      { kind: 'input', params: { arguments: ARGS } },
      { kind: 'result', params: { content: [{ type: 'text', text: 'x' }] } },
    ]);
    const failed = await connectApp(TOOL, fakeRun().run, {
      arguments: ARGS,
      result: { callId: 'w1', status: 'invalid_arguments', error: { code: 'invalid_arguments', message: 'city: required' } },
    });
    expect(await failed.seenCount(1)).toEqual([{ kind: 'cancelled', params: { reason: 'invalid_arguments: city: required' } }]);
  });

  it('closing the bridge while the call waits ends the wait; nothing is sent after', async () => {
    const fake = fakeRun();
    fake.waiting.push(waitingCall('b1', 'w1'));
    const waited = fake.waiterAdded();
    const { bridge, seen } = await connectApp(TOOL, fake.run, { batchId: 'b1', callId: 'w1' });
    await waited;
    await bridge.close();
    expect(fake.aborted).toEqual(['b1/w1']);
    expect(seen).toEqual([]);
  });
});

describe('createAppBridge: resources, tools, links, context and messages', () => {
  const tools: AppHostTool[] = [
    { name: TOOL, inputSchema: { type: 'object' }, app: { resourceUri: 'ui://py/widget' }, mount: 'tools/py', remoteTool: 'widget' },
    {
      name: 'tools__py__refresh',
      inputSchema: { type: 'object' },
      _meta: { ui: { visibility: ['app'] } },
      mount: 'tools/py',
      remoteTool: 'refresh',
    },
    {
      name: 'tools__py__secret',
      inputSchema: { type: 'object' },
      _meta: { ui: { visibility: ['model'] } },
      mount: 'tools/py',
      remoteTool: 'secret',
    },
    { name: 'tools__other__add', inputSchema: { type: 'object' }, mount: 'tools/other', remoteTool: 'add' },
    { name: 'skill_read', inputSchema: { type: 'object' } },
  ];

  it("resources/read goes to the run, on the mount of the app's tool only", async () => {
    const fake = fakeRun({ tools });
    const { app } = await connectApp(TOOL, fake.run);
    expect(await app.readServerResource({ uri: 'data://py/rows' })).toEqual({
      contents: [{ uri: 'data://py/rows', mimeType: 'text/plain', text: 'read from tools/py' }],
    });
    expect(fake.reads).toEqual([['tools/py', 'data://py/rows']]);
  });

  it('resources/read takes the mount the run named for the rendered call; with none known it is an error the app reads', async () => {
    const fake = fakeRun();
    fake.waiting.push(waitingCall('b1', 'w1', { mount: 'tools/named' }));
    const named = await connectApp(TOOL, fake.run, { batchId: 'b1', callId: 'w1' });
    await named.app.readServerResource({ uri: 'data://x' });
    expect(fake.reads).toEqual([['tools/named', 'data://x']]);
    const unknown = await connectApp(TOOL, fakeRun().run);
    await expect(unknown.app.readServerResource({ uri: 'data://\u001bx' })).rejects.toThrow(
      /cannot read "data:\/\/\\x1bx": it does not know the server of this app's tool/,
    );
  });

  it("tools/list: its server's tools the app may call, by the server's own names (model-only and other servers' left out)", async () => {
    const { app } = await connectApp(TOOL, fakeRun({ tools }).run);
    const listed = await app.request({ method: 'tools/list', params: {} });
    expect(listed.tools.map((t) => t.name)).toEqual(['widget', 'refresh']);
  });

  it('tools/list, where the run names no mounts: the tool and those sharing its interface, visible to the app', async () => {
    const bare = tools.map(({ mount: _m, remoteTool: _r, ...t }) => t);
    bare.push({
      name: 'tools__py__panel',
      inputSchema: { type: 'object' },
      _meta: { ui: { resourceUri: 'ui://py/widget', visibility: ['app'] } },
    });
    bare.push({
      name: 'tools__py__hidden',
      inputSchema: { type: 'object' },
      _meta: { ui: { resourceUri: 'ui://py/widget', visibility: ['model'] } },
    });
    const { app } = await connectApp(TOOL, fakeRun({ tools: bare }).run);
    const listed = await app.request({ method: 'tools/list', params: {} });
    expect(listed.tools.map((t) => t.name)).toEqual([TOOL, 'tools__py__panel']);
  });

  it('open-link: http and https only (javascript:, data:, credentials refused), normalized, to the host callback', async () => {
    const opened: string[] = [];
    const { app } = await connectApp(TOOL, fakeRun().run, { onOpenLink: (url) => void opened.push(url) });
    expect(app.getHostCapabilities()?.openLinks).toEqual({});
    expect(await app.openLink({ url: 'javascript:alert(1)' })).toEqual({ isError: true });
    expect(await app.openLink({ url: 'data:text/html,<script>1</script>' })).toEqual({ isError: true });
    expect(await app.openLink({ url: 'https://bank.example@evil.example/' })).toEqual({ isError: true });
    expect(await app.openLink({ url: 'not a url' })).toEqual({ isError: true });
    expect(await app.openLink({ url: 'HTTPS://Example.COM/a b' })).toEqual({});
    expect(opened).toEqual(['https://example.com/a%20b']);
    const none = await connectApp(TOOL, fakeRun().run);
    expect(none.app.getHostCapabilities()?.openLinks).toBeUndefined();
    expect(await none.app.openLink({ url: 'https://example.com/' })).toEqual({ isError: true });
  });

  it("U5: update-model-context is kept by the run for the app's tool, then told to the host; over its bound the app reads the error", async () => {
    const fake = fakeRun();
    const told: unknown[] = [];
    const { app } = await connectApp(TOOL, fake.run, { onModelContext: (c) => void told.push(c) });
    const context = { content: [{ type: 'text' as const, text: 'row 3 selected' }], structuredContent: { row: 3 } };
    expect(await app.updateModelContext(context)).toEqual({});
    expect(fake.contexts).toEqual([[TOOL, context]]);
    expect(told).toEqual([context]);
    await expect(app.updateModelContext({ content: [{ type: 'text', text: 'x'.repeat(200) }] })).rejects.toThrow(/over its bound/);
    expect(told).toHaveLength(1);
  });

  it('ui/message goes to onMessage; without one the app is told the host takes no messages; host info and context reach the app', async () => {
    const messages: unknown[] = [];
    const { app } = await connectApp(TOOL, fakeRun().run, { onMessage: (m) => void messages.push(m) });
    const message = { role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] };
    expect(await app.sendMessage(message)).toEqual({});
    expect(messages).toEqual([message]);
    const none = await connectApp(TOOL, fakeRun().run, { hostInfo: { name: 'my-host', version: '2.0.0' }, hostContext: { theme: 'dark' } });
    expect(none.app.getHostCapabilities()?.message).toBeUndefined();
    expect(none.app.getHostVersion()).toEqual({ name: 'my-host', version: '2.0.0' });
    expect(none.app.getHostContext()).toEqual({ theme: 'dark' });
    expect((await connectApp(TOOL, fakeRun().run)).app.getHostVersion()).toEqual({ name: 'agt-mcp', version: expect.any(String) });
    await expect(none.app.sendMessage(message)).rejects.toThrow(/the host takes no messages/);
  });

  it('size changes go to onSizeChange', async () => {
    let resized: (size: unknown) => void = () => undefined;
    const size = new Promise((resolve) => (resized = resolve));
    const { app } = await connectApp(TOOL, fakeRun().run, { onSizeChange: (s) => resized(s) });
    await app.sendSizeChanged({ width: 300, height: 120 });
    expect(await size).toEqual({ width: 300, height: 120 });
  });

  it('refuses a missing tool or a bad progress interval', () => {
    const { run } = fakeRun();
    expect(() => createAppBridge(run, { tool: '' })).toThrow(/tool must be/);
    expect(() => createAppBridge(run, { tool: TOOL, progressIntervalMs: -1 })).toThrow(/progressIntervalMs/);
  });
});
