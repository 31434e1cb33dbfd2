/**
 * Hostile and broken input, each with a stable error code and nothing lost:
 * prototype keys, huge and deeply nested documents, oversized and deep
 * arguments, huge batches and results, servers that flood stdout or send
 * invalid UTF-8 (S4, S8, B4, B5, B6, R2).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp, executeModelCalls, MemoryStore, ResourceService } from '../../src/index.js';
import { batch, failure, livingWithMarker, marker, py, pythonConfig, REPO_ROOT, runFixture, tempDir } from '../support/index.js';

const tmp = tempDir('agt-hostile-');
afterAll(() => tmp.cleanup());
const fx = runFixture(['big']);
const prototypeNames = () => Object.getOwnPropertyNames(Object.prototype).sort();
const before = prototypeNames();
const deepJson = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;

function agt(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'dist', 'cli.js'), ...args, '--store', path.join(tmp.dir, 'cli.db')],
      { cwd: tmp.dir, env: { ...process.env, AGT_HOME: tmp.dir }, maxBuffer: 8 * 1024 * 1024 },
      (e, stdout, stderr) => resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

describe('prototype keys', () => {
  it('R2: __proto__, constructor and prototype keys in configs, agents and skills are kept as own keys; Object.prototype is untouched', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const config = JSON.parse(
      `{"mcpServers":{"s":{"command":"node","cwd":"/srv","env":{"__proto__":"p","constructor":"c","prototype":"t"},"__proto__":{"polluted":true}}}}`,
    );
    const { warnings } = await service.write({ kind: 'mcp', reference: 'a/s', create: true, data: config });
    const env = ((await service.read({ kind: 'mcp', reference: 'a/s' })).data as { mcpServers: { s: { env: Record<string, string> } } })
      .mcpServers.s.env;
    expect(Object.keys(env)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
    expect(warnings.join()).toMatch(/unknown key "__proto__" kept as is/);
    const stored = (await service.read({ kind: 'mcp', reference: 'a/s' })).data as { mcpServers: { s: Record<string, unknown> } };
    expect(Object.keys(stored.mcpServers.s)).toContain('__proto__'); // kept, as the warning says
    // An agent's unknown top-level key is refused (A1: it would mount nothing); one inside settings is kept.
    await expect(
      service.write({ kind: 'agent', reference: 'a/agent', create: true, data: JSON.parse('{"__proto__":{"polluted":true}}') }),
    ).rejects.toMatchObject({ code: 'invalid_input', details: { key: '__proto__' } });
    await service.write({
      kind: 'agent',
      reference: 'a/agent',
      create: true,
      data: JSON.parse('{"settings":{"model":"m","__proto__":{"x":1}}}'),
    });
    await service.write({
      kind: 'skill',
      reference: 'a/skill',
      create: true,
      data: JSON.parse('{"description":"d","__proto__":{"polluted":true}}'),
    });
    expect(Object.keys((await service.read({ kind: 'skill', reference: 'a/skill' })).data as object)).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(prototypeNames()).toEqual(before);
  });

  it('S4/B4: a __proto__ key in tool-call arguments is an ordinary key: validation still rejects it, and nothing is polluted', async () => {
    const run = await fx.start();
    const { results } = await run.executeBatch(
      batch(run, [
        { callId: 'p1', name: py('echo'), arguments: '{"message":"hi","__proto__":{"polluted":true}}' }, // echo allows no additional properties
        { callId: 'p2', name: py('whereami'), arguments: JSON.parse('{"__proto__":{"var":"HOME"},"constructor":{"x":1}}') },
      ]),
    );
    expect(results.map((r) => r.status)).toEqual(['invalid_arguments', 'ok']);
    expect(fx.env.calls()).toEqual([{ tool: 'whereami', arguments: JSON.parse('{"__proto__":{"var":"HOME"},"constructor":{"x":1}}') }]); // S4: exactly as sent
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(prototypeNames()).toEqual(before);
  });
});

describe('huge and deep documents', () => {
  it('R2: a 50 MB config file and one nested 100,000 levels are invalid_input (exit 2), quickly and without a stack overflow', async () => {
    const big = path.join(tmp.dir, 'big.json');
    fs.writeFileSync(big, `{"mcpServers":{"s":{"command":"node","cwd":"/srv","args":["${'x'.repeat(50 * 1024 * 1024)}"]}}}`);
    const deep = path.join(tmp.dir, 'deep.json');
    fs.writeFileSync(deep, `{"mcpServers":{"s":{"command":"node","cwd":"/srv","extra":${deepJson(100_000)}}}}`);
    const huge = await agt('mcp', 'create', 'a/big', '--from', big);
    expect(huge).toMatchObject({
      code: 2,
      out: expect.stringMatching(/invalid_input: cannot read .*big\.json: it is larger than 4194304 bytes/),
    });
    const nested = await agt('mcp', 'create', 'a/deep', '--from', deep);
    // The JSONC reader refuses it by a linear scan before parsing (no recursion on hostile nesting).
    expect(nested).toMatchObject({
      code: 2,
      out: expect.stringMatching(/invalid_input: .*deep\.json nests deeper than 512 levels \(near character \d+\)/),
    });
    expect((await agt('mcp', 'list', '--json')).out.trim().split('\n')[0]).toBe('[]'); // nothing was written
  });

  it('R2: host-built data that is deep, cyclic or holds a BigInt is invalid_input, never a RangeError', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const cyclic: Record<string, unknown> = { description: 'd' };
    cyclic.self = cyclic;
    for (const data of [JSON.parse(`{"description":"d","x":${deepJson(100_000)}}`), cyclic, { description: 'd', n: 10n }]) {
      expect(await failure(service.write({ kind: 'skill', reference: 'a/s', create: true, data }))).toMatchObject({
        code: 'invalid_input',
      });
    }
    expect(await service.store.list('skill')).toEqual([]);
  });
});

describe('arguments, batches and results beyond the limits', () => {
  it("B5: arguments nested 50,000 levels (as a string and as an object), cyclic or over 1 MiB are that call's invalid_arguments; the sibling runs", async () => {
    const run = await fx.start();
    const cyclic: Record<string, unknown> = {};
    cyclic.loop = cyclic;
    const { results } = await run.executeBatch(
      batch(run, [
        { callId: 'deep-string', name: py('whereami'), arguments: deepJson(50_000) },
        { callId: 'deep-object', name: py('whereami'), arguments: JSON.parse(deepJson(100_000)) },
        { callId: 'cyclic', name: py('whereami'), arguments: cyclic },
        { callId: 'large', name: py('echo'), arguments: JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024) }) },
        { callId: 'fine', name: py('echo'), arguments: { message: 'still here' } },
      ]),
    );
    expect(results.map((r) => [r.callId, r.status])).toEqual([
      ['deep-string', 'invalid_arguments'],
      ['deep-object', 'invalid_arguments'],
      ['cyclic', 'invalid_arguments'],
      ['large', 'invalid_arguments'],
      ['fine', 'ok'],
    ]);
    expect((results[0] as { error: { message: string } }).error.message).toMatch(/deeper than 64 levels/);
    expect((results[3] as { error: { message: string } }).error.message).toMatch(/more than 1048576 bytes as UTF-8 JSON/);
    expect(fx.env.calls().map((c) => c.tool)).toEqual(['echo']);
  });

  it('B6: 10,000 calls in one batch are batch_rejected (too_many_calls, limit 512); from a model, each call gets a result', async () => {
    const run = await fx.start();
    const calls = Array.from({ length: 10_000 }, (_, i) => ({ callId: `c${i}`, name: py('echo'), arguments: { message: 'x' } }));
    await expect(run.executeBatch(batch(run, calls))).rejects.toMatchObject({
      code: 'batch_rejected',
      details: { reason: 'too_many_calls', limit: 512 },
    });
    const model = await executeModelCalls(run, calls, { batchId: 'model' });
    expect(model.results).toHaveLength(10_000);
    expect(new Set(model.results.map((r) => (r.status === 'ok' ? 'ok' : r.error.code)))).toEqual(new Set(['batch_rejected']));
    expect(fx.env.calls()).toEqual([]);
  });

  it('B3: a result over 1 MiB is cut with a notice (ok and error results alike); a smaller limit applies as given', async () => {
    const run = await fx.start({ resultBudget: false }); // the bound itself (with a budget, the model is given less: B8)
    const { results } = await run.executeBatch(
      batch(run, [
        { callId: 'big', name: py('big'), arguments: { bytes: 3 * 1024 * 1024 } },
        { callId: 'bad', name: py('big_error'), arguments: { bytes: 2 * 1024 * 1024 } },
        { callId: 'small', name: py('big'), arguments: { bytes: 10 } },
      ]),
    );
    const big = results[0] as { content: { text: string }[]; structuredContent?: unknown };
    expect(big.content.map((c) => c.text.length).reduce((a, b) => a + b)).toBeLessThanOrEqual(1024 * 1024 + 200);
    expect(big.content.at(-1)?.text).toMatch(/only the first 1048576 are kept \(maxResultBytes\)/);
    expect(big.structuredContent).toEqual({ size: 3 * 1024 * 1024 }); // small enough to keep
    const bad = results[1] as unknown as { status: string; error: { details: { content: { text: string }[]; truncated: boolean } } };
    expect(bad.status).toBe('tool_error');
    expect(bad.error.details.truncated).toBe(true);
    expect(JSON.stringify(bad.error.details.content).length).toBeLessThan(1024 * 1024 + 500);
    expect(results[2]).toMatchObject({ status: 'ok', content: [{ text: 'x'.repeat(10) }] });
    await expect(fx.start({ limits: { maxResultBytes: 0 } })).rejects.toMatchObject({
      code: 'invalid_input',
      message: /limits\.maxResultBytes/,
    });
  });
});

describe('servers that break the stream', () => {
  it('a server writing 100 MB on stdout without a newline: protocol_error oversized_message; memory stays bounded; nothing survives', async () => {
    const mark = marker();
    const rss = process.memoryUsage().rss;
    const f = await failure(connectMcp(pythonConfig({ mode: 'stdout-flood', mark, extra: ['--size', String(100 * 1024 * 1024)] })));
    expect(f).toMatchObject({ code: 'protocol_error', details: { reason: 'oversized_message' } });
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024); // the line buffer stops at 4 MiB; the rest is never held
    expect(livingWithMarker(mark)).toEqual([]);
  });

  it('a server sending invalid UTF-8: the bytes become replacement characters and the connection works', async () => {
    const connection = await connectMcp(pythonConfig({ mode: 'bad-utf8' }));
    expect(connection.serverInfo.name).toMatch(/^bad-\uFFFD+/);
    expect((await connection.callTool('echo', { message: 'ok' })).isError).toBe(false);
    await connection.close();
  });
});
