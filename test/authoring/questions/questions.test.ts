/**
 * A handler's question in both eras from one definition (E5): `await
 * ctx.elicit(…)` pushes the question on a 2025 connection and goes round trip
 * on a 2026-07-28 one — `input_required` with a sealed state, then the
 * retry, the handler run again with the answer. The state is bound to the
 * caller, the tool and the arguments, and sealed with the service's key: a
 * second instance with the same key takes the retry, one with another key
 * refuses it, as it refuses a tampered or foreign state.
 */
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolServer, type HttpToolService, serveHttp } from '../../../src/authoring/index.js';
import { connectMcp, isAgtError, type McpInputRequired } from '../../../src/index.js';
import { REPO_ROOT, text } from '../../support/index.js';
import { deleteFileTool } from '../fixtures/delete-file.js';
import { DEFAULT_MAX_SERVED_MESSAGE_BYTES } from '../../../src/bounds.js';

const services: HttpToolService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

const { tool: deleteFile, runs } = deleteFileTool();

const KEY = 'k'.repeat(32);
const start = async (key: string = KEY) => {
  const service = await serveHttp(() => createToolServer({ name: 'files', version: '1.0.0', tools: [deleteFile], requestStateKey: key }));
  services.push(service);
  return service;
};

const answers = (request: { message: string }): Record<string, string | boolean> =>
  request.message.startsWith('Delete') ? { confirm: true } : { reason: 'cleanup' };

describe('E5: a handler asks once, in both eras', () => {
  for (const protocol of ['2026-07-28', 'legacy'] as const) {
    it(`E5: a client pinned to ${protocol} answers the handler's questions and gets its result`, async () => {
      const service = await start();
      const asked: string[] = [];
      const connection = await connectMcp(
        { url: service.url, protocol },
        {
          elicitation: async (request) => {
            asked.push(request.message);
            return { action: 'accept', content: answers(request) };
          },
        },
      );
      try {
        expect(text(await connection.callTool('delete_file', { path: '/tmp/x' }))).toBe('deleted /tmp/x (cleanup)');
        expect(asked).toEqual(['Delete /tmp/x?', 'Why?']); // each question asked once
      } finally {
        await connection.close();
      }
    });
  }

  for (const protocol of ['2026-07-28', 'legacy'] as const) {
    it(`E5: over stdio, a client pinned to ${protocol} answers each question once and gets the result`, async () => {
      const asked: string[] = [];
      const server = {
        command: process.execPath,
        args: ['--import', 'tsx', path.join(REPO_ROOT, 'test/authoring/fixtures/questions-server.ts')],
        cwd: REPO_ROOT,
        env: { AGT_HOME: process.env.AGT_HOME! }, // its key file in the test run's home (test/support/global-setup.ts)
        protocol,
      };
      const connection = await connectMcp(server, {
        timeouts: { handshakeMs: 20_000 },
        elicitation: async (request) => {
          asked.push(request.message);
          return { action: 'accept', content: answers(request) };
        },
      });
      try {
        expect(connection.era).toBe(protocol === 'legacy' ? 'legacy' : 'modern');
        // The 2025 era pushes both questions into one run; 2026-07-28 runs the handler once per round (three).
        expect(text(await connection.callTool('delete_file', { path: '/tmp/y' }))).toBe('deleted /tmp/y (cleanup)');
        expect(asked).toEqual(['Delete /tmp/y?', 'Why?']);
        expect((await connection.callTool('runs', {})).structuredContent).toEqual({ runs: protocol === 'legacy' ? 1 : 3 });
      } finally {
        await connection.close();
      }
    });
  }

  it('E5: a modern retry reaches a second instance with the same key and completes; one with another key refuses it', async () => {
    const [first, second, other] = [await start(), await start(), await start('o'.repeat(32))];
    const asker = await connectMcp({ url: first.url, protocol: '2026-07-28' }, { elicitation: 'defer' });
    const round1 = (await asker.callToolOrInput('delete_file', { path: '/a' })) as McpInputRequired;
    await asker.close();
    expect(round1.resultType).toBe('input_required');
    expect(typeof round1.requestState).toBe('string');
    const retry = (at: string, state: McpInputRequired, response: unknown) =>
      connectMcp({ url: at, protocol: '2026-07-28' }, { elicitation: 'defer' }).then(async (c) => {
        try {
          const key = Object.keys(state.inputRequests)[0] as string;
          return await c.callToolOrInput(
            'delete_file',
            { path: '/a' },
            {
              input: {
                requests: state.inputRequests,
                responses: { [key]: response },
                ...(state.requestState ? { requestState: state.requestState } : {}),
              },
            },
          );
        } finally {
          await c.close();
        }
      });
    const round2 = (await retry(second.url, round1, { action: 'accept', content: { confirm: true } })) as McpInputRequired;
    expect(Object.values(round2.inputRequests)[0]).toMatchObject({ params: { message: 'Why?' } });
    const done = await retry(first.url, round2, { action: 'accept', content: { reason: 'tidy' } });
    expect('content' in done && text(done)).toBe('deleted /a (tidy)');
    const refused = await retry(other.url, round1, { action: 'accept', content: { confirm: true } }).catch((e: unknown) => e);
    expect(isAgtError(refused) && refused.message).toMatch(/Invalid or expired requestState/);
  });

  it('E5: a state bound to other arguments, or tampered, is refused before the handler runs', async () => {
    const service = await start();
    const c = await connectMcp({ url: service.url, protocol: '2026-07-28' }, { elicitation: 'defer' });
    try {
      const round1 = (await c.callToolOrInput('delete_file', { path: '/a' })) as McpInputRequired;
      const before = runs();
      const input = (requestState: string) => ({
        input: { requests: round1.inputRequests, responses: { q1: { action: 'accept', content: { confirm: true } } }, requestState },
      });
      const other = await c
        .callToolOrInput('delete_file', { path: '/etc/passwd' }, input(round1.requestState as string))
        .catch((e: unknown) => e);
      expect(isAgtError(other) && other.message).toMatch(/Invalid or expired requestState/);
      const tampered = await c.callToolOrInput('delete_file', { path: '/a' }, input(`${round1.requestState}x`)).catch((e: unknown) => e);
      expect(isAgtError(tampered) && tampered.message).toMatch(/Invalid or expired requestState/);
      expect(runs()).toBe(before); // the handler never ran
    } finally {
      await c.close();
    }
  });

  it('E5: a requestStateKey shorter than 32 bytes is refused when the server is created', () => {
    expect(() => createToolServer({ name: 'x', version: '1', tools: [deleteFile], requestStateKey: 'short' })).toThrow(/32 bytes/);
  });
});

