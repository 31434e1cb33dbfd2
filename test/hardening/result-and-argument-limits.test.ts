/**
 * Limits on server results and arguments (found by a hostile trial): server results as hostile as
 * model arguments, and limits at their documented boundary. Real Python
 * servers over stdio; each case failed before its fix. What a call leaves
 * behind (heap and listeners over many runs) is in test/soak/.
 */
import { describe, expect, it } from 'vitest';
import { ToolSchemaRegistry } from '../../src/index.js';
import { jsonProblem } from '../../src/json.js';
import { DEFAULT_LIMITS } from '../../src/runtime/limits.js';
import { parseAndValidate } from '../../src/runtime/pipeline/stages.js';
import { EVIL_PATTERNS } from '../support/evil-patterns.js';
import { batch, py, runFixture } from '../support/runs.js';

const fx = runFixture(['big', 'hostile']);
const statusOf = (r: { status: string; error?: { code: string } }) => (r.status === 'ok' ? 'ok' : `${r.status}:${r.error?.code}`);

describe('server results are bounded before anything recurses on them', () => {
  it('B5: a result nested 10,000 levels deep ends that call as tool_failed result_too_deep; the sibling calls return', async () => {
    const run = await fx.start();
    const { results } = await run.executeBatch(
      batch(run, [
        { callId: 'deep', name: py('deep'), arguments: { depth: 10_000 } },
        { callId: 'ok', name: py('echo'), arguments: { message: 'still here' } },
      ]),
    );
    expect(results.map(statusOf)).toEqual(['tool_failed:protocol_error', 'ok']);
    expect(results[0]).toMatchObject({ error: { details: { reason: 'result_too_deep' }, message: /deeper than 64 levels/ } });
  });

  it('B5: a result within the depth limit passes unchanged', async () => {
    const run = await fx.start();
    const { results } = await run.executeBatch(batch(run, [{ callId: 'd', name: py('deep'), arguments: { depth: 50 } }]));
    expect(results.map(statusOf)).toEqual(['ok']);
  });

  it('B5: 3 MB in annotations and _meta count toward maxResultBytes: the result is cut with a notice', async () => {
    const run = await fx.start();
    const { results } = await run.executeBatch(batch(run, [{ callId: 'f', name: py('fat'), arguments: { bytes: 1_500_000 } }]));
    const result = results[0] as { status: string; content: { type: string; text: string }[] };
    expect(result.status).toBe('ok');
    expect(Buffer.byteLength(JSON.stringify(result.content))).toBeLessThanOrEqual(DEFAULT_LIMITS.maxResultBytes + 1024);
    expect(result.content.at(-1)?.text).toMatch(/maxResultBytes/);
  });

  it('B5: a fuzz of result depths: every call returns a result, never a throw', async () => {
    const run = await fx.start();
    const depths = [1, 10, 62, 63, 64, 65, 100, 1000, 5000, 20_000];
    const { results } = await run.executeBatch(
      batch(
        run,
        depths.map((depth, i) => ({ callId: `d${i}`, name: py('deep'), arguments: { depth } })),
      ),
    );
    // The result object is level 0 and structuredContent is `depth` nested objects (levels 1…depth): 64 levels are too deep.
    expect(results.map(statusOf)).toEqual(depths.map((d) => (d >= 64 ? 'tool_failed:protocol_error' : 'ok')));
  });
});

