/**
 * A web host that renders MCP Apps, in one file: `npx tsx examples/apps-host/host.ts`
 * (then open the URL it prints). It runs one agent step with a fake model that
 * calls the counter's `show_counter`, and renders that tool's interface as the
 * MCP Apps spec asks of a web host: a frame on a second origin (the sandbox,
 * another loopback port) whose page carries the app's CSP as an HTTP header,
 * and the app inside it in a frame of its own. Every message of the app comes
 * back here (POST /bridge; answers on GET /bridge/events) to an app bridge of
 * agt-mcp: the app's `tools/call` of `increment` is a call of the run — the
 * approval policy below makes it wait until a person approves it on the page
 * (GET /pending, POST /decide) — and is audited as the app's.
 *
 *   host origin:    GET /  GET /app  POST /bridge  GET /bridge/events  GET /pending  POST /decide
 *   sandbox origin: GET /sandbox (Content-Security-Policy: appCspHeader(resource.csp))
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AuditSink,
  executeModelCalls,
  type McpServerConfig,
  MemoryStore,
  NativeRun,
  policies,
  ResourceService,
  toolAlias,
} from 'agt-mcp';
import { appAllowAttribute, appCspHeader, createAppBridge } from 'agt-mcp/apps';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A running apps host. */
export interface AppsHost {
  /** The page to open (host origin). */
  hostUrl: string;
  /** The sandbox origin (another port). */
  sandboxUrl: string;
  run: NativeRun;
  close(): Promise<void>;
}

/** The counter server of this folder, run with tsx (in the repository, agt-mcp resolves to its sources). */
export function counterServerConfig(): McpServerConfig {
  const tsconfig = path.join(here, '..', '..', 'tsconfig.json');
  return {
    command: process.execPath,
    args: ['--import', 'tsx', path.join(here, 'counter-server.ts')],
    cwd: here,
    ...(fs.existsSync(tsconfig) ? { env: { TSX_TSCONFIG_PATH: tsconfig } } : {}),
  };
}

type Bridge = ReturnType<typeof createAppBridge>;
type BridgeTransport = Parameters<Bridge['connect']>[0];
type Message = Parameters<BridgeTransport['send']>[0];

/**
 * The bridge's transport to the browser: messages from the app arrive by POST (`receive`), messages to it
 * leave as Server-Sent Events (kept until the page listens).
 */
