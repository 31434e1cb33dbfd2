import { describe, expect, it } from 'vitest';
import { LineReader } from '../../../src/mcp/process/line-reader.js';

const msg = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, result: {} });
const ids = (lines: ReturnType<LineReader['push']>) => lines.map((l) => (l.kind === 'message' ? (l.message as { id: number }).id : l.kind));

describe('LineReader', () => {
  it('reads whole lines of one chunk in place, and lines split across chunks, in order', () => {
    const reader = new LineReader(1024);
    const text = `${msg(1)}\n${msg(2)}\r\n\n   \n${msg(3)}`;
    expect(ids(reader.push(Buffer.from(text)))).toEqual([1, 2]);
    expect(ids(reader.push(Buffer.from(`\n${msg(4).slice(0, 5)}`)))).toEqual([3]);
    expect(ids(reader.push(Buffer.from(`${msg(4).slice(5)}\nnot json\n`)))).toEqual([4, 'garbage']);
  });

  it('takes a line of exactly maxBytes whole, and never holds a longer one (in one chunk or split)', () => {
    const line = msg(7);
    const exact = new LineReader(Buffer.byteLength(line));
    expect(ids(exact.push(Buffer.from(`${line}\n`)))).toEqual([7]);
    const short = new LineReader(Buffer.byteLength(line) - 1);
    expect(short.push(Buffer.from(`${line}\n${msg(8)}\n`))[0]).toMatchObject({ kind: 'oversized' });
    const split = new LineReader(Buffer.byteLength(line) - 1);
    expect(split.push(Buffer.from(line.slice(0, 10)))).toEqual([]);
    expect(split.push(Buffer.from(`${line.slice(10)}\n`))[0]).toMatchObject({ kind: 'oversized' });
  });

  it('reads multi-byte UTF-8 split inside a character', () => {
    const reader = new LineReader(1024);
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { t: 'é€' } })}\n`);
    const cut = bytes.indexOf(Buffer.from('€')) + 1;
    expect(reader.push(bytes.subarray(0, cut))).toEqual([]);
    const [line] = reader.push(bytes.subarray(cut));
    expect(line).toMatchObject({ kind: 'message', message: { result: { t: 'é€' } } });
  });
});