describe('argument limits at their documented boundary', () => {
  const registry = new ToolSchemaRegistry();
  const route = { validator: registry.compile({ type: 'object' }, { tool: 't' }) };
  const limit = DEFAULT_LIMITS.maxArgumentBytes;
  // {"s":"…"} is 8 bytes around the text
  const ofBytes = (n: number, unit = 'a') => ({ s: unit.repeat((n - 8) / Buffer.byteLength(unit)) });

  it('B4: arguments of exactly maxArgumentBytes UTF-8 bytes pass, one byte more is invalid_arguments (object and JSON text)', () => {
    const exact = ofBytes(limit);
    expect(Buffer.byteLength(JSON.stringify(exact))).toBe(limit);
    expect(parseAndValidate('a', exact, route).go).toBe(true);
    expect(parseAndValidate('a', JSON.stringify(exact), route).go).toBe(true);
    const over = { s: `${exact.s}a` };
    expect(parseAndValidate('a', over, route).go).toBe(false);
    expect(parseAndValidate('a', JSON.stringify(over), route).go).toBe(false);
  });

  it('B4: 1.2 MB of multi-byte UTF-8 in fewer than 1 MiB UTF-16 units is over the limit', () => {
    const wide = { s: 'é'.repeat(600_000) }; // 600,000 units, 1.2 MB as UTF-8
    expect(parseAndValidate('a', wide, route)).toMatchObject({ go: false, result: { status: 'invalid_arguments' } });
    expect(parseAndValidate('a', JSON.stringify(wide), route)).toMatchObject({ go: false, result: { status: 'invalid_arguments' } });
  });

  it('B4: the exact size counts escapes, astral characters and lone surrogates as JSON.stringify writes them', () => {
    const samples = [
      { s: '"\\\n\t\u0001' },
      { s: '😀x', n: 1.5, t: true, z: null },
      { s: '\ud800' },
      [1, 'é', { k: [] }],
      { u: undefined, a: [undefined] },
    ];
    for (const sample of samples) {
      const bytes = Buffer.byteLength(JSON.stringify(sample));
      expect(jsonProblem(sample, { depth: 64, bytes })).toBeUndefined();
      expect(jsonProblem(sample, { depth: 64, bytes: bytes - 1 })).toBe('too_large');
    }
  });

  it('B4: a host-built sparse array of 20 million slots is refused without walking it', () => {
    let reads = 0;
    const list = new Proxy(new Array(2e7), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    expect(parseAndValidate('a', { list }, route)).toMatchObject({ go: false, result: { status: 'invalid_arguments' } });
    expect(reads).toBe(0);
  });
});

describe('patterns never block the event loop', () => {
  const registry = new ToolSchemaRegistry();

  it('S7: every classic evil pattern either runs in linear time or fails to load as unsafe_pattern (that tool alone); none blocks', () => {
    let worst = 0;
    for (const [pattern, input] of EVIL_PATTERNS) {
      for (const schema of [
        { type: 'object', properties: { s: { type: 'string', pattern } } },
        { type: 'object', propertyNames: { pattern } },
      ]) {
        let compiled;
        try {
          compiled = registry.compile(schema, { tool: 'evil' });
        } catch (error) {
          expect(error).toMatchObject({ code: 'schema_load_failed', details: { reason: 'unsafe_pattern' } });
          continue;
        }
        const started = performance.now();
        compiled.validate({ s: input, [input]: 1 });
        worst = Math.max(worst, performance.now() - started);
      }
      let keyed;
      try {
        keyed = registry.compile({ type: 'object', patternProperties: { [pattern]: { type: 'string' } } }, { tool: 'evil' });
      } catch (error) {
        expect(error).toMatchObject({
          code: 'schema_load_failed',
          details: { reason: 'unsafe_pattern', schemaPath: expect.stringMatching(/^\/patternProperties\//) },
        });
        continue;
      }
      const started = performance.now();
      keyed.validate({ [input]: 'x' });
      worst = Math.max(worst, performance.now() - started);
    }
    // The bar is 50 ms (docs/benchmarks.md measures it unloaded); a loaded CI machine gets slack, a backtracking engine takes seconds to hours.
    expect(worst).toBeLessThan(1000);
  });

  it('S2: a translated pattern keeps ECMA-262 semantics (dot, \\s, \\u escapes, classes, anchors) on 2,000 random strings', () => {
    const patterns = [
      '^a.c$',
      '^\\s+$',
      '^[\\s\\d]+$',
      '\\S',
      '^\\u00e9+$',
      '^\\u{1F600}$',
      '^[^\\n]*$',
      'b$',
      '^(?:ab|cd)+$',
      '^[a-z]{2,4}$',
      '^(?<x>a)b',
      '^\\w+@\\w+\\.\\w{2,}$',
    ];
    const alphabet = ['a', 'b', 'c', 'd', ' ', '\n', '\r', '\u2028', '\u00a0', '\ufeff', '\t', 'é', '😀', '@', '.', '1', '_', 'x'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const pattern of patterns) {
      const compiled = registry.compile({ type: 'object', properties: { s: { type: 'string', pattern } } }, { tool: 't' });
      const native = new RegExp(pattern, 'u');
      for (let i = 0; i < 2000 / patterns.length; i++) {
        const text = Array.from({ length: Math.floor(random() * 8) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
        expect({ pattern, text, ok: compiled.validate({ s: text }).ok }).toEqual({ pattern, text, ok: native.test(text) });
      }
    }
  });

  it('S8: a translated pattern is reported as the server wrote it: keyword pattern, its schema path, never the value', () => {
    const compiled = registry.compile(
      { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}\\s\\d+$' } } },
      { tool: 't' },
    );
    const result = compiled.validate({ code: 'secret-value-1' });
    expect(result).toEqual({
      ok: false,
      issues: [
        {
          instancePath: '/code',
          schemaPath: '/properties/code/pattern',
          keyword: 'pattern',
          message: 'must match the pattern "^[A-Z]{3}\\\\s\\\\d+$"',
        },
      ],
    });
  });
});
