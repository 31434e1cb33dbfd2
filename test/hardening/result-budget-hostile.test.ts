/**
 * B8 under attack: a hostile server (many tiny parts, odd parts, huge or odd
 * text), a hostile model (odd result_read arguments), a hostile store record
 * (an edited suspended state, an edited SQLite file) and the run's other
 * paths (a deferred read, a collected task, keptBytes 0, a refresh, tool
 * search, a delegate named result_read). What must hold: bounded time and
 * memory, a result the model can read (never a thrown batch), no content in
 * audit events, outside text escaped, the documented behaviour.
 */
import path from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createToolServer, defineTool, serveHttp } from '../../src/authoring/index.js';
import { type AuditEvent, NativeRun, policies, type ToolResult, toolAlias } from '../../src/index.js';
import { needsEscape } from '../../src/outside-text.js';
import { resolveResultBudget } from '../../src/runtime/results/budget.js';
import { KeptResults } from '../../src/runtime/results/kept-results.js';
import { SqliteRunStore } from '../../src/storage/sqlite.js';
import { failure, thrown } from '../support/paths.js';
import { batch, py, runFixture } from '../support/runs.js';
import { rawSqlite } from '../support/sqlite.js';

type Part = { type: string; text?: string; data?: unknown; mimeType?: string };
const ok = (result: ToolResult | undefined): Part[] => {
  if (result?.status !== 'ok') throw new Error(`not ok: ${JSON.stringify(result).slice(0, 300)}`);
  return result.content as Part[];
};
const notice = (result: ToolResult | undefined) => String(ok(result).at(-1)?.text);
const shown = (parts: Part[]) =>
  parts
    .slice(0, -1)
    .map((p) => p.text ?? '')
    .join('');
const budget = (tokens: number, keptBytes = 1024 * 1024) => resolveResultBudget({ tokens, keptBytes })!;
const result = (content: unknown[], callId = 'c1', structuredContent?: unknown): ToolResult =>
  ({ callId, status: 'ok', content, ...(structuredContent === undefined ? {} : { structuredContent }) }) as ToolResult;
const read = (args: Record<string, unknown> | string, id: string) => ({
  callId: id,
  name: 'result_read',
  arguments: args,
});
const LINES = { callId: 'c1', name: py('lines'), arguments: { n: 3000, width: 100 } }; // 300,000 characters: cut at 100,000

// Every page of `callId` from `offset`, through `pageOf` (unit level): the text joined and the parts that are not text.
function readAll(kept: KeptResults, callId: string, offset: number, limit?: number) {
  let text = '';
  const others: Part[] = [];
  for (let at = offset, pages = 0; ; pages++) {
    if (pages > 10_000) throw new Error('no end');
    const page = kept.read(callId, at, limit);
    for (const p of page.parts as Part[])
      if (p.type === 'text') text += p.text;
      else others.push(p);
    if (page.end >= page.total) return { text, others };
    expect(page.end).toBeGreaterThan(at);
    at = page.end;
  }
}

describe('B8: a hostile server (real process)', () => {
  const f = runFixture(['results', 'hostile']);

  it('B8: a result nested 5,000 levels beside a tiny budget is a result the model reads, never a thrown batch', async () => {
    const run = await f.start({ resultBudget: { tokens: 1 } });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'd1', name: py('deep'), arguments: { depth: 5000 } }]));
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0]).length).toBeLessThan(5_000);
  });

  it('B8: 100,000 one-character parts are cut at the budget and read on to the end: few parts a page, the text exact', async () => {
    const events: AuditEvent[] = [];
    const run = await f.start({ resultBudget: { tokens: 5000 }, audit: { record: (e) => void events.push(e) } });
    const { results } = await run.executeBatch(batch(run, [{ callId: 'p1', name: py('parts'), arguments: { n: 100_000 } }]));
    const parts = ok(results[0]);
    expect(parts).toHaveLength(2); // one text, the notice
    const cut = results[0]?.status === 'ok' ? results[0].cut : undefined;
    expect(cut?.keptChars).toBe(20_000);
    let text = shown(parts);
    for (let next: number | undefined = 20_000, n = 0; next !== undefined; n++) {
      const page = await run.executeBatch(batch(run, [read({ callId: 'p1', offset: next }, `r${n}`)]));
      const pageParts = ok(page.results[0]);
      expect(pageParts.length).toBeLessThanOrEqual(2);
      text += shown(pageParts);
      const m = /"offset":(\d+)\}\]$/.exec(notice(page.results[0]));
      next = m ? Number(m[1]) : undefined;
    }
    // Stage 7 kept the parts within maxResultBytes, with its notice; the budget's pages joined are exactly that.
    expect(text.length).toBe(cut?.totalChars);
    expect(text).toMatch(/^(?:[a-z]\n){30000,}\[agt-mcp: the result was about \d+ bytes; only the first 1048576 are kept/);
    expect(JSON.stringify(events)).not.toContain('a\\nb\\nc'); // sizes, never content
  });
});

