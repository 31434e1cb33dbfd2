/**
 * The host bridge over a real NativeRun on the Python fixture server (its
 * `apps` feature: `widget` with an interface, `app_only`, `model_only`,
 * `tally`), with a real ext-apps App on the other side: what the app asks is
 * a call of the run (U3), the tool's own call reaches the app only once
 * permitted (U4), and the app's context reaches the model's next step (U5).
 */
import { describe, expect, it } from 'vitest';
import { type AppHostRun } from '../../src/apps/index.js';
import { type NativeRun, policies } from '../../src/index.js';
import { batch, py, runFixture } from '../support/index.js';
import { connectApp } from './app-side.js';

const fx = runFixture(['apps']);
const WIDGET = py('widget');

/** `run` as the bridge sees it, telling when the bridge starts to wait on a call (run.awaitCall). */
function watched(run: NativeRun) {
  let waiting: () => void = () => undefined;
  const host: AppHostRun = {
    tools: (options) => run.tools(options),
    callFromApp: (tool, args, options) => run.callFromApp(tool, args, options),
    awaitCall: (batchId, callId, options) => {
      const wait = run.awaitCall(batchId, callId, options);
      waiting();
      return wait;
    },
    pending: (batchId) => run.pending(batchId),
    readResource: (mount, uri, options) => run.readResource(mount, uri, options),
    updateAppContext: (from, context) => run.updateAppContext(from, context),
  };
  return { host, nextWait: () => new Promise<void>((resolve) => (waiting = resolve)) };
}

describe('createAppBridge over a NativeRun', () => {
  it('U3: under a deny policy the app reads permission_denied and the tool never runs; a model-only tool is refused to it', async () => {
    const run = await fx.start({ apps: true, policy: policies.chain(policies.deny(py('tally')), policies.autoAllow('*')) });
    const { app } = await connectApp(WIDGET, run);
    const denied = await app.callServerTool({ name: 'tally', arguments: { n: 1 } });
    expect(denied).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^permission_denied: /) }] });
    const modelOnly = await app.callServerTool({ name: 'model_only', arguments: {} });
    expect(modelOnly).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^permission_denied: /) }] });
    expect(await app.callServerTool({ name: 'app_only', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'app_only' }] });
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['app_only']);
  });

  it("U3, U4: under an approval policy the app's call resolves only after run.decide approves it, and runs once", async () => {
    const run = await fx.start({ apps: true, policy: policies.chain(policies.approval(py('tally')), policies.autoAllow('*')) });
    const { host, nextWait } = watched(run);
    const { app } = await connectApp(WIDGET, host);
    const waits = nextWait();
    let answered = false;
    const call = app.callServerTool({ name: 'tally', arguments: { n: 2 } }).finally(() => (answered = true));
    await waits;
    const [waiting] = run.pending();
    expect(waiting).toMatchObject({ tool: py('tally'), waitingFor: 'approval', arguments: { n: 2 } });
    expect(answered).toBe(false);
    expect(fx.env.calls()).toEqual([]);
    await run.decide(waiting!.batchId, { [waiting!.callId]: { approve: true } });
    expect(await call).toMatchObject({ content: [{ type: 'text', text: '3' }] });
    expect(fx.env.calls()).toEqual([{ tool: 'tally', arguments: { n: 2 } }]);
  });

  it("U4: the tool's own call waits for approval: the app gets nothing until run.decide approves, then input and result", async () => {
    const run = await fx.start({ apps: true, policy: policies.chain(policies.approval(WIDGET), policies.autoAllow('*')) });
    const step = batch(run, [{ callId: 'w', name: WIDGET, arguments: {} }]);
    expect((await run.executeBatch(step)).pending).toHaveLength(1);
    const { host, nextWait } = watched(run);
    const waits = nextWait();
    const { app, seen, seenCount, roundTrip } = await connectApp(WIDGET, host, { batchId: step.batchId, callId: 'w' });
    await waits;
    await roundTrip();
    expect(seen).toEqual([]);
    expect(fx.env.calls()).toEqual([]);
    // The app reads its own server's resources meanwhile (the mount the run named for the waiting call).
    const html = await app.readServerResource({ uri: 'ui://fixture/widget' });
    expect(html.contents[0]).toMatchObject({ uri: 'ui://fixture/widget', mimeType: 'text/html;profile=mcp-app' });
    await run.decide(step.batchId, { w: { approve: true } });
    expect(await seenCount(2)).toEqual([
      { kind: 'input', params: { arguments: {} } },
      { kind: 'result', params: { content: [{ type: 'text', text: 'widget' }], _meta: { ui: { state: 'widget' } } } },
    ]);
  });

  it("U4: the tool's own call rejected: the app is told it was cancelled, never its input", async () => {
    const run = await fx.start({ apps: true, policy: policies.chain(policies.approval(WIDGET), policies.autoAllow('*')) });
    const step = batch(run, [{ callId: 'w', name: WIDGET, arguments: {} }]);
    await run.executeBatch(step);
    const { host, nextWait } = watched(run);
    const waits = nextWait();
    const { seenCount } = await connectApp(WIDGET, host, { batchId: step.batchId, callId: 'w' });
    await waits;
    await run.decide(step.batchId, { w: { approve: false, reason: 'not now' } });
    expect(await seenCount(1)).toEqual([{ kind: 'cancelled', params: { reason: expect.stringMatching(/^permission_denied: .*not now/) } }]);
  });

  it("tools/list: the app's server's tools it may call (never a model-only one), each callable by the name listed", async () => {
    const run = await fx.start({ apps: true });
    const { app } = await connectApp(WIDGET, run);
    const names = (await app.request({ method: 'tools/list', params: {} })).tools.map((t) => t.name);
    const own = (name: string) => (n: string) => n === name || n === py(name);
    expect(names.some(own('widget')) && names.some(own('app_only'))).toBe(true);
    expect(names.some(own('model_only'))).toBe(false);
    expect(await app.callServerTool({ name: names.find(own('app_only'))!, arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'app_only' }],
    });
  });

  it('U5: update-model-context reaches run.takeAppContext() for the next step; an open-link to javascript: is refused', async () => {
    const run = await fx.start({ apps: true });
    const opened: string[] = [];
    const { app } = await connectApp(WIDGET, run, { onOpenLink: (url) => void opened.push(url) });
    await app.updateModelContext({ content: [{ type: 'text', text: 'the user picked row 3' }] });
    const context = run.takeAppContext();
    expect(context).toContain('the user picked row 3');
    expect(context).toContain(WIDGET);
    expect(run.takeAppContext()).toBeUndefined();
    expect(await app.openLink({ url: 'javascript:alert(document.cookie)' })).toEqual({ isError: true });
    expect(opened).toEqual([]);
  });
});
