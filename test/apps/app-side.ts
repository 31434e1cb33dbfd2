/** The app's side of a bridge in tests: a real ext-apps App over the SDK's in-memory transport, recording what it is sent. */
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { App } from '@modelcontextprotocol/ext-apps';
import { afterEach } from 'vitest';
import { type AppBridgeOptions, type AppHostRun, createAppBridge } from '../../src/apps/index.js';

export type Seen = { kind: 'input' | 'result' | 'cancelled'; params: unknown };
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const side of open.splice(0)) await side.close();
});

/** A bridge for `run` connected to a real App (`beforeConnect` runs between the two); `seen`: what the app was sent of the tool's call, in order. */
export async function connectApp(tool: string, run: AppHostRun, options: Partial<AppBridgeOptions> = {}, beforeConnect?: () => void) {
  const [appSide, hostSide] = InMemoryTransport.createLinkedPair();
  const bridge = createAppBridge(run, { tool, ...options });
  const app = new App({ name: 'test-app', version: '1.0.0' }, {}, { autoResize: false });
  open.push(app, bridge);
  const seen: Seen[] = [];
  let notify: () => void = () => undefined;
  const record = (kind: Seen['kind']) => (params: unknown) => {
    seen.push({ kind, params });
    notify();
  };
  app.ontoolinput = record('input');
  app.ontoolresult = record('result');
  app.ontoolcancelled = record('cancelled');
  beforeConnect?.();
  await bridge.connect(hostSide);
  await app.connect(appSide);
  /** Resolves once the app has seen `n` notifications of the tool's call. */
  const seenCount = (n: number) =>
    new Promise<Seen[]>((resolve) => {
      notify = () => seen.length >= n && resolve(seen);
      notify();
    });
  /** A round trip to the bridge and back: what it sent before answering has arrived. */
  const roundTrip = () => app.request({ method: 'ping' });
  return { bridge, app, seen, seenCount, roundTrip };
}