describe('B8: hostile parts and texts (KeptResults)', () => {
  it('B8: non-string texts, huge or non-string image data, unknown part types: cut within bounds, each part read once', () => {
    const kept = new KeptResults(budget(100, 4 * 1024 * 1024)); // 400 characters a page; the 2 MB image kept
    const content = [
      { type: 'text', text: 42 },
      { type: 'text', text: { evil: true } },
      { type: 'image', data: 'A'.repeat(2_000_000), mimeType: 'image/png\u202e\u0007' },
      { type: 'image', data: { not: 'a string' }, mimeType: 7 },
      { type: { nested: 'type' } },
      { type: 'x-unknown', payload: 'p'.repeat(10_000) },
      { type: 'text', text: 'tail '.repeat(200) },
    ];
    const cut = kept.cut(result(content), 't');
    const parts = ok(cut);
    expect(JSON.stringify(parts).length).toBeLessThan(2_000); // references, never the 2 MB of data
    for (const p of parts) expect(needsEscape(p.text ?? '')).toBe(false); // the server's MIME type and part type, escaped
    const all = readAll(kept, 'c1', 0); // from the start: every part once, as itself
    expect(all.others.map((p) => p.type)).toEqual(['image', 'image', { nested: 'type' }, 'x-unknown']);
    expect((all.others[0]?.data as string).length).toBe(2_000_000);
    expect(all.text).toBe('tail '.repeat(200));
  });

  it('B8: a text of only newlines, a text with no newline, lone surrogates: pages join to the text exactly and always move on', () => {
    for (const t of ['\n'.repeat(1000), 'x'.repeat(1000), '\ud800'.repeat(500) + '\udc00'.repeat(500), 'a\ud83d'.repeat(400)]) {
      const kept = new KeptResults(budget(10));
      const cut = kept.cut(result([{ type: 'text', text: t }]), 't');
      const first = shown(ok(cut));
      expect(first.length).toBeLessThanOrEqual(41);
      expect(first + readAll(kept, 'c1', first.length).text).toBe(t);
      expect(first + readAll(kept, 'c1', first.length, 1).text).toBe(t); // a page of one unit still moves on
    }
  });

  it('B8: structured content deep or huge is cut and kept within bounds; a read never throws', () => {
    let deep: Record<string, unknown> = { leaf: 'x'.repeat(50) };
    for (let i = 0; i < 60; i++) deep = { a: deep, pad: 'p'.repeat(10) };
    const wide = { rows: Array.from({ length: 20_000 }, (_, i) => ({ id: i })) };
    for (const structured of [deep, wide]) {
      const kept = new KeptResults(budget(50));
      const cut = kept.cut(result([], 'c1', structured), 't');
      expect(cut.status === 'ok' && cut.cut!.totalChars).toBe(JSON.stringify(structured).length);
      expect(JSON.parse(shown(ok(cut)) + readAll(kept, 'c1', cut.status === 'ok' ? cut.cut!.keptChars : 0).text)).toEqual(structured);
    }
  });

  // Found in the hostile pass (fixed): the cut's references promise `result_read … returns it` for a result the run does not keep (keptBytes 0, a
  // result larger than keptBytes, a call id over 512 characters); with a long call id each reference repeats it whole.
  it('B8: a result the run cannot keep has references that do not promise result_read, and they stay short', () => {
    const content = [
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: 'z'.repeat(1000) },
    ];
    const none = new KeptResults(budget(10, 0));
    expect(JSON.stringify(ok(none.cut(result(content), 't')))).not.toContain('returns it');
    const longId = new KeptResults(budget(10));
    const cut = ok(longId.cut(result(content, 'i'.repeat(100_000)), 't'));
    expect(JSON.stringify(cut).length).toBeLessThan(2_000);
  });

  // Found in the hostile pass (fixed): an offset the model chose inside a surrogate pair starts the page with half a pair (a provider refuses it).
  it('B8: a page from an offset inside a surrogate pair never starts with half of it', () => {
    const kept = new KeptResults(budget(10));
    kept.cut(result([{ type: 'text', text: '\u{1f600}'.repeat(100) }]), 't');
    expect(needsEscape((kept.read('c1', 41, 10).parts[0] as Part).text!)).toBe(false);
  });
});

