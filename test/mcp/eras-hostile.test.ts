/**
 * Bad input on the protocol eras (E1): a server that claims 2026-07-28 and
 * then answers otherwise, a discover result offering only versions nobody
 * speaks, results without or with an unknown `resultType`, and config header
 * values that could split a request. Each gets a stable code; the connection
 * and the other calls live on; no secret reaches a message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgtError,
  connectMcp,
  type McpInputRequired,
  McpProber,
  MemoryStore,
  MemoryVerdictStore,
  ResourceService,
} from '../../src/index.js';
import { maskError } from '../../src/errors.js';
import { failure } from '../support/index.js';
import { startHostileModern } from './fixtures/hostile-modern.js';
import { MAX_INPUT_REQUESTS, MAX_PARAM_HEADERS_BYTES, MAX_REQUEST_STATE_BYTES } from '../../src/bounds.js';

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

// What a hostile trial of the 2026-07-28 surface found, each case against the hand-written server above.
const SECRET = 'sekret-value-1234';
const withSecret = (url: string, extra: Record<string, unknown> = {}) => ({ url, headers: { 'X-Token': SECRET }, ...extra });

describe('E1: server data is as hostile as model data', () => {
  it('E1: a secret the server repeats in its server/discover result is masked in the verdict, the probe report and the verdict store', async () => {
    const echo = await startHostileModern({ discoverExtra: { instructions: `use ${SECRET}`, echo: { deep: [[SECRET]] } } });
    try {
      const verdicts = new MemoryVerdictStore();
      const connection = await connectMcp(withSecret(echo.url), { verdicts, reference: 'tools/echo', revision: 1 });
      try {
        expect(connection.era).toBe('modern');
        const discover = JSON.stringify(connection.verdict);
        expect(discover).toContain('***');
        expect(discover).not.toContain(SECRET);
      } finally {
        await connection.close();
      }
      expect(JSON.stringify(verdicts.get('tools/echo'))).not.toContain(SECRET);
      const report = await new McpProber().probe({ mcpServers: { echo: withSecret(echo.url) } });
      expect(JSON.stringify(report)).not.toContain(SECRET);
      expect(JSON.stringify(report.verdict)).toContain('***');
    } finally {
      await echo.close();
    }
  });

  it('E1: a protocol_mismatch masks the secret in details.offered at any depth, and escapes the versions a server offers', async () => {
    const offered = ['2025-06-18', SECRET, 'evil\u001b[31m\nagt: forged line\r'];
    const refusing = await startHostileModern({ refuseDiscover: offered });
    try {
      const f = await failure(connectMcp(withSecret(refusing.url, { protocol: '2026-07-28' })));
      expect(f.code).toBe('protocol_mismatch');
      const everything = JSON.stringify({ message: f.message, details: f.details });
      expect(everything).not.toContain(SECRET);
      expect(f.message).not.toMatch(/[\n\r\u001b]/);
      for (const version of f.details?.offered as string[]) expect(version).not.toMatch(/[\n\r\u001b]/);
      expect(f.details?.offered).toContain('***');
    } finally {
      await refusing.close();
    }
  });

  it('E1: maskError masks every string of details, however deep (bounded), keys too', () => {
    let deep: unknown = SECRET;
    for (let i = 0; i < 200; i++) deep = i % 2 ? [deep] : { [SECRET]: deep };
    const masked = maskError(new AgtError('protocol_error', `x ${SECRET}`, { details: { offered: [[SECRET]], deep } }), (t) =>
      t.split(SECRET).join('***'),
    );
    expect(JSON.stringify({ m: masked.message, d: masked.details })).not.toContain(SECRET);
    expect(JSON.stringify(masked.details)).toContain('(not read: nested too deep)');
  });

  it('E3: a missing, negative, fractional, null or overflowing ttlMs, or an unknown cacheScope, counts as 0 / private; the list loads', async () => {
    const cases = [
      { ttlMs: undefined, cacheScope: 'private' },
      { ttlMs: -5, cacheScope: 'public' },
      { ttlMs: 1.5, cacheScope: 'public' },
      { ttlMs: null, cacheScope: 'public' },
      { ttlMs: 1e300, cacheScope: 'public' },
      { ttlMs: 60_000, cacheScope: 'everyone' },
      { ttlMs: 60_000, cacheScope: undefined },
    ];
    for (const listHints of cases) {
      const lenient = await startHostileModern({ listHints });
      try {
        const connection = await connectMcp({ url: lenient.url });
        try {
          const tools = await connection.listTools();
          expect(
            tools.map((t) => t.name),
            JSON.stringify(listHints),
          ).toContain('good');
          const hints = connection.toolListHints();
          const validTtl = typeof listHints.ttlMs === 'number' && Number.isSafeInteger(listHints.ttlMs) && listHints.ttlMs >= 0;
          expect(hints?.ttlMs, JSON.stringify(listHints)).toBe(validTtl ? listHints.ttlMs : 0);
          expect(hints?.cacheScope, JSON.stringify(listHints)).toBe(listHints.cacheScope === 'public' ? 'public' : 'private');
        } finally {
          await connection.close();
        }
      } finally {
        await lenient.close();
      }
    }
  });

  it('R7: a header value outside latin-1 is invalid_input when written, and at connect, naming the field; the value is not echoed', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const value = 'Bearer ключ-secret';
    const written = await failure(
      service.write({
        kind: 'mcp',
        reference: 'tools/u',
        create: true,
        data: { mcpServers: { u: { url: hostile.url, headers: { 'X-Token': value } } } },
      }),
    );
    expect(written.code).toBe('invalid_input');
    expect(written.message).toMatch(/byte string/);
    expect(JSON.stringify({ m: written.message, d: written.details })).not.toContain('ключ');
    const before = hostile.methods.length;
    const connecting = await failure(connectMcp({ url: hostile.url, headers: { 'X-Token': value } }));
    expect(connecting).toMatchObject({ code: 'invalid_input', details: { field: 'mcpServers.server.headers.X-Token' } });
    expect(hostile.methods.length).toBe(before);
  });

  it('E1: a mirrored Mcp-Param value over its bound is refused before sending (invalid_input); a 431 from the server is said as such', async () => {
    const connection = await connectMcp({ url: hostile.url });
    try {
      await connection.listTools();
      const before = hostile.calls.length;
      const f = await failure(connection.callTool('mirrored', { region: 'x'.repeat(MAX_PARAM_HEADERS_BYTES) }));
      expect(f).toMatchObject({
        code: 'invalid_input',
        details: { reason: 'param_headers_too_large', limitBytes: MAX_PARAM_HEADERS_BYTES },
      });
      expect(f.message).not.toContain('xxxx');
      expect(hostile.calls.length).toBe(before); // nothing sent
      expect(await connection.callTool('mirrored', { region: 'eu' })).toMatchObject({ content: [{ text: 'mirrored answered' }] });
    } finally {
      await connection.close();
    }
    const small = await startHostileModern({ maxHeaderSize: 2048 });
    try {
      const tight = await connectMcp({ url: small.url });
      try {
        await tight.listTools();
        const f = await failure(tight.callTool('mirrored', { region: 'y'.repeat(4000) }));
        expect(f).toMatchObject({ code: 'protocol_error', details: { reason: 'headers_too_large', status: 431 } });
        expect(await tight.callTool('good', {})).toMatchObject({ content: [{ text: 'good answered' }] });
      } finally {
        await tight.close();
      }
    } finally {
      await small.close();
    }
  });
});

describe('E7: every round of questions is read by one path, under one bound', () => {
  it('E7: 2,000 questions in one round are refused before any handler runs, whoever would answer them', async () => {
    let sampled = 0;
    const sampling = async () => {
      sampled += 1;
      return { role: 'assistant' as const, model: 'm', content: { type: 'text', text: 'x' } };
    };
    for (const settings of [{ sampling }, { sampling: 'defer' as const }]) {
      const connection = await connectMcp({ url: hostile.url }, settings);
      try {
        const f = await failure(connection.callToolOrInput('many_questions', {}));
        expect(f).toMatchObject({ code: 'protocol_error', details: { reason: 'invalid_input_request' } });
        expect(f.message).toContain(`more than ${MAX_INPUT_REQUESTS} questions in one round`);
      } finally {
        await connection.close();
      }
    }
    expect(sampled).toBe(0);
  });

  it('E7: a question keyed __proto__ is a key like any other: answered inline it goes back under its key; deferred it waits under it', async () => {
    const inline = await connectMcp({ url: hostile.url }, { elicitation: async () => ({ action: 'accept', content: { ok: true } }) });
    try {
      const before = hostile.calls.length;
      expect(await inline.callTool('proto_key', {})).toMatchObject({ content: [{ text: 'proto_key answered' }] });
      const retry = hostile.calls.slice(before)[1] as { inputResponses?: Record<string, unknown> };
      expect(Object.keys(retry.inputResponses ?? {})).toEqual(['__proto__']);
      expect(Object.getOwnPropertyDescriptor(retry.inputResponses, '__proto__')?.value).toEqual({
        action: 'accept',
        content: { ok: true },
      });
    } finally {
      await inline.close();
    }
    const deferring = await connectMcp({ url: hostile.url }, { elicitation: 'defer' });
    try {
      const asked = (await deferring.callToolOrInput('proto_key', {})) as McpInputRequired;
      expect(Object.keys(asked.inputRequests)).toEqual(['__proto__']);
      expect(Object.getPrototypeOf(asked.inputRequests)).toBe(Object.prototype);
    } finally {
      await deferring.close();
    }
  });

  it('E7: an empty inputRequests is a protocol error, not a retry loop; a requestState that is not a string is refused, never stripped', async () => {
    const connection = await connectMcp({ url: hostile.url }, { elicitation: async () => ({ action: 'accept', content: {} }) });
    try {
      for (const tool of ['empty_requests', 'state_not_string']) {
        const before = hostile.calls.length;
        const f = await failure(connection.callTool(tool, {}));
        expect(f, tool).toMatchObject({ code: 'protocol_error', details: { reason: 'invalid_input_request' } });
        expect(hostile.calls.length - before, tool).toBe(1); // asked once; no retry went out
      }
    } finally {
      await connection.close();
    }
  });

  it('E7: a connection that defers only elicitation and has no sampling handler fails a sampling question with input_unanswerable, naming the method', async () => {
    const connection = await connectMcp({ url: hostile.url }, { elicitation: 'defer' });
    try {
      const f = await failure(connection.callToolOrInput('asks_sampling', {}));
      expect(f).toMatchObject({ code: 'protocol_error', details: { reason: 'input_unanswerable', method: 'sampling/createMessage' } });
      expect(f.message).toContain('give the connection a `sampling` handler');
      expect(f.message).not.toMatch(/defers/);
    } finally {
      await connection.close();
    }
  });
});

describe('E1: a broken connection is a connection error, never an invalid answer', () => {
  it('E1: a socket reset during tools/list is connection_closed (reason network), not "not a valid MCP result"', async () => {
    const resetting = await startHostileModern({ resetOn: 'tools/list' });
    try {
      const connection = await connectMcp({ url: resetting.url });
      try {
        const f = await failure(connection.listTools());
        expect(f).toMatchObject({ code: 'connection_closed', details: { reason: 'network' } });
        expect(f.message).not.toMatch(/not a valid MCP result/);
      } finally {
        await connection.close();
      }
    } finally {
      await resetting.close();
    }
  });
});
