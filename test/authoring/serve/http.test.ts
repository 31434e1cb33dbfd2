/**
 * serveHttp and caller identity: one server per session, sessions
 * bound to who opened them, DNS-rebinding protection, bearer authentication
 * whose identity reaches handlers — and on stdio the process owner — never the
 * request's own `_meta.caller` (C4).
 */
import os from 'node:os';
import path from 'node:path';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolServer, defineTool, type HttpToolService, serveHttp } from '../../../src/authoring/index.js';
import { connectMcp } from '../../../src/index.js';
import { REPO_ROOT } from '../../support/index.js';

const services: HttpToolService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

let servers = 0;
const whoami = defineTool({
  name: 'whoami',
  description: 'The caller as the server sees it, and which server instance answered.',
  input: v.object({}),
  handler: (_input, { caller, meta }) => ({ caller: caller ?? null, claimed: meta.caller ?? null }),
});

async function start(auth?: Record<string, string>) {
  const service = await serveHttp(
    () => {
      servers += 1;
      return createToolServer({ name: 'http-kit', version: '1.0.0', tools: [whoami] });
    },
    auth ? { auth: { verify: (token) => (auth[token] ? { token, clientId: auth[token], scopes: ['s'] } : undefined) } } : {},
  );
  services.push(service);
  return service;
}

const post = (url: string, headers: Record<string, string>, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('serveHttp', () => {
  it('C4: each client gets its own session and server instance; close() ends them all', async () => {
    const service = await start();
    const before = servers;
    // The kit serves the 2025 era: pinned, so no server/discover probe builds (and drops) an instance of its own.
    const a = await connectMcp({ url: service.url, protocol: 'legacy' });
    const b = await connectMcp({ url: service.url, protocol: 'legacy' });
    expect((await a.callTool('whoami', {})).structuredContent).toEqual({ caller: null, claimed: null }); // anonymous: no caller
    expect((await b.callTool('whoami', {})).structuredContent).toEqual({ caller: null, claimed: null });
    expect(servers - before).toBe(2);
    expect(service.sessions()).toBe(2);
    await service.close();
    expect(service.sessions()).toBe(0);
    await a.close();
    await b.close();
  });

  it('C4: the bearer token is the caller; a forged _meta.caller is only a claim; a session is found only by who opened it', async () => {
    const service = await start({ 'tok-a': 'alice', 'tok-m': 'mallory' });
    const mallory = await connectMcp({ url: service.url, headers: { Authorization: 'Bearer tok-m' } });
    const seen = (await mallory.callTool('whoami', {})).structuredContent as { caller: { id: string; via: string; scopes: string[] } };
    expect(seen.caller).toEqual({ id: 'mallory', via: 'auth', scopes: ['s'] });
    const opened = await post(service.url, { authorization: 'Bearer tok-a' }, initialize);
    const session = opened.headers.get('mcp-session-id') as string;
    expect(opened.status).toBe(200);
    const hijack = await post(
      service.url,
      { authorization: 'Bearer tok-m', 'mcp-session-id': session },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    );
    expect(hijack.status).toBe(404); // alice's session does not exist for mallory
    expect((await post(service.url, {}, initialize)).status).toBe(401);
    await mallory.close();
  });

  it('C4: DNS rebinding: a Host or Origin that does not name the server is refused (403); an unknown path is 404', async () => {
    const service = await start();
    const port = new URL(service.url).port;
    const raw = (headers: Record<string, string>, at = '/mcp') =>
      new Promise<number>((resolve, reject) => {
        import('node:http').then(({ request }) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: at,
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end(JSON.stringify(initialize));
        }, reject);
      });
    expect(await raw({ host: 'evil.example:80' })).toBe(403);
    expect(await raw({ host: `localhost:${port}`, origin: 'http://evil.example' })).toBe(403);
    expect(await raw({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(200);
    expect(await raw({ host: `127.0.0.1:${port}` }, '/elsewhere')).toBe(404);
  });
});

describe('caller identity on stdio', () => {
  it('C4: on stdio the caller is the process owner, whatever the request claims', async () => {
    const connection = await connectMcp({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(REPO_ROOT, 'test/authoring/fixtures/bounded-server.ts')],
      cwd: REPO_ROOT,
    });
    try {
      const out = (await connection.callTool('whoami', {})).structuredContent as { caller: unknown };
      expect(out.caller).toEqual({ id: os.userInfo().username, via: 'process', scopes: [] });
    } finally {
      await connection.close();
    }
  });
});

describe('resumable streams (SEP-1699)', () => {
  it('C4: a tool that closes its SSE stream mid-call still delivers its result: the client reconnects and the event store replays it', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const closes = defineTool({
      name: 'closes',
      description: 'Closes its stream, then answers.',
      input: v.object({}),
      handler: async (_input, { closeStream, progress }) => {
        await progress(1, { total: 2 });
        closeStream();
        await new Promise((resolve) => setTimeout(resolve, 50));
        return 'after the reconnect';
      },
    });
    const service = await serveHttp(() => createToolServer({ name: 'resume', version: '1.0.0', tools: [closes] }), {
      resumable: { retryMs: 10 },
    });
    services.push(service);
    const resumed: string[] = [];
    const watching: typeof fetch = (input, init) => {
      const lastEventId = new Headers(init?.headers).get('last-event-id');
      if (lastEventId !== null) resumed.push(lastEventId);
      return fetch(input, init);
    };
    const client = new Client({ name: 't', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(service.url), { fetch: watching }));
    const result = await client.callTool({ name: 'closes', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'after the reconnect' }]);
    expect(resumed).toHaveLength(1); // the stream was closed, and the client came back with its Last-Event-ID
    await client.close();
  });
});