describe('B8: a hostile store record', () => {
  it('B8: wrong types, a huge kept list, a 50 MB entry, duplicate call ids: loaded in bounded time, the newest of an id read', () => {
    for (const junk of [[], 'results', 5, { kept: {} }, { kept: [{ callId: 5 }], dropped: [null, 'x'.repeat(10_000)] }]) {
      const kept = new KeptResults(budget(10));
      kept.load(junk);
      expect(thrown(() => kept.read('c1', 0, 1))).toMatchObject({ code: 'not_found' });
    }
    const entry = (callId: string, text: string, next = 0) => ({
      callId,
      tool: 't',
      content: [{ type: 'text', text }],
      charsPerToken: 4,
      next,
    });
    const kept = new KeptResults(budget(10, 4096));
    const many = Array.from({ length: 200_000 }, (_, i) => entry(`id-${i}`, 'k'));
    // Only the newest 10,000 entries are looked at; the 50 MB one is measured up to keptBytes, never whole.
    kept.load({
      kept: [...many, entry('huge', 'g'.repeat(50 * 1024 * 1024)), entry('dup', 'old'.repeat(50)), entry('dup', 'new'.repeat(50))],
    });
    expect(thrown(() => kept.read('huge', 0, 1))).toMatchObject({ details: { reason: 'dropped' } });
    expect(kept.read('dup', 0, 3).parts).toEqual([{ type: 'text', text: 'new' }]);
    const state = kept.state()!;
    expect(state.kept.reduce((n, k) => n + JSON.stringify(k.content).length, 0)).toBeLessThanOrEqual(4096); // keptBytes
    expect(state.dropped?.length).toBe(1000); // the last 1,000 dropped ids, no more
  });

  // Found in the hostile pass (fixed): a stored entry's charsPerToken is taken from the record: 64 makes a page 16 times the run's budget.
  it("B8: a record's charsPerToken cannot widen a page past the run's budget (no counter: 4 characters a token)", () => {
    const kept = new KeptResults(budget(10));
    kept.load({ kept: [{ callId: 'w', tool: 't', content: [{ type: 'text', text: 'w'.repeat(10_000) }], charsPerToken: 64, next: 0 }] });
    expect(kept.read('w', undefined, undefined).end).toBeLessThanOrEqual(40);
  });

  // Found in the hostile pass (fixed): a kept result with parts that are not typed objects (an after hook's content) reads in the run that cut it,
  // but its own state() is refused by load(): resumed, it reads as "no longer kept (keptBytes)".
  it('B8: what state() writes, load() reads back: a result with untyped parts still reads after a resume', () => {
    const first = new KeptResults(budget(10));
    first.cut(result([null, 'str', { type: 'text', text: 'x'.repeat(100) }], 'h'), 't');
    const resumed = new KeptResults(budget(10));
    resumed.load(JSON.parse(JSON.stringify(first.state())));
    expect(resumed.read('h', 40, 5).parts).toEqual(first.read('h', 40, 5).parts);
  });

  describe('an edited SQLite file', () => {
    const f = runFixture(['results']);
    const suspended = async () => {
      const run = await f.start();
      await run.executeBatch(batch(run, [LINES]));
      const file = path.join(f.env.tmp.dir, 'runs.db');
      const store = new SqliteRunStore({ path: file });
      await run.suspend({ store });
      await run.close();
      const edit = (statement: string) => {
        const raw = rawSqlite(file);
        try {
          raw.prepare(`UPDATE agt_runs SET state = ${statement} WHERE run_id = ?`).run(run.id);
        } finally {
          raw.close();
        }
      };
      const resume = () => NativeRun.resume(run.id, { store, service: f.env.service, policy: policies.autoAllow('*') });
      return { store, edit, resume };
    };

    it('B8: results of the wrong type, garbage content, version 4 with results: a clear error or a read that says dropped', async () => {
      const { store, edit, resume } = await suspended();
      edit(`json_set(state, '$.results.kept[0].content', 'garbage')`);
      const a = await resume();
      f.adopt(f.env, a);
      const { results } = await a.executeBatch(batch(a, [read({ callId: 'c1' }, 'r1')]));
      expect(results[0]).toMatchObject({ status: 'tool_error', error: { code: 'not_found', details: { reason: 'dropped' } } });
      await a.close();
      edit(`json_set(state, '$.results', json('[1,2,3]'))`);
      const b = await resume();
      expect(b.tools().map((t) => t.name)).not.toContain('result_read');
      await b.close();
      edit(`json_set(state, '$.version', 4, '$.results', json('{"kept":[]}'))`);
      expect((await failure(resume())).code).toMatch(/^(store_unavailable|invalid_input)$/);
      edit(`json_remove(json_set(state, '$.version', 5), '$.results')`);
      const c = await resume();
      expect(c.tools().map((t) => t.name)).not.toContain('result_read');
      await c.close();
      await store.close();
    });
  });
});

