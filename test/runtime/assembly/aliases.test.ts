import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolAlias } from '../../../src/index.js';
import { MODEL_TOOL_NAME } from '../../../src/runtime/assembly/aliases.js';

const part = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/);
const reference = fc.tuple(part, part).map(([c, n]) => `${c}/${n}`);
const toolName = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,30}$/),
  fc.string({ maxLength: 90 }),
  fc.constantFrom('read_file', 'a__b', 'x.y', 'has space', '_'),
);

describe('F5: tool aliases', () => {
  it('F5: readable when lossless', () => {
    expect(toolAlias('tools/files', 'read_file')).toBe('tools__files__read_file');
    expect(toolAlias('tools/files', 'read.file')).toMatch(/^read_file_h[0-9a-f]{16}$/);
  });

  it('F5: property — every alias is valid for OpenAI, Anthropic and Gemini', () => {
    fc.assert(
      fc.property(reference, toolName, (ref, tool) => MODEL_TOOL_NAME.test(toolAlias(ref, tool))),
      { numRuns: 3000 },
    );
  });

  it('F5: property — injective: different (reference, tool) pairs never share an alias', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(reference, toolName), { minLength: 2, maxLength: 40, selector: ([r, t]) => `${r}\0${t}` }),
        (pairs) => {
          const aliases = pairs.map(([r, t]) => toolAlias(r, t));
          expect(new Set(aliases).size).toBe(aliases.length);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('F5: property — never position-based: reordering or adding mounts keeps every alias pointing at its tool', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(reference, fc.array(toolName, { maxLength: 5 })), { maxLength: 8 }),
        fc.tuple(reference, fc.array(toolName, { maxLength: 5 })),
        (mounts, added) => {
          const table = (list: typeof mounts) =>
            new Map(list.flatMap(([r, tools]) => tools.map((t) => [toolAlias(r, t), `${r}\0${t}`] as const)));
          const before = table(mounts);
          const after = table([added, ...[...mounts].reverse()]);
          for (const [alias, target] of before) expect(after.get(alias)).toBe(target);
        },
      ),
      { numRuns: 500 },
    );
  });
});
