/**
 * Bad input on the protocol eras (E1): a server that claims 2026-07-28 and
 * then answers otherwise, a discover result offering only versions nobody
 * speaks, results without or with an unknown `resultType`, and config header
 * values that could split a request. Each gets a stable code; the connection
 * and the other calls live on; no secret reaches a message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/index.js';
import { failure } from '../support/index.js';
import { startHostileModern } from './fixtures/hostile-modern.js';
import { MAX_REQUEST_STATE_BYTES } from '../../src/bounds.js';

let hostile: Awaited<ReturnType<typeof startHostileModern>>;
beforeAll(async () => {
  hostile = await startHostileModern();
});
afterAll(() => hostile.close());

describe('E1: a server that breaks the 2026-07-28 rules', () => {
  it('E1: results without resultType, with an unknown one, or in the 2025 shape fail only their call (protocol_error); the rest works', async () => {
    const connection = await connectMcp({ url: hostile.url });
    try {
      expect(connection.era).toBe('modern');
      for (const tool of ['no_result_type', 'unknown_result_type', 'legacy_shape']) {
        const f = await failure(connection.callTool(tool, {}));
        expect(f.code, tool).toBe('protocol_error');
      }
      const [a, b] = await Promise.allSettled([connection.callTool('no_result_type', {}), connection.callTool('good', {})]);
      expect(a.status).toBe('rejected');
      expect(b).toMatchObject({ status: 'fulfilled', value: { content: [{ type: 'text', text: 'good answered' }] } });
    } finally {
      await connection.close();
    }
  });

  it('E1: a question the connection declared no handler for (asked against the rules) fails that call with a fix; the connection lives', async () => {
    const connection = await connectMcp({ url: hostile.url });
    try {
      const f = await failure(connection.callTool('asks_anyway', {}));
      expect(f.code).toBe('protocol_error');
      expect(f.message).toMatch(
        /asked for elicitation\/create during the call, which this connection did not declare; give the connection an `elicitation` handler/,
      );
      expect(f.details).toEqual({ reason: 'input_unanswerable', method: 'elicitation/create' });
      expect(await connection.callTool('good', {})).toMatchObject({ content: [{ type: 'text', text: 'good answered' }] });
    } finally {
      await connection.close();
    }
  });

  it('E1: a requestState over its bound fails only that call (request_state_too_large), is never echoed and never shown', async () => {
    const connection = await connectMcp({ url: hostile.url });
    try {
      const before = hostile.methods.filter((m) => m === 'tools/call').length;
      const f = await failure(connection.callTool('huge_state', {}));
      expect(f.code).toBe('protocol_error');
      expect(f.details).toEqual({ reason: 'request_state_too_large', limitBytes: MAX_REQUEST_STATE_BYTES });
      expect(JSON.stringify(f)).not.toContain('secret-state');
      expect(hostile.methods.filter((m) => m === 'tools/call').length - before).toBe(1); // no retry carried it back
      expect(await connection.callTool('good', {})).toMatchObject({ content: [{ type: 'text', text: 'good answered' }] });
    } finally {
      await connection.close();
    }
  });

  it('E1: a discover result offering only unknown versions is not modern: auto falls back to initialize, a pin fails with protocol_mismatch', async () => {
    const odd = await startHostileModern({ supportedVersions: ['2031-01-01', 'banana'], answersInitialize: true });
    try {
      const auto = await connectMcp({ url: odd.url });
      expect(auto.era).toBe('legacy');
      await auto.close();
      const f = await failure(connectMcp({ url: odd.url, protocol: '2026-07-28' }));
      expect(f.code).toBe('protocol_mismatch');
    } finally {
      await odd.close();
    }
  });

  it('R7: a config header value with CR or LF, or longer than 8 KiB, is invalid_input before anything is sent; the value is not echoed', async () => {
    const before = hostile.methods.length;
    for (const value of ['Bearer abc\r\nX-Evil: 1', 'a\nb', 'x'.repeat(8193)]) {
      const f = await failure(connectMcp({ url: hostile.url, headers: { 'X-Token': value } }));
      expect(f).toMatchObject({ code: 'invalid_input', details: { field: 'mcpServers.server.headers.X-Token' } });
      expect(JSON.stringify({ m: f.message, d: f.details })).not.toContain('abc');
    }
    expect(hostile.methods.length).toBe(before);
  });
});
