import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonc } from '../../src/config.js';
import { JsoncError } from '../../src/config/jsonc.js';
import { MAX_JSONC_DEPTH } from '../../src/bounds.js';
import { runAgt } from '../support/cli.js';
import { tempDir } from '../support/index.js';

// R2: configs pasted from VS Code's mcp.json are read as VS Code reads them (jsonc-parser).
describe('JSONC (mcp.json as VS Code reads it)', () => {
  const positionOf = (text: string) => {
    try {
      parseJsonc(text);
    } catch (error) {
      return error instanceof JsoncError ? error.position : -1;
    }
    return undefined;
  };

  it('R2: comments, trailing commas and a BOM are accepted; "//" inside strings is text', () => {
    const text = '\uFEFF// servers\n{ "servers": { "a": { "command": "npx", "args": ["-y", "https://x.test//y",], /* why */ }, }, }';
    expect(parseJsonc(text)).toEqual({ servers: { a: { command: 'npx', args: ['-y', 'https://x.test//y'] } } });
  });

  it('R2: on plain JSON the value is JSON.parse\'s, "__proto__" an own key; malformed text fails at the position JSON.parse names', () => {
    for (const text of ['{"a":[1,2.5e3,-0,"é\\u0041",true,null,{}]}', '{"__proto__":{"polluted":1},"a":1,"a":2}', '"text"', '7']) {
      const value = parseJsonc(text);
      expect(value).toEqual(JSON.parse(text));
      expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(text)));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The texts whose JSON.parse error names a position (Node 20's V8 names none for some).
    for (const text of ['{"a" 1}', '{nope', '{"a":1}}', '{"a":"b\n"}', '{"a":"b', '{"a":"\\q"}', '{"a":"\\u12"}', '{"a":1 "b":2}']) {
      const native = /position (\d+)/.exec(
        (() => {
          try {
            JSON.parse(text);
            return '';
          } catch (e) {
            return (e as Error).message;
          }
        })(),
      )?.[1];
      expect(native).toBeDefined();
      expect({ text, at: positionOf(text) }).toEqual({ text, at: Number(native) });
    }
    expect(positionOf('[1,,2]')).toBe(3);
  });

  it('R2: nesting deeper than MAX_JSONC_DEPTH is refused by a linear scan before parsing (no stack overflow on a 4 MB file)', () => {
    expect(positionOf('['.repeat(4_000_000))).toBe(MAX_JSONC_DEPTH);
    expect(parseJsonc(`${'['.repeat(MAX_JSONC_DEPTH)}${']'.repeat(MAX_JSONC_DEPTH)}`)).toBeDefined();
  });

  it("R2: agt mcp import of a malformed file says where (the character offset), never the file's text", async () => {
    const tmp = tempDir('agt-jsonc-');
    try {
      const file = path.join(tmp.dir, 'mcp.json');
      const text = '{ "servers": { "a": { "command": "npx", "env": { "TOKEN": "sk-live-SECRET-123" } } ';
      fs.writeFileSync(file, text);
      const out = await runAgt(['mcp', 'import', file], { home: tmp.dir, db: path.join(tmp.dir, 'agt.db') });
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(`is not valid JSON or JSONC (near character ${text.length})`); // the end: a brace is missing
      expect(out.stderr + out.stdout).not.toContain('sk-live-SECRET-123');
    } finally {
      tmp.cleanup();
    }
  });
});
