import { InMemoryTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createAppBridge } from '../../src/apps/index.js';
import { py, runFixture } from '../support/index.js';

const fx = runFixture(['apps']);
const WIDGET = py('widget');

async function raw(run: Parameters<typeof createAppBridge>[0], options = {}) {
  const [appSide, hostSide] = InMemoryTransport.createLinkedPair();
  const bridge = createAppBridge(run, { tool: WIDGET, ...options });
  const got = new Map<unknown, unknown>();
  const waiters = new Map<unknown, (m: unknown) => void>();
  appSide.onmessage = (m: any) => {
    if ('id' in m && !('method' in m)) { got.set(m.id, m); waiters.get(m.id)?.(m); }
  };
  await bridge.connect(hostSide);
  await appSide.start();
  let id = 0;
  const send = (text: string) => {
    const m = JSON.parse(text);
    const n = ++id; m.id = n; m.jsonrpc = '2.0';
    const p = new Promise((r) => waiters.set(n, r));
    void appSide.send(m);
    return p as Promise<any>;
  };
  return { bridge, appSide, send };
}

describe('explore', () => {
  it('x', async () => {
    const run = await fx.start({ apps: true, policy: { review: async (req: any) => (req.arguments.safe === true ? { decision: 'allow', by: 'policy' } : { decision: 'deny', by: 'policy', reason: 'unsafe' }) } } as any);
    const seen: unknown[] = [];
    const host = { ...run, tools: (o: any) => run.tools(o), pending: (b: any) => run.pending(b), readResource: run.readResource.bind(run), updateAppContext: run.updateAppContext.bind(run), awaitCall: run.awaitCall.bind(run),
      callFromApp: (t: string, a: any, o: any) => { seen.push([Object.getPrototypeOf(a) === Object.prototype, JSON.stringify(a), a.safe]); return run.callFromApp(t, a, o); } };
    const { send } = await raw(host as any);
    console.log(JSON.stringify(await send('{"method":"tools/call","params":{"name":"tally","arguments":{"n":1,"__proto__":{"safe":true}}}}')));
    console.log(JSON.stringify(await send('{"method":"tools/call","params":{"name":"tally","arguments":{"n":1}}}')));
    console.log(seen, fx.env.calls());
  });
});
