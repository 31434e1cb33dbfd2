import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { CODE_EXIT } from '../src/cli/terminal.js';
import { AGT_ERROR_CODES, AgtError, isAgtError } from '../src/index.js';
import { toolErrorOf } from '../src/adapters.js';
import { REPO_ROOT } from './support/index.js';

describe('AgtError', () => {
  it('carries a stable code, details and cause', () => {
    const cause = new Error('root');
    const error = new AgtError('not_found', 'no such resource', { details: { reference: 'a/b' }, cause });
    expect(error.code).toBe('not_found');
    expect(error.name).toBe('AgtError');
    expect(error.details).toEqual({ reference: 'a/b' });
    expect(error.cause).toMatchObject({ name: 'Error', message: 'root' }); // a redacted copy (R7)
    expect(error.toToolError()).toEqual({ error: { code: 'not_found', message: 'no such resource', details: { reference: 'a/b' } } });
  });

  it('isAgtError recognises the brand, not the class identity (ESM/CJS copies)', () => {
    const foreign = Object.assign(new Error('x'), { code: 'not_found' });
    Object.defineProperty(foreign, Symbol.for('agt-mcp.AgtError'), { value: true });
    expect(isAgtError(foreign)).toBe(true);
    expect(isAgtError(new Error('x'))).toBe(false);
    expect(isAgtError({ code: 'not_found' })).toBe(false);
    expect(isAgtError(null)).toBe(false);
  });

  it('lists every code once and builds ToolErrors without empty details', () => {
    expect(new Set(AGT_ERROR_CODES).size).toBe(AGT_ERROR_CODES.length);
    expect(toolErrorOf('x', 'y')).toEqual({ error: { code: 'x', message: 'y' } });
  });

  it('one list of codes: docs/errors.md has a row for exactly these codes, and docs/cli.md names each with the exit CODE_EXIT gives it', () => {
    const rows = (file: string) =>
      fs
        .readFileSync(path.join(REPO_ROOT, 'docs', file), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('| '));
    const documented = rows('errors.md')
      .map((l) => /^\| `([a-z_]+)` \|/.exec(l)?.[1])
      .filter((c): c is string => c !== undefined);
    expect([...documented].sort()).toEqual([...AGT_ERROR_CODES].sort());
    const named = new Map<string, number>();
    for (const row of rows('cli.md')) {
      const exit = /^\| ([0-5]) \|/.exec(row)?.[1];
      if (exit !== undefined)
        for (const m of row.matchAll(/`([a-z_]+)`/g))
          if ((AGT_ERROR_CODES as readonly string[]).includes(m[1] as string)) named.set(m[1] as string, Number(exit));
    }
    expect(Object.fromEntries([...named].sort())).toEqual(Object.fromEntries(Object.entries(CODE_EXIT).sort()));
  });
});

describe('readToolError', () => {
  it('reads the ToolError convention from tool-result text, and nothing else', async () => {
    const { readToolError } = await import('../src/errors.js');
    expect(readToolError([{ type: 'text', text: '{"error":{"code":"not_found","message":"no such ticket","details":{"id":4}}}' }])).toEqual(
      {
        code: 'not_found',
        message: 'no such ticket',
        details: { id: 4 },
      },
    );
    expect(readToolError([{ type: 'text', text: '{"error":{"code":"x"}}' }])).toEqual({ code: 'x', message: 'the tool reported an error' });
    expect(readToolError([{ type: 'text', text: 'plain failure text' }])).toBeUndefined();
    expect(readToolError([{ type: 'text', text: '{"error":"not an object"}' }])).toBeUndefined();
    expect(readToolError([{ type: 'image', data: '…' }])).toBeUndefined();
  });
});