class BrowserTransport implements BridgeTransport {
  onmessage?: BridgeTransport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #page: http.ServerResponse | undefined;
  #queue: Message[] = [];
  async start(): Promise<void> {}
  async send(message: Message): Promise<void> {
    if (this.#page === undefined) this.#queue.push(message);
    else this.#page.write(`data: ${JSON.stringify(message)}\n\n`);
  }
  async close(): Promise<void> {
    this.#page?.end();
    this.onclose?.();
  }
  listen(page: http.ServerResponse): void {
    this.#page?.end();
    this.#page = page.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    page.on('close', () => this.#page === page && (this.#page = undefined)); // a reloaded page: keep messages for the next
    for (const message of this.#queue.splice(0)) void this.send(message);
  }
  receive(message: Message): void {
    this.onmessage?.(message);
  }
}

const listen = async (server: http.Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const page = (file: string, values: Record<string, string>) =>
  Object.entries(values).reduce(
    (html, [key, value]) => html.replaceAll(`__${key}__`, value),
    fs.readFileSync(path.join(here, file), 'utf8'),
  );
const MAX_BODY_BYTES = 4 * 1024 * 1024;
async function body(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('the body is too large'); // a flood is refused, never kept whole
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Whether the host page itself asks: on the host's own name (a DNS-rebound name is refused), from the same origin as
 * the browser tells it (Sec-Fetch-Site; Origin, which every POST carries). GET / may be opened from anywhere.
 */
function fromHostPage(req: http.IncomingMessage, hostUrl: string): boolean {
  if (req.headers.host !== new URL(hostUrl).host) return false;
  if (req.method === 'GET' && req.url === '/') return true;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false; // an <img>, a form or a script of another site
  const origin = req.headers.origin;
  return req.method === 'GET' ? origin === undefined || origin === hostUrl : origin === hostUrl;
}
const json = (res: http.ServerResponse, status: number, value: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

/**
 * Starts the host: the run and its step, then the two servers on loopback (ephemeral ports). `server`: the
 * counter server's config (default counterServerConfig()); `audit`: where the run's audit events go.
 */
export async function startAppsHost(options: { server?: McpServerConfig; audit?: AuditSink } = {}): Promise<AppsHost> {
  const service = new ResourceService({ store: new MemoryStore() });
  const counter = options.server ?? counterServerConfig();
  await service.write({ kind: 'mcp', reference: 'apps/counter', create: true, data: { mcpServers: { counter } } });
  await service.write({ kind: 'agent', reference: 'apps/assistant', create: true, data: { mcps: ['apps/counter'] } });
  const run = await NativeRun.start({
    agent: 'apps/assistant',
    service,
    apps: true, // declares MCP Apps: tools say which have an interface
    ...(options.audit === undefined ? {} : { audit: options.audit }),
    policy: policies.chain(
      policies.approval((request) => request.remoteTool === 'increment', 'the counter changes only with your approval'),
      policies.autoAllow('*'),
    ),
  });
  try {
    // The fake model's step: one call of show_counter (a real host asks its model; see examples/host.ts).
    const call = { callId: 'call_1', name: toolAlias('apps/counter', 'show_counter'), arguments: {} };
    const step = await executeModelCalls(run, [call], { batchId: 'step-1' });
    const result = step.results[0];
    if (result?.status !== 'ok' || result.app === undefined)
      throw new Error(`show_counter gave no interface to render (status ${result?.status ?? 'none'})`);
    // The interface, read from the tool's own server and checked (mime type, size, CSP and permissions).
    const resource = await run.readApp(call.name);
    const allow = appAllowAttribute(resource.permissions);

    const transport = new BrowserTransport();
    const bridge = createAppBridge(run, { tool: call.name, batchId: 'step-1', callId: call.callId, arguments: call.arguments, result });
    await bridge.connect(transport);

    const sandbox = http.createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/sandbox') return json(res, 404, { error: 'only /sandbox is served here' });
      res
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': appCspHeader(resource.csp), // a header: the app cannot change it
          'cache-control': 'no-store',
        })
        .end(page('sandbox.html', { HOST_ORIGIN: hostUrl, ALLOW: allow }));
    });
    const host = http.createServer((req, res) => {
      const route = `${req.method} ${req.url}`;
      // The bridge, the app, the events and the approvals answer the host page only (another site can neither post
      // here nor take the bridge's event stream), and the page is never framed by another (a hidden Approve button).
      if (!fromHostPage(req, hostUrl)) return json(res, 403, { error: 'not the host page' });
      if (route === 'GET /')
        return res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "frame-ancestors 'none'" })
          .end(page('host.html', { SANDBOX_ORIGIN: sandboxUrl, ALLOW: allow }));
      if (route === 'GET /app')
        return json(res, 200, { tool: call.name, html: resource.html, csp: resource.csp ?? {}, permissions: resource.permissions ?? {} });
      if (route === 'GET /bridge/events') return transport.listen(res);
      if (route === 'GET /pending') return json(res, 200, run.pending());
      if (route === 'POST /bridge')
        return void body(req).then(
          (message) => (transport.receive(message as Message), json(res, 202, {})),
          () => json(res, 400, {}),
        );
      if (route === 'POST /decide')
        return void body(req)
          .then((d) => {
            const { batchId, callId } = d as { batchId: string; callId: string };
            return run.decide(batchId, { [callId]: { approve: true } });
          })
          .then(
            () => json(res, 200, {}),
            (error: Error) => json(res, 400, { error: error.message }),
          );
      json(res, 404, { error: 'no such route' });
    });
    const hostUrl = await listen(host);
    const sandboxUrl = await listen(sandbox);
    return {
      hostUrl,
      sandboxUrl,
      run,
      async close() {
        await bridge.close(); // closes the transport: what the app's calls wait for ends
        host.closeAllConnections();
        sandbox.closeAllConnections();
        await Promise.all([new Promise((resolve) => host.close(resolve)), new Promise((resolve) => sandbox.close(resolve))]);
        await run.close();
      },
    };
  } catch (error) {
    await run.close();
    throw error;
  }
}

// Run directly: start, print the page's URL, stop on Ctrl+C.
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const apps = await startAppsHost();
  console.log(`apps host: open ${apps.hostUrl} (sandbox ${apps.sandboxUrl}); Ctrl+C stops`);
  process.once('SIGINT', () => void apps.close());
}
