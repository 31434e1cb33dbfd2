/**
 * Valibot's common string actions published as exact patterns (C2):
 * `v.email()`, `v.uuid()`, `v.isoDate()`, `v.isoDateTime()` … are
 * published as the JSON Schema `pattern` that matches exactly what valibot's
 * own check matches, so the published schema (what the server and hosts check)
 * and valibot agree. Proved by a property test per action: strings near
 * valid ones — case changed, the letters that fold to ASCII under Unicode
 * (U+212A, U+017F), astral and other characters put in, taken out, swapped —
 * and valibot's check and the server's parse give the same verdict on each.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { exactPattern } from '../../../src/schema/valibot/action-patterns.js';
import { defineTool, parseArguments } from '../../../src/authoring/index.js';

type Action = v.PipeItem<string, string, v.BaseIssue<unknown>>;

const ACTIONS: [string, () => Action, string[], string | undefined][] = [
  ['email', () => v.email(), ['jane.doe+x@example.com', 'a_b-c@sub.do-main.io'], 'email'],
  ['rfc_email', () => v.rfcEmail(), ["o'hara!#$%&*+/=?^_`{|}~-@x.example", 'a@b'], 'email'],
  ['uuid', () => v.uuid(), ['123e4567-e89b-12d3-a456-426614174000', 'ABCDEF01-2345-6789-abcd-ef0123456789'], 'uuid'],
  ['ipv4', () => v.ipv4(), ['192.168.0.1', '255.255.255.255', '0.0.0.0'], 'ipv4'],
  ['ipv6', () => v.ipv6(), ['2001:db8::1', 'fe80::1%eth0', '::ffff:192.168.0.1', 'FFFF::'], undefined],
  ['iso_date', () => v.isoDate(), ['2024-02-29', '1999-12-31'], 'date'],
  ['iso_date_time', () => v.isoDateTime(), ['2024-02-29T23:59', '2024-01-01 00:00'], undefined],
  ['iso_timestamp', () => v.isoTimestamp(), ['2024-02-29T23:59:59.123Z', '2024-01-01 00:00:00 +0130', '2024-01-01T00:00:00-05'], undefined],
  ['iso_time', () => v.isoTime(), ['23:59', '00:00'], undefined],
  ['base64', () => v.base64(), ['SGVsbG8=', 'U2s=', 'AAAA'], undefined],
  ['regex /iu', () => v.regex(/^[a-k]+-\w{2}$/iu), ['abk-x1', 'KICK-sk'], undefined],
  ['regex /i', () => v.regex(/^[b-d]s+$/i), ['bs', 'Dss'], undefined],
];

// Characters the mutations put in: other cases, the Unicode folds of k and s, separators, digits, astral, controls.
const ALPHABET = [
  'a',
  'F',
  'g',
  'k',
  'K',
  's',
  'S',
  'z',
  'Z',
  '\u212a',
  '\u017f',
  '0',
  '9',
  '5',
  '-',
  '.',
  ':',
  '@',
  '%',
  'T',
  ' ',
  '+',
  '/',
  '=',
  '_',
  '😀',
  '\n',
  'é',
  'İ',
];
const char = fc.constantFrom(...ALPHABET);

const mutated = (seeds: string[]) =>
  fc
    .tuple(
      fc.constantFrom(...seeds),
      fc.array(fc.tuple(fc.constantFrom('set', 'insert', 'delete', 'case'), fc.nat(), char), { minLength: 0, maxLength: 3 }),
    )
    .map(([seed, edits]) => {
      const chars = [...seed];
      for (const [kind, at, c] of edits) {
        const i = chars.length === 0 ? 0 : at % chars.length;
        if (kind === 'set') chars[i] = c;
        else if (kind === 'insert') chars.splice(i, 0, c);
        else if (kind === 'delete') chars.splice(i, 1);
        else chars[i] = chars[i] === chars[i]?.toUpperCase() ? (chars[i]?.toLowerCase() ?? '') : (chars[i]?.toUpperCase() ?? '');
      }
      return chars.join('');
    });

describe('C2: valibot string actions published as exact patterns', () => {
  for (const [name, action, seeds, format] of ACTIONS) {
    it(`C2: ${name}: the published pattern and valibot accept exactly the same strings`, () => {
      const tool = defineTool({ name: 't', description: '', input: v.object({ x: v.pipe(v.string(), action()) }), handler: () => 'ok' });
      const published = (tool.inputSchema.properties as Record<string, Record<string, unknown>>).x;
      expect(typeof published?.pattern).toBe('string');
      expect(published?.format).toBe(format); // the format stays only where valibot's strings are all in its grammar
      const check = v.pipe(v.string(), action());
      for (const seed of seeds) expect([seed, v.is(check, seed)]).toEqual([seed, true]);
      fc.assert(
        fc.property(fc.oneof(mutated(seeds), fc.string({ unit: char, maxLength: 12 })), (s) => {
          expect([s, parseArguments(tool, { x: s }).ok]).toEqual([s, v.is(check, s)]);
        }),
        { numRuns: 1500, seed: 39 },
      );
    });
  }

  it('C2: what a pattern cannot state exactly is still refused at definition, with the fix', () => {
    const make = (input: v.GenericSchema) => () => defineTool({ name: 'x', description: '', input, handler: () => 'ok' });
    expect(make(v.object({ home: v.pipe(v.string(), v.url()) }))).toThrow(
      /"\/home" uses the valibot action "url", published as format "uri".*v\.regex/,
    );
    // Two patterns on one string: JSON Schema has one pattern per schema, and dropping either would check less.
    expect(make(v.object({ who: v.pipe(v.string(), v.regex(/^a/), v.email()) }))).toThrow(/cannot be combined with another pattern/);
    expect(make(v.object({ who: v.pipe(v.string(), v.email(), v.regex(/^a/)) }))).toThrow(/cannot be combined with another pattern/);
    expect(make(v.object({ w: v.pipe(v.string(), v.regex(/^\W$/iu)) }))).toThrow(/RegExp flags are not supported/);
    expect(make(v.object({ w: v.pipe(v.string(), v.regex(/^a$/m)) }))).toThrow(/RegExp flags are not supported/);
  });

  it('C2: the i flag is spelt out only where that is exact', () => {
    expect(exactPattern(/^[a-f]k$/iu)).toBe('^[a-fA-F][kK\\u212A]$');
    expect(exactPattern(/^[a-f]k$/i)).toBe('^[a-fA-F][kK]$'); // without u no non-ASCII letter folds to an ASCII one
    expect(exactPattern(/^\w$/iu)).toBe('^[\\w\\u212A\\u017F]$');
    for (const refused of [/^\W$/iu, /^\bx$/iu, /^(?=a)b$/iu, /^\p{L}$/iu, /^(a)\1$/i, /^é$/iu, /^[^x-z]s$/i, /x/g, /x/y, /^a$/m, /a.b/s])
      expect([refused, exactPattern(refused)]).toEqual([refused, undefined]);
    // Without u a dot or a negated class matches half an astral character.
    expect(exactPattern(/^a.b$/)).toBeUndefined();
    expect(exactPattern(/^[^x]$/)).toBeUndefined();
    expect(exactPattern(/^a.b$/u)).toBe('^a.b$');
  });
});