describe('B8: a hostile model (real process)', () => {
  const f = runFixture(['results']);

  it('B8: odd call ids and positions are results the model reads; no raw control or bidi character in a message', async () => {
    const run = await f.start();
    await run.executeBatch(batch(run, [LINES]));
    const odd = ['\u202egnp.exe', 'bell\u0007\u001b[31m', 'x'.repeat(600), 'a"b\\c\n', '\ud800'];
    const { results } = await run.executeBatch(
      batch(run, [
        ...odd.map((callId, i) => read({ callId }, `o${i}`)),
        read({ callId: 'c1', offset: Number.MAX_SAFE_INTEGER }, 'max'),
        read({ callId: 'c1', offset: 1e20 }, 'big'),
        read('{"callId":"c1","offset":NaN}', 'nan'),
        read('{"callId":"c1","offset":"5"}', 'str'),
        read({ callId: 'c1', limit: 0 }, 'zero'),
        read({ callId: 'c1', extra: 1 }, 'extra'),
      ]),
    );
    expect(results.map((r) => [r.callId, r.status === 'ok' ? 'ok' : r.error.code])).toEqual([
      ['o0', 'not_found'],
      ['o1', 'not_found'],
      ['o2', 'invalid_arguments'],
      ['o3', 'not_found'],
      ['o4', 'not_found'],
      ['max', 'invalid_input'],
      ['big', 'invalid_arguments'],
      ['nan', 'invalid_arguments'],
      ['str', 'invalid_arguments'],
      ['zero', 'invalid_arguments'],
      ['extra', 'invalid_arguments'],
    ]);
    for (const r of results) if (r.status !== 'ok') expect(needsEscape(r.error.message)).toBe(false);
  });

  // Found in the hostile pass (fixed): the model's call id reaches the cut notice and references through JSON.stringify, which leaves bidi controls raw.
  it("B8: a cut call's id with bidi controls reaches the notice escaped, and still reads (exact JSON)", async () => {
    const run = await f.start();
    const { results } = await run.executeBatch(batch(run, [{ ...LINES, callId: 'c\u202e1' }]));
    expect(needsEscape(notice(results[0]))).toBe(false);
    // Escaped as JSON escapes it (\u202e), the model's arguments parse back to the exact id.
    const args = JSON.parse(/result_read (\{.*\})\]$/.exec(notice(results[0]))![1]!) as Record<string, unknown>;
    expect(args.callId).toBe('c\u202e1');
    ok((await run.executeBatch(batch(run, [read(args, 'r1')]))).results[0]);
  });

  it('B8: two reads of one call in a batch read on one after the other; a read of its own id or before any cut is readable', async () => {
    const run = await f.start();
    const before = await failure(run.executeBatch(batch(run, [read({ callId: 'x' }, 'early')])));
    expect(before).toMatchObject({ code: 'batch_rejected' }); // B6: a tool the run does not offer yet, named to the model
    await run.executeBatch(batch(run, [LINES]));
    const { results } = await run.executeBatch(batch(run, [read({ callId: 'c1' }, 'a'), read({ callId: 'c1' }, 'b')]));
    const starts = results.map((r) => /characters (\d+)–/.exec(notice(r))?.[1]).sort();
    expect(starts).toEqual(['100000', '200000']);
    const self = await run.executeBatch(batch(run, [read({ callId: 'me' }, 'me')]));
    expect(self.results[0]).toMatchObject({ status: 'tool_error', error: { code: 'not_found', details: { reason: 'unknown' } } });
  });
});

