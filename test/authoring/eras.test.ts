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

const tickets = {
  command: process.execPath,
  args: ['--import', 'tsx', path.join(REPO_ROOT, 'examples/tickets-server/server.ts')],
  cwd: REPO_ROOT,
};

const services: HttpToolService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: v.object({ a: v.number(), b: v.number() }),
  handler: ({ a, b }) => ({ sum: a + b }),
});
const kit = () => createToolServer({ name: 'kit', version: '1.0.0', tools: [add] });

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
});
