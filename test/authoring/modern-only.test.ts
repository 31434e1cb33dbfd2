/**
 * A kit service of the 2026-07-28 era only: `eras:
 * ['modern']` on serveHttp and serveStdio. A 2025 `initialize` is refused
 * with the SDK's unsupported-version error naming 2026-07-28 (no session is
 * opened), a modern client lists and calls, and a client pinned to the 2025
 * era is told the server does not offer it (E1). The official runner's
 * 2026-07-28 server scenarios against such a service run in
 * conformance-2026.test.ts.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpToolService, serveHttp, serveStdio } from '../../src/authoring/index.js';
import { connectMcp, isAgtError } from '../../src/index.js';
import { failure, REPO_ROOT, runAgt, tempDir } from '../support/index.js';
import { addKit } from './fixtures/add-tool.js';

const kit = () => addKit();
const services: HttpToolService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

const initialize = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    }),
  });

describe('E5: a kit service of the 2026-07-28 era only', () => {
  it('E5: over HTTP, a 2025 initialize is refused naming 2026-07-28 and opens no session; a modern client calls', async () => {
    const service = await serveHttp(kit, { eras: ['2026-07-28'] }); // API.md's spelling; ['modern'] is the same (below)
    services.push(service);
    const refused = await initialize(service.url);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    const text = await refused.text();
    expect(text).toMatch(/"error"/);
    expect(text).toMatch(/2026-07-28/);
    expect(service.sessions()).toBe(0);
    const modern = await connectMcp({ url: service.url });
    try {
      expect(modern.era).toBe('modern');
      expect((await modern.callTool('add', { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
    } finally {
      await modern.close();
    }
    expect(await failure(connectMcp({ url: service.url, protocol: 'legacy' }))).toMatchObject({ code: 'protocol_mismatch' });
  });

  it('P2: agt mcp probe of a 2026-07-28 server labels its handshake server/discover and times a server/discover as its ping', async () => {
    const service = await serveHttp(kit, { eras: ['modern'] });
    services.push(service);
    const tmp = tempDir('agt-modern-probe-');
    try {
      const db = path.join(tmp.dir, 'agt.db');
      expect((await runAgt(['mcp', 'add', 'modern', '--url', service.url], { home: tmp.dir, db })).code).toBe(0);
      const probe = await runAgt(['mcp', 'probe', 'modern'], { home: tmp.dir, db });
      expect(probe.code).toBe(0);
      expect(probe.stdout).toMatch(/MCP 2026-07-28 \(server\/discover\)/);
      expect(probe.stdout).toMatch(
        /timings: spawn \d+ ms, server\/discover \d+ ms, tools\/list \d+ ms, close \d+ ms, ping \(a server\/discover; 2026-07-28 has no ping\) \d+ ms/,
      );
    } finally {
      tmp.cleanup();
    }
  });

  it('E5: both eras stay the default: the same service without eras opens a 2025 session', async () => {
    const service = await serveHttp(kit);
    services.push(service);
    const opened = await initialize(service.url);
    expect(opened.headers.get('mcp-session-id')).toEqual(expect.any(String));
    expect(service.sessions()).toBe(1);
  });

  it("E5: eras: ['2025-11-25', '2026-07-28'] (API.md's spelling of both) serves both, as ['legacy', 'modern'] does", async () => {
    for (const eras of [
      ['2025-11-25', '2026-07-28'],
      ['legacy', 'modern'],
    ] as const) {
      const service = await serveHttp(kit, { eras });
      services.push(service);
      expect((await initialize(service.url)).headers.get('mcp-session-id')).toEqual(expect.any(String));
    }
  });

  it('E5: over stdio, a server of the modern era only: a client pinned to 2025 gets protocol_mismatch; auto negotiation calls', async () => {
    const server = {
      command: process.execPath,
      args: ['--import', 'tsx', path.join(REPO_ROOT, 'test/authoring/fixtures/modern-only-server.ts')],
      cwd: REPO_ROOT,
    };
    const legacy = await failure(connectMcp({ ...server, protocol: 'legacy' }, { timeouts: { handshakeMs: 20_000 } }));
    expect(legacy.code).toBe('protocol_mismatch');
    const modern = await connectMcp(server, { timeouts: { handshakeMs: 20_000 } });
    try {
      expect(modern.era).toBe('modern');
      expect((await modern.callTool('add', { a: 1, b: 1 })).structuredContent).toEqual({ sum: 2 });
    } finally {
      await modern.close();
    }
  });

  it('E5: eras other than both or modern only are refused before anything is served, naming the option', async () => {
    for (const eras of [[], ['legacy'], ['2025-11-25'], ['2025'], ['2026-07-28', 'modern', '__proto__']] as never[]) {
      const error = await serveHttp(kit, { eras }).catch((e: unknown) => e);
      expect(isAgtError(error) && error.code).toBe('invalid_input');
      expect((error as { details?: unknown }).details).toEqual({ field: 'eras' });
      await expect(serveStdio(kit(), { eras })).rejects.toMatchObject({ code: 'invalid_input' });
    }
  });
});