describe("B8: the run's other paths (real process)", () => {
  const f = runFixture(['results', 'many']);

  it('B8: a policy defers result_read; run.decide approves it: the page, not cut again; the audit has sizes only', async () => {
    const events: AuditEvent[] = [];
    const policy = policies.chain(policies.approval('result_read'), policies.autoAllow('*'));
    const run = await f.start({ policy, toolSearch: { mode: 'off' }, audit: { record: (e) => void events.push(e) } });
    await run.executeBatch(batch(run, [LINES]));
    const b = batch(run, [read({ callId: 'c1' }, 'r1')]);
    const deferred = await run.executeBatch(b);
    expect(deferred.pending?.map((p) => p.callId)).toEqual(['r1']);
    const state = await run.suspend(); // decided in a run resumed from its state: the reader is there too
    await run.close();
    const audit = { record: (e: AuditEvent) => void events.push(e) };
    const resumed = await NativeRun.resume(state, { service: f.env.service, policy, toolSearch: { mode: 'off' }, audit });
    f.adopt(f.env, resumed);
    const { results } = await resumed.decide(b.batchId, { r1: { approve: true } });
    expect(shown(ok(results[0]))).toHaveLength(100_000);
    expect(results[0]?.status === 'ok' && results[0].cut).toBeUndefined();
    expect(events.filter((e) => e.type === 'tool_call' && e.callId === 'r1')).toEqual([
      expect.objectContaining({ status: 'ok', decidedBy: expect.any(String) }),
    ]);
    expect(JSON.stringify(events)).not.toContain('line 001');
  });

  it('B8: keptBytes 0 cuts with a notice that the rest cannot be read; result_read says dropped', async () => {
    const run = await f.start({ resultBudget: { keptBytes: 0 }, toolSearch: { mode: 'off' } });
    const { results } = await run.executeBatch(batch(run, [LINES]));
    expect(notice(results[0])).toContain('The rest cannot be read');
    const again = await run.executeBatch(batch(run, [read({ callId: 'c1', offset: 100_000 }, 'r1')]));
    expect(again.results[0]).toMatchObject({ status: 'tool_error', error: { details: { reason: 'dropped' } } });
  });

  it('B8: after a refresh at the boundary and with tool search on, result_read is offered once and reads on', async () => {
    const run = await f.start(); // 300 tools: tool search in auto mode
    await run.executeBatch(batch(run, [LINES]));
    await run.refresh();
    for (const options of [{}, { includeDeferred: true }])
      expect(run.tools(options).filter((t) => t.name === 'result_read')).toHaveLength(1);
    const { results } = await run.executeBatch(batch(run, [read({ callId: 'c1' }, 'r1')]));
    expect(notice(results[0])).toContain('characters 100000–200000 of 300000');
  });

  // Found in the hostile pass (fixed): a delegate named result_read shadows the run's result_read: cut notices send the model to the delegate.
  it('B8: a delegate tool named result_read is refused at start (it would shadow the reader the notices name)', async () => {
    const delegates = [{ name: 'result_read', targets: ['team/bob'], handler: async () => 'delegated' }];
    expect(await failure(f.start({ delegates }))).toMatchObject({ code: 'invalid_input', details: { tool: 'result_read' } });
  });
});

describe('B8: a task collected later (tasks "defer", a kit server over loopback HTTP)', () => {
  const f = runFixture([]);

  it('B8: its result over the budget is cut when collected, and result_read reads it on', async () => {
    const big = defineTool({
      name: 'big_task',
      description: 'Answers 200,000 characters, as a task.',
      input: v.object({}),
      execution: { taskSupport: 'optional' },
      handler: async () => 'q'.repeat(199_999) + '\n',
    });
    const server = await serveHttp(() =>
      createToolServer({ name: 'tasks', version: '1.0.0', tools: [big], tasks: { pollIntervalMs: 20 } }),
    );
    try {
      await f.start();
      const { service } = f.env;
      await service.write({ kind: 'mcp', reference: 'tools/tasks', create: true, data: { mcpServers: { tasks: { url: server.url } } } });
      await service.write({ kind: 'agent', reference: 'team/t', create: true, data: { mcps: ['tools/tasks'] } });
      const run = await NativeRun.start({ agent: 'team/t', service, policy: policies.autoAllow('*'), tasks: 'defer' });
      f.adopt(f.env, run);
      const b = batch(run, [{ callId: 't1', name: toolAlias('tools/tasks', 'big_task'), arguments: {} }]);
      const started = await run.executeBatch(b);
      const collected = started.pending?.length ? (await run.collect(b.batchId, { waitMs: 20_000 })).results : started.results;
      expect(collected[0]).toMatchObject({ status: 'ok', cut: { keptChars: 100_000, totalChars: 200_000 } });
      const page = await run.executeBatch(batch(run, [read({ callId: 't1' }, 'r1')]));
      expect(shown(ok(page.results[0]))).toBe('q'.repeat(99_999) + '\n');
    } finally {
      await server.close();
    }
  });
});
