/**
 * A server message over the size limit (maxMessageBytes) during a call: only
 * the call it answers fails, with protocol_error oversized_message, and the
 * connection lives on — whether the server writes the id first (Python) or
 * last (TypeScript servers). A message that answers no call (a notification)
 * ends the connection with that code, never as "the server went away" (B5).
 */
import { describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/index.js';
import { LineReader } from '../../src/mcp/process/line-reader.js';
import { batch, failure, py, pythonConfig, runFixture } from '../support/index.js';

const LIMIT = 64 * 1024;
const big = () => pythonConfig({ extra: ['--feature', 'big'] });
const fx = runFixture(['big']);

describe('messages over maxMessageBytes', () => {
  it('B5: an answer over the limit fails only its call (id first or last); the connection lives on', async () => {
    await using connection = await connectMcp(big(), { maxMessageBytes: LIMIT });
    for (const tool of ['big', 'big_tail']) {
      const f = await failure(connection.callTool(tool, { bytes: 4 * LIMIT }));
      expect(f).toMatchObject({ code: 'protocol_error', details: { reason: 'oversized_message', limitBytes: LIMIT } });
      expect(f.message).toContain(`larger than ${LIMIT} bytes`);
    }
    expect(connection.closed).toBe(false);
    expect((await connection.callTool('echo', { message: 'still here' })).content).toEqual([{ type: 'text', text: 'still here' }]);
    expect((await connection.callTool('big_tail', { bytes: 100 })).isError).toBe(false); // within the limit: read as usual
  });

  it('B5: calls in flight alongside an oversized answer get their own answers', async () => {
    await using connection = await connectMcp(big(), { maxMessageBytes: LIMIT });
    const settled = await Promise.allSettled([
      connection.callTool('echo', { message: 'a' }),
      connection.callTool('big', { bytes: 2 * LIMIT }),
      connection.callTool('echo', { message: 'b' }),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(connection.closed).toBe(false);
  });

  it('a notification over the limit (no id to fail) ends the connection with protocol_error oversized_message, not connection_closed', async () => {
    const connection = await connectMcp(big(), { maxMessageBytes: LIMIT });
    const f = await failure(connection.callTool('big_note', { bytes: 2 * LIMIT }));
    expect(f).toMatchObject({ code: 'protocol_error', details: { reason: 'oversized_message', limitBytes: LIMIT } });
    expect(f.message).toMatch(/answers no request/);
    const next = await failure(connection.callTool('echo', { message: 'x' }));
    expect(next.code).toBe('protocol_error');
    expect(connection.closed).toBe(true);
    await connection.close();
  });

  it('maxMessageBytes is checked: invalid_input names it', async () => {
    const f = await failure(connectMcp(big(), { maxMessageBytes: 10 }));
    expect(f).toMatchObject({ code: 'invalid_input', details: { field: 'maxMessageBytes' } });
  });

  it('B5: in a run, the oversized call fails alone and the mount keeps working in the next batch', async () => {
    const run = await fx.start({ maxMessageBytes: LIMIT });
    const first = await run.executeBatch(
      batch(run, [
        { callId: 'huge', name: py('big'), arguments: { bytes: 2 * LIMIT } },
        { callId: 'fine', name: py('echo'), arguments: { message: 'ok' } },
      ]),
    );
    expect(first.results[0]).toMatchObject({
      status: 'tool_failed',
      error: { code: 'protocol_error', details: { reason: 'oversized_message' } },
    });
    expect(first.results[1]).toMatchObject({ status: 'ok' });
    const second = await run.executeBatch(batch(run, [{ callId: 'again', name: py('big'), arguments: { bytes: 10 } }]));
    expect(second.results[0]).toMatchObject({ status: 'ok' });
  });
});

describe('LineReader', () => {
  const feed = (reader: LineReader, text: string, size: number) => {
    const bytes = Buffer.from(text);
    const out = [];
    for (let i = 0; i < bytes.length; i += size) out.push(...reader.push(bytes.subarray(i, i + size)));
    return out;
  };

  it('B5: lines split across chunks are read whole; CRLF, blank and non-JSON lines are told apart', () => {
    const text = '{"jsonrpc":"2.0","id":1,"result":{}}\r\n\nbanner\n{"jsonrpc":"2.0","method":"notifications/x"}\n';
    for (const size of [1, 7, 1000]) {
      expect(feed(new LineReader(1024), text, size).map((l) => l.kind)).toEqual(['message', 'garbage', 'message']);
    }
  });

  it('B5: an oversized response is replaced by an error for its id, told as soon as the head shows it', () => {
    const reader = new LineReader(1024);
    const head = reader.push(Buffer.from(`{"jsonrpc":"2.0","id":"c-7","result":{"text":"${'x'.repeat(2000)}`));
    expect(head).toEqual([
      { kind: 'oversized', reply: expect.objectContaining({ id: 'c-7', error: expect.objectContaining({ code: -32600 }) }) },
    ]);
    expect(reader.push(Buffer.from('"}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'))).toEqual([
      { kind: 'message', message: { jsonrpc: '2.0', id: 2, result: {} } },
    ]);
  });

  it('B5: with the id last, it is read from the tail at the line end; a request or a non-object is never taken for a response', () => {
    const tail = feed(new LineReader(1024), `{"result":{"text":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":42}\n`, 300);
    expect(tail).toEqual([{ kind: 'oversized', reply: expect.objectContaining({ id: 42 }) }]);
    const request = feed(
      new LineReader(1024),
      `{"method":"sampling/createMessage","params":{"x":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":3}\n`,
      300,
    );
    expect(request).toEqual([{ kind: 'oversized' }]);
    expect(new LineReader(1024).push(Buffer.from('y'.repeat(5000)))).toEqual([{ kind: 'oversized' }]);
  });
});
