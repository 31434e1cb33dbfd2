/**
 * One kit definition, both protocol eras (E5, first part): the tickets server
 * of examples/tickets-server over stdio, and a kit HTTP service, reached by a
 * client pinned to 2026-07-28 and by one pinned to the 2025 era — both list
 * and call the same tools. A modern request carries no session: two
 * instances of one service behind one address answer the same client.
 */
import path from 'node:path';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolServer, defineTool, type HttpToolService, serveHttp } from '../../src/authoring/index.js';
import { connectMcp } from '../../src/index.js';
import { REPO_ROOT } from '../support/index.js';
import { addKit } from './fixtures/add-tool.js';

const tickets = {
  command: process.execPath,
  args: ['--import', 'tsx', path.join(REPO_ROOT, 'examples/tickets-server/server.ts')],
  cwd: REPO_ROOT,
};

const services: HttpToolService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

const kit = () => addKit();

describe('E5: a kit server serves both eras from one definition', () => {
  for (const protocol of ['2026-07-28', 'legacy'] as const) {
    it(`E5: over stdio, a client pinned to ${protocol} lists and calls the tickets tools`, async () => {
      const connection = await connectMcp({ ...tickets, protocol }, { timeouts: { handshakeMs: 20_000 } });
      try {
        expect(connection.era).toBe(protocol === 'legacy' ? 'legacy' : 'modern');
        expect((await connection.listTools()).map((t) => t.name)).toEqual(['create_ticket', 'get_ticket', 'close_ticket']);
        expect(connection.serverInfo.name).toBe('tickets');
        const created = await connection.callTool('create_ticket', { title: 'both eras', priority: 'high', assignee: 'ada' });
        expect(created.structuredContent).toMatchObject({ status: 'open' });
      } finally {
        await connection.close();
      }
    });

    it(`E5: over HTTP, a client pinned to ${protocol} lists and calls the tools`, async () => {
      const service = await serveHttp(kit);
      services.push(service);
      const connection = await connectMcp({ url: service.url, protocol });
      try {
        expect(connection.era).toBe(protocol === 'legacy' ? 'legacy' : 'modern');
        expect((await connection.listTools()).map((t) => t.name)).toEqual(['add']);
        expect((await connection.callTool('add', { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
        const invalid = await connection.callTool('add', { a: 'two', b: 3 });
        expect(invalid.isError).toBe(true); // C4: the ToolError shape, in either era
        expect(service.sessions()).toBe(protocol === 'legacy' ? 1 : 0); // the modern era keeps no session
      } finally {
        await connection.close();
      }
    });
  }

  it('E5: a modern client needs no affinity: its requests may reach another instance of the same service', async () => {
    const [one, two] = [await serveHttp(kit), await serveHttp(kit)];
    services.push(one, two);
    const a = await connectMcp({ url: one.url, protocol: '2026-07-28' });
    const b = await connectMcp({ url: two.url, protocol: '2026-07-28' });
    try {
      expect((await a.callTool('add', { a: 1, b: 1 })).structuredContent).toEqual({ sum: 2 });
      expect((await b.callTool('add', { a: 2, b: 2 })).structuredContent).toEqual({ sum: 4 });
      expect(one.sessions() + two.sessions()).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('E5: a 2026-07-28 list says how long it may be reused (cacheHint, default 60 s private), tools in their defined order', async () => {
    const tool = (name: string) => defineTool({ name, description: name, input: v.object({}), handler: () => 'ok' });
    const tools = [tool('zeta'), tool('alpha'), tool('mid')];
    const list = async (url: string, method = 'tools/list') => {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      return ((await response.json()) as { result: Record<string, unknown> }).result;
    };
    const plain = await serveHttp(() => createToolServer({ name: 'k', version: '1', tools }));
    const shared = await serveHttp(() =>
      createToolServer({ name: 'k', version: '1', tools, cacheHint: { ttlMs: 5_000, cacheScope: 'public' } }),
    );
    services.push(plain, shared);
    const first = await list(plain.url);
    expect(first).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
    expect((first.tools as { name: string }[]).map((t) => t.name)).toEqual(['zeta', 'alpha', 'mid']);
    expect(JSON.stringify(await list(plain.url))).toBe(JSON.stringify(first)); // the same bytes every time
    expect(await list(plain.url, 'server/discover')).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    expect(await list(shared.url)).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
    // The client reads them (bounded); a 2025 list carries none.
    const modern = await connectMcp({ url: shared.url, protocol: '2026-07-28' });
    const legacy = await connectMcp({ url: shared.url, protocol: 'legacy' });
    try {
      await modern.listTools();
      await legacy.listTools();
      expect(modern.toolListHints()).toEqual({ ttlMs: 5_000, cacheScope: 'public' });
      expect(legacy.toolListHints()).toBeUndefined();
    } finally {
      await modern.close();
      await legacy.close();
    }
    for (const bad of [{ ttlMs: -1 }, { ttlMs: 1.5 }, { cacheScope: 'everyone' }] as const)
      expect(() => createToolServer({ name: 'k', version: '1', tools, cacheHint: bad as never })).toThrow(
        expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/^cacheHint\./) }),
      );
  });
});