describe('E5: the kit state is single-use, sealed answers stay, unasked answers are ignored', () => {
  const respond = (state: McpInputRequired, responses: Record<string, unknown>) => ({
    input: { requests: state.inputRequests, responses, ...(state.requestState ? { requestState: state.requestState } : {}) },
  });

  it('E5: replaying the final retry verbatim within the TTL is refused; the handler ran once for it', async () => {
    const service = await start();
    const c = await connectMcp({ url: service.url, protocol: '2026-07-28' }, { elicitation: 'defer' });
    try {
      const round1 = (await c.callToolOrInput('delete_file', { path: '/r' })) as McpInputRequired;
      const round2 = (await c.callToolOrInput(
        'delete_file',
        { path: '/r' },
        respond(round1, { q1: { action: 'accept', content: { confirm: true } } }),
      )) as McpInputRequired;
      const final = respond(round2, { q2: { action: 'accept', content: { reason: 'tidy' } } });
      const done = await c.callToolOrInput('delete_file', { path: '/r' }, final);
      expect('content' in done && text(done)).toBe('deleted /r (tidy)');
      const before = runs();
      const replay = await c.callToolOrInput('delete_file', { path: '/r' }, final).catch((e: unknown) => e);
      expect(isAgtError(replay) && replay.message).toMatch(/Invalid or expired requestState/);
      expect(runs()).toBe(before); // the side effect did not run again
    } finally {
      await c.close();
    }
  });

  it('E5: a later retry cannot overwrite an answer already sealed, and an answer to a question not yet asked is ignored', async () => {
    const service = await start();
    const c = await connectMcp({ url: service.url, protocol: '2026-07-28' }, { elicitation: 'defer' });
    try {
      const round1 = (await c.callToolOrInput('delete_file', { path: '/s' })) as McpInputRequired;
      // q2 answered before it was asked: ignored, so the handler still asks it.
      const round2 = (await c.callToolOrInput(
        'delete_file',
        { path: '/s' },
        respond(round1, { q1: { action: 'accept', content: { confirm: true } }, q2: { action: 'accept', content: { reason: 'early' } } }),
      )) as McpInputRequired;
      expect(round2.resultType).toBe('input_required');
      expect(Object.values(round2.inputRequests)[0]).toMatchObject({ params: { message: 'Why?' } });
      // q1 answered again, differently: the sealed "confirm" stands.
      const done = await c.callToolOrInput(
        'delete_file',
        { path: '/s' },
        respond(round2, { q1: { action: 'accept', content: { confirm: false } }, q2: { action: 'accept', content: { reason: 'late' } } }),
      );
      expect('content' in done && text(done)).toBe('deleted /s (late)');
    } finally {
      await c.close();
    }
  });

  it('E5: requestStateTtlSeconds must be a whole number of seconds from 1 to a day: NaN, -5, 0 and 1.5 are invalid_input', () => {
    for (const bad of [Number.NaN, -5, 0, 1.5, 86_401]) {
      const f = (() => {
        try {
          createToolServer({ name: 'x', version: '1', tools: [deleteFile], requestStateTtlSeconds: bad });
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(isAgtError(f) && [f.code, f.details?.field], String(bad)).toEqual(['invalid_input', 'requestStateTtlSeconds']);
      expect((f as Error).message).toContain('seconds');
    }
    expect(() => createToolServer({ name: 'x', version: '1', tools: [deleteFile], requestStateTtlSeconds: 60 })).not.toThrow();
  });

  it('E5: a body over the bound is answered 413 with Connection: close; the next request on a kept-alive agent is served', async () => {
    const service = await start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const post = (body: Buffer | string) =>
        new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
          const req = http.request(
            service.url,
            { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
            (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      const big = await post(Buffer.alloc(DEFAULT_MAX_SERVED_MESSAGE_BYTES + 1024, 0x20));
      expect(big).toEqual({ status: 413, connection: 'close' });
      const next = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      expect(next.status).not.toBe(413);
      expect(next.status).toBeLessThan(500);
    } finally {
      agent.destroy();
    }
  });
});
