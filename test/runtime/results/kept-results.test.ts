/**
 * B8 in parts: the budget's options, the cut of each kind of result, the
 * per-run bound of kept results (oldest dropped first), and a stored state's
 * kept results read back as hostile input.
 */
import { describe, expect, it } from 'vitest';
import { resolveResultBudget } from '../../../src/runtime/results/budget.js';
import { KeptResults } from '../../../src/runtime/results/kept-results.js';
import { lineText, pageOf, resultLine } from '../../../src/runtime/results/pages.js';
import type { ToolResult } from '../../../src/runtime/types.js';
import { thrown } from '../../support/paths.js';

const text = (t: string, callId = 'c1'): ToolResult => ({ callId, status: 'ok', content: [{ type: 'text', text: t }] });
const budget = (tokens: number, keptBytes = 1024 * 1024) => resolveResultBudget({ tokens, keptBytes })!;
const notice = (r: ToolResult) => (r.status === 'ok' ? String((r.content.at(-1) as { text: string }).text) : '');
const shown = (r: ToolResult) =>
  r.status === 'ok'
    ? r.content
        .slice(0, -1)
        .map((p) => (p as { text: string }).text)
        .join('')
    : '';

describe('B8: the result budget in parts', () => {
  it('B8: resultBudget is checked once: NaN, -1, 1e20, 1.5 and a non-function counter are invalid_input naming the field', () => {
    expect(resolveResultBudget(undefined)).toMatchObject({ tokens: 25_000, keptBytes: 16 * 1024 * 1024 });
    expect(resolveResultBudget(false)).toBeUndefined();
    for (const tokens of [Number.NaN, -1, 0, 1e20, 1.5, '100']) {
      expect(thrown(() => resolveResultBudget({ tokens }))).toMatchObject({
        code: 'invalid_input',
        details: { field: 'resultBudget.tokens' },
      });
    }
    for (const keptBytes of [Number.NaN, -1, 1e20, 0.5]) {
      expect(thrown(() => resolveResultBudget({ keptBytes }))).toMatchObject({ details: { field: 'resultBudget.keptBytes' } });
    }
    expect(thrown(() => resolveResultBudget({ countTokens: 'tiktoken' }))).toMatchObject({
      details: { field: 'resultBudget.countTokens' },
    });
    expect(thrown(() => resolveResultBudget('big'))).toMatchObject({ code: 'invalid_input', details: { field: 'resultBudget' } });
  });

  it('B8: a result within the budget is the same object; one over it is cut on a line boundary, never inside a surrogate pair', () => {
    const kept = new KeptResults(budget(10)); // 40 characters
    const small = text('short');
    expect(kept.cut(small, 't')).toBe(small);
    const exact = text('e'.repeat(40)); // exactly the budget: not cut
    expect(kept.cut(exact, 't')).toBe(exact);
    const lined = kept.cut(text('0123456789012345678901234\n0123456789012345678901234\n'), 't');
    expect(shown(lined)).toBe('0123456789012345678901234\n');
    expect(lined).toMatchObject({ cut: { keptChars: 26, totalChars: 52 } });
    const emoji = kept.cut(text('x'.repeat(39) + '😀'.repeat(10), 'c2'), 't');
    expect(shown(emoji)).toBe('x'.repeat(39)); // the pair at 39–40 is not split
    const rest = kept.read('c2', undefined, undefined);
    expect(rest.parts).toEqual([{ type: 'text', text: '😀'.repeat(10) }]);
    expect(rest.end).toBe(59);
  });

  it("B8: a tool's own error over the budget is cut in its details' content, with the notice and the sizes", () => {
    const kept = new KeptResults(budget(10));
    const error: ToolResult = {
      callId: 'e1',
      status: 'tool_error',
      error: { code: 'tool_error', message: 'failed', details: { content: [{ type: 'text', text: 'e'.repeat(100) }] } },
    };
    const cut = kept.cut(error, 't');
    // The message (6 characters) reaches the model too: it counts against the budget.
    expect(cut).toMatchObject({ status: 'tool_error', cut: { keptChars: 34, totalChars: 100 }, error: { details: { truncated: true } } });
    expect(kept.read('e1', 34, undefined).parts).toEqual([{ type: 'text', text: 'e'.repeat(40) }]);
  });

  it('B8: the run keeps at most keptBytes: the oldest is dropped first and reads as dropped; a result larger than the total is never kept', () => {
    const kept = new KeptResults(budget(10, 1000));
    for (const id of ['a', 'b', 'c']) kept.cut(text('x'.repeat(400), id), 't'); // about 430 bytes each: two fit
    expect(kept.state()?.kept.map((k) => k.callId)).toEqual(['b', 'c']);
    expect(thrown(() => kept.read('a', 0, 10))).toMatchObject({ code: 'not_found', details: { reason: 'dropped' } });
    expect(thrown(() => kept.read('zz', 0, 10))).toMatchObject({ code: 'not_found', details: { reason: 'unknown' } });
    const huge = kept.cut(text('y'.repeat(5000), 'h'), 't');
    expect(notice(huge)).toContain('The rest cannot be read');
    expect(kept.state()?.kept.map((k) => k.callId)).toEqual(['b', 'c']);
  });

  it('B8: a call id used again reads its newest result', () => {
    const kept = new KeptResults(budget(10));
    kept.cut(text('a'.repeat(100), 'same'), 't');
    kept.cut(text('b'.repeat(100), 'same'), 't');
    expect(kept.read('same', 40, 5).parts).toEqual([{ type: 'text', text: 'bbbbb' }]);
    expect(kept.state()?.kept).toHaveLength(1);
  });

  it('B8: a token counter sets the characters per token; one that throws or answers nonsense falls back to the estimate', () => {
    const twice = new KeptResults(resolveResultBudget({ tokens: 10, countTokens: (t: string) => t.length / 2 })!); // 2 characters a token
    expect(twice.cut(text('z'.repeat(100)), 't')).toMatchObject({ cut: { keptChars: 20 } });
    for (const countTokens of [
      () => Number.NaN,
      () => -5,
      () => {
        throw new Error('down');
      },
      () => 'many' as unknown as number,
    ]) {
      const kept = new KeptResults(resolveResultBudget({ tokens: 10, countTokens })!);
      expect(kept.cut(text('z'.repeat(100)), 't')).toMatchObject({ cut: { keptChars: 40 } });
    }
  });

  it('B8: the pages of a line, joined, are its text; each part is in exactly one page, and a page always moves on', () => {
    const content = [
      { type: 'text', text: 'abc' },
      { type: 'text', text: 'def' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///x', name: 'x' },
      { type: 'text', text: 'ghi' },
    ];
    const line = resultLine(content, undefined);
    expect(lineText(line)).toBe('abc\ndefghi');
    expect(line.total).toBe(12);
    const pages = [];
    for (let at = 0; at < line.total;) {
      const page = pageOf(line, at, 1);
      expect(page.end).toBeGreaterThan(at);
      pages.push(page);
      at = page.end;
    }
    const parts = pages.flatMap((p) => p.parts) as { type: string; text?: string }[];
    expect(parts.filter((p) => p.type !== 'text').map((p) => p.type)).toEqual(['image', 'resource_link']);
    expect(
      parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join(''),
    ).toBe('abc\ndefghi');
  });

  it("B8: a stored state's kept results are read as hostile: malformed entries are dropped, sizes are measured, not taken", () => {
    const kept = new KeptResults(budget(10, 2000));
    kept.load({
      kept: [
        null,
        'x',
        { callId: 'no-content', tool: 't', charsPerToken: 4, next: 0 },
        { callId: 'bad-ratio', tool: 't', content: [{ type: 'text', text: 'a' }], charsPerToken: Number.NaN, next: 0 },
        { callId: 'bad-next', tool: 't', content: [{ type: 'text', text: 'a' }], charsPerToken: 4, next: -1 },
        { callId: 'bad-part', tool: 't', content: [42], charsPerToken: 4, next: 0 },
        { callId: 'x'.repeat(600), tool: 't', content: [{ type: 'text', text: 'a' }], charsPerToken: 4, next: 0 },
        { callId: 'big', tool: 't', content: [{ type: 'text', text: 'b'.repeat(5000) }], charsPerToken: 4, next: 0, bytes: 1 },
        { callId: 'good', tool: 't', content: [{ type: 'text', text: 'g'.repeat(100) }], charsPerToken: 4, next: 40 },
      ],
      dropped: [1, {}, 'old'],
    });
    // A part that is not a typed object has no position: left out, the entry kept (an after hook may return such parts).
    expect(kept.state()?.kept.map((k) => [k.callId, k.content.length])).toEqual([
      ['bad-part', 0],
      ['good', 1],
    ]);
    expect(kept.read('good', undefined, 5).parts).toEqual([{ type: 'text', text: 'ggggg' }]);
    for (const id of ['no-content', 'bad-ratio', 'big', 'old'])
      expect(thrown(() => kept.read(id, 0, 1))).toMatchObject({ details: { reason: 'dropped' } });
    for (const junk of [undefined, null, 5, 'x', { kept: 'no' }, { kept: [], dropped: 'no' }]) {
      const fresh = new KeptResults(budget(10));
      fresh.load(junk);
      expect(fresh.offered).toBe(false);
    }
  });
});
