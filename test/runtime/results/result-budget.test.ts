/**
 * B8: a result over the run's result budget reaches the model cut, with a
 * notice; the whole stays in the run and is read by page through result_read,
 * a call like any other — on the Python fixture server (real process), and
 * across processes through a SQLite run store.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AuditEvent, type NativeRun, policies, type ToolResult } from '../../../src/index.js';
import { SqliteRunStore } from '../../../src/storage/sqlite.js';
import { runTs } from '../../support/paths.js';
import { batch, py, runFixture } from '../../support/runs.js';

type Part = { type: string; text?: string; data?: string; mimeType?: string };

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
// The fixture's `lines` text, by its own rule (test/fixtures/mcp_server.py).
const lines = (n: number, width = 80) =>
  Array.from({ length: n }, (_, i) => `line ${String(i).padStart(6, '0')} `.padEnd(width - 1, 'abcdefghij'[i % 10]) + '\n').join('');

const partsOf = (result: ToolResult | undefined): Part[] => {
  if (result?.status !== 'ok') throw new Error(`not ok: ${JSON.stringify(result)}`);
  return result.content as Part[];
};
const noticeOf = (result: ToolResult | undefined) => String(partsOf(result).at(-1)?.text);
const textOf = (parts: Part[]) =>
  parts
    .slice(0, -1)
    .map((p) => p.text ?? '')
    .join('');
const nextOffset = (notice: string) => {
  const m = /"offset":(\d+)\}\]$/.exec(notice);
  return m ? Number(m[1]) : undefined;
};

// Reads call `callId` on from `offset` until the end, one result_read a batch; the pages' parts (notices left out).
async function readOn(run: NativeRun, callId: string, offset: number | undefined, max = 200) {
  const pages: Part[][] = [];
  let next = offset;
  while (next !== undefined) {
    if (pages.length >= max) throw new Error('too many pages');
    const { results } = await run.executeBatch(
      batch(run, [{ callId: `read-${pages.length}`, name: 'result_read', arguments: { callId, offset: next } }]),
    );
    const parts = partsOf(results[0]);
    pages.push(parts.slice(0, -1));
    next = nextOffset(noticeOf(results[0]));
  }
  return pages;
}

describe('B8: the result budget on a real server', () => {
  const f = runFixture(['results', 'big']);

  it('B8: a 300 KB text reaches the model cut at 25,000 tokens with a notice; result_read pages joined equal it exactly', async () => {
    const run = await f.start();
    expect(run.tools().map((t) => t.name)).not.toContain('result_read'); // offered once a result was cut
    const { results } = await run.executeBatch(batch(run, [{ callId: 'c1', name: py('lines'), arguments: { n: 3000, width: 100 } }]));
    const cut = results[0] as ToolResult & { status: 'ok' };
    const original = lines(3000, 100);
    expect(original.length).toBe(300_000);
    expect(cut.cut).toEqual({ keptChars: 100_000, totalChars: 300_000 });
    const shown = textOf(partsOf(cut));
    expect(shown).toBe(original.slice(0, 100_000));
    expect(shown.endsWith('\n')).toBe(true); // cut on a line boundary
    expect(noticeOf(cut)).toContain("over this run's result budget of 25000 tokens");
    expect(noticeOf(cut)).toContain('result_read {"callId":"c1","offset":100000}');
    expect(run.tools().map((t) => t.name)).toContain('result_read');
    const pages = await readOn(run, 'c1', 100_000);
    expect(pages.length).toBe(2);
    expect(sha(shown + pages.map((p) => p.map((x) => x.text).join('')).join(''))).toBe(sha(original));
  });

  it('B8: structured content is kept in the cut when it fits the budget (programs read it whole)', async () => {
    const run = await f.start();
    const { results } = await run.executeBatch(batch(run, [{ callId: 'b1', name: py('big'), arguments: { bytes: 200_000 } }]));
    expect(results[0]).toMatchObject({
      status: 'ok',
      structuredContent: { size: 200_000 },
      cut: { keptChars: 100_000, totalChars: 200_000 },
    });
  });

  it('B8: a 50-row structured result is cut as the model reads it (its JSON text); the pages joined parse to the rows', async () => {
    const run = await f.start();
    const { results } = await run.executeBatch(batch(run, [{ callId: 'rows-1', name: py('rows'), arguments: { n: 50, note: 3000 } }]));
    const cut = results[0] as ToolResult & { status: 'ok' };
    expect(cut.cut?.totalChars).toBeGreaterThan(150_000);
    expect(cut.structuredContent).toBeUndefined(); // over the budget itself: left out of the cut, kept in the run
    const pages = await readOn(run, 'rows-1', cut.cut?.keptChars);
    const json = textOf(partsOf(cut)) + pages.map((p) => p.map((x) => x.text).join('')).join('');
    const rows = (JSON.parse(json) as { rows: { id: number }[] }).rows;
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('B8: structured content with no text is read as its JSON', async () => {
    const run = await f.start({ resultBudget: { tokens: 1000 } });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'o1', name: py('only_rows'), arguments: { n: 50, note: 100 } }]));
    const cut = results[0] as ToolResult & { status: 'ok' };
    expect(cut.cut?.keptChars).toBeLessThanOrEqual(4000);
    const pages = await readOn(run, 'o1', cut.cut?.keptChars);
    const json = textOf(partsOf(cut)) + pages.map((p) => p.map((x) => x.text).join('')).join('');
    expect((JSON.parse(json) as { rows: unknown[] }).rows).toHaveLength(50);
  });

  it('B8: a mixed result: the image is a reference in the cut, read by its offset; every part is read exactly once', async () => {
    const run = await f.start({ resultBudget: { tokens: 2000 } });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'm1', name: py('mixed'), arguments: { bytes: 16_000 } }]));
    const cut = results[0] as ToolResult & { status: 'ok' };
    const parts = partsOf(cut);
    expect(parts.every((p) => p.type === 'text')).toBe(true); // the cut holds no image: references only
    // Text a (1000 lines of 9 characters) is over the page (2000 × 4 characters): cut at its last whole line, before the image.
    expect(cut.cut?.keptChars).toBe(7992);
    const pages = await readOn(run, 'm1', cut.cut?.keptChars);
    const all = [...parts.slice(0, -1), ...pages.flat()];
    const images = all.filter((p) => p.type === 'image');
    expect(images).toHaveLength(1);
    expect(images[0]?.mimeType).toBe('image/png');
    const text = all
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('');
    expect(text.startsWith('a0000000\n')).toBe(true);
    expect(text).toContain('resource text'); // an embedded text resource reads as text (as the model reads it)
    expect(text.endsWith('b0000999\n')).toBe(true);
    expect(text.match(/a\d{7}\n/g)).toHaveLength(1000);
    expect(text.match(/b\d{7}\n/g)).toHaveLength(1000);
  });

  it('B8: a reference in the cut names the offset that returns the part itself', async () => {
    const run = await f.start({ resultBudget: { tokens: 4000 } });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'm2', name: py('mixed'), arguments: { bytes: 16_000 } }]));
    const reference = partsOf(results[0]).find((p) => p.text?.startsWith('[image part (image/png) not shown'));
    expect(reference?.text).toContain('result_read {"callId":"m2","offset":9000,"limit":1}');
    const read = await run.executeBatch(
      batch(run, [{ callId: 'r1', name: 'result_read', arguments: { callId: 'm2', offset: 9000, limit: 1 } }]),
    );
    expect(partsOf(read.results[0])[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
  });

  it('B8: a tiny budget pages a small result in pieces of its size; resultBudget false gives it whole, with no result_read', async () => {
    const tiny = await f.start({ resultBudget: { tokens: 10 } });
    const { results } = await tiny.executeBatch(batch(tiny, [{ callId: 't1', name: py('lines'), arguments: { n: 4, width: 20 } }]));
    const cut = results[0] as ToolResult & { status: 'ok' };
    expect(cut.cut).toEqual({ keptChars: 40, totalChars: 80 });
    const pages = await readOn(tiny, 't1', 40);
    expect(pages.map((p) => p.map((x) => x.text).join(''))).toEqual([lines(4, 20).slice(40, 80)]);

    const whole = await f.start({ resultBudget: false });
    const big = await whole.executeBatch(batch(whole, [{ callId: 'w1', name: py('lines'), arguments: { n: 3000, width: 100 } }]));
    expect(partsOf(big.results[0])).toEqual([{ type: 'text', text: lines(3000, 100) }]);
    expect((big.results[0] as { cut?: unknown }).cut).toBeUndefined();
    expect(whole.tools().map((t) => t.name)).not.toContain('result_read');
  });

  it('B8: an unknown call id, an offset past the end and bad arguments are results the model reads', async () => {
    const run = await f.start();
    await run.executeBatch(batch(run, [{ callId: 'c1', name: py('lines'), arguments: { n: 3000, width: 100 } }]));
    const { results } = await run.executeBatch(
      batch(run, [
        { callId: 'u', name: 'result_read', arguments: { callId: 'nope' } },
        { callId: 'p', name: 'result_read', arguments: { callId: 'c1', offset: 300_000 } },
        { callId: 'n', name: 'result_read', arguments: { callId: 'c1', offset: -1 } },
        { callId: 'x', name: 'result_read', arguments: { callId: 'c1', offset: 1.5 } },
      ]),
    );
    expect(results.map((r) => [r.status, r.status === 'ok' ? '' : r.error.code])).toEqual([
      ['tool_error', 'not_found'],
      ['tool_error', 'invalid_input'],
      ['invalid_arguments', 'invalid_arguments'],
      ['invalid_arguments', 'invalid_arguments'],
    ]);
    const [unknown, past] = results as [ToolResult & { status: 'tool_error' }, ToolResult & { status: 'tool_error' }];
    expect(unknown.error.message).toContain('result_read reads results that were cut');
    expect(past.error.message).toContain('past the end of the result (300000 characters)');
  });

  it('B8: result_read is a call like any other: a policy denies it, the audit records the cut by size only', async () => {
    const events: AuditEvent[] = [];
    const policy = policies.chain(policies.deny('result_read'), policies.autoAllow('*'));
    const run = await f.start({ policy, audit: { record: (e) => void events.push(e) } });
    await run.executeBatch(batch(run, [{ callId: 'c1', name: py('lines'), arguments: { n: 3000, width: 100 } }]));
    const { results } = await run.executeBatch(batch(run, [{ callId: 'r1', name: 'result_read', arguments: { callId: 'c1' } }]));
    expect(results[0]?.status).toBe('permission_denied');
    const calls = events.filter((e) => e.type === 'tool_call');
    expect(calls.map((e) => [e.tool, e.status, 'cut' in e ? e.cut : undefined])).toEqual([
      [py('lines'), 'ok', { keptChars: 100_000, totalChars: 300_000 }],
      ['result_read', 'permission_denied', undefined],
    ]);
    expect(JSON.stringify(events)).not.toContain('line 000001'); // sizes, never content
  });

  it('B8: after hooks see the whole result; the run keeps what they left, never what they took out', async () => {
    const run = await f.start({
      hooks: {
        after: [
          (_request, result) => (result.status === 'ok' ? { content: [{ type: 'text', text: 'redacted '.repeat(20_000) }] } : undefined),
        ],
      },
    });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'c1', name: py('lines'), arguments: { n: 3000, width: 100 } }]));
    expect((results[0] as { cut?: unknown }).cut).toEqual({ keptChars: 100_000, totalChars: 180_000 });
    const pages = await readOn(run, 'c1', 100_000);
    expect(JSON.stringify(pages)).not.toContain('line 0');
  });

  it('B8: many tiny parts cost bounded parts: a page holds them as one text', async () => {
    const run = await f.start({ resultBudget: { tokens: 100 } });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'p1', name: py('parts'), arguments: { n: 20_000 } }]));
    const parts = partsOf(results[0]);
    expect(parts).toHaveLength(2); // one text, the notice
    // The model reads consecutive text parts joined by a newline: 400 positions hold 200 letters.
    expect(parts[0]?.text).toBe('a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\nq\nr\ns\nt\nu\nv\nw\nx\ny\nz\n'.repeat(8).slice(0, 400));
  });

  it('B8: a run suspended to SQLite resumes in another process and reads on from where the cut ended', async () => {
    const run = await f.start();
    const { results } = await run.executeBatch(batch(run, [{ callId: 'c1', name: py('lines'), arguments: { n: 3000, width: 100 } }]));
    const file = path.join(f.env.tmp.dir, 'runs.db');
    const store = new SqliteRunStore({ path: file });
    const state = await run.suspend({ store });
    expect(state.version).toBe(5);
    expect(state.results?.kept.map((k) => k.callId)).toEqual(['c1']);
    const document = (await f.env.service.read({ kind: 'mcp', reference: 'tools/py' })).data;
    const other = JSON.parse(
      await runTs('test/runtime/fixtures/read-elsewhere.ts', [file, JSON.stringify(document), run.id, 'c1', '100000']),
    ) as {
      pid: number;
      pages: number;
      tools: string[];
      text: string;
    };
    expect(other.pid).not.toBe(process.pid);
    expect(other.tools).toContain('result_read');
    expect(other.pages).toBe(2);
    expect(sha(textOf(partsOf(results[0])) + other.text)).toBe(sha(lines(3000, 100)));
    await store.close();
  }, 60_000);
});
