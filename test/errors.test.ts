import { describe, expect, expectTypeOf, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { CODE_EXIT } from '../src/cli/terminal/terminal.js';
import {
  AGT_ERROR_CODES,
  AgtError,
  isAgtError,
  RESULT_ERROR_CODES,
  type ResourceRecord,
  type ResultError,
  type ToolError,
  type ToolResult,
} from '../src/index.js';
import { type ProbedSchemaError, type ResultErrorCode, type ResultErrorDetails, toolErrorOf } from '../src/adapters.js';
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

  it('one list of codes: docs/errors.md has a row for exactly the result codes, marking the AgtError ones, and docs/cli.md names each AgtError code with the exit CODE_EXIT gives it', () => {
    const rows = (file: string) =>
      fs
        .readFileSync(path.join(REPO_ROOT, 'docs', file), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('| '));
    const documented = rows('errors.md')
      .map((l) => /^\| `([a-z_]+)` \| (yes|no) \|/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null);
    expect(documented.map((m) => m[1]).sort()).toEqual([...RESULT_ERROR_CODES].sort());
    expect(
      documented
        .filter((m) => m[2] === 'yes')
        .map((m) => m[1])
        .sort(),
    ).toEqual([...AGT_ERROR_CODES].sort());
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

describe('RESULT_ERROR_CODES: one vocabulary of result codes', () => {
  it('H1: one error shape: a ToolError wraps a ResultError, and a result error is typed by the list, its details by its code', () => {
    expectTypeOf<ToolError['error']>().toEqualTypeOf<ResultError>();
    expectTypeOf<ResultErrorCode>().toEqualTypeOf<(typeof RESULT_ERROR_CODES)[number]>();
    expectTypeOf<ResultError['code']>().toEqualTypeOf<ResultErrorCode>();
    expectTypeOf<keyof ResultErrorDetails>().toEqualTypeOf<ResultErrorCode>();
    // Every status but tool_error carries a listed code, and every listed code can be carried; a tool_error may carry the tool's own (C4).
    expectTypeOf<Exclude<ToolResult, { status: 'ok' | 'tool_error' }>['error']['code']>().toEqualTypeOf<ResultErrorCode>();
    expectTypeOf<Extract<ToolResult, { status: 'tool_error' }>['error']>().toEqualTypeOf<ResultError<string>>();
    expectTypeOf<ProbedSchemaError['code']>().toEqualTypeOf<ResultErrorCode>();
    expectTypeOf<NonNullable<ResourceRecord['problem']>['code']>().toExtend<ResultErrorCode>();
    const own: ToolResult = {
      callId: 'c1',
      status: 'tool_error',
      error: { code: 'insufficient_funds', message: 'the balance is too low' },
    };
    // @ts-expect-error -- a code no list holds is no permission_denied result's code
    const unlisted: ToolResult = { callId: 'c2', status: 'permission_denied', error: { code: 'nope', message: 'no' } };
    const failed = {
      callId: 'c3',
      status: 'tool_failed',
      error: { code: 'output_invalid', message: 'bad', details: { issues: [] } },
    } as ToolResult;
    if (failed.status === 'tool_failed' && failed.error.code === 'output_invalid')
      expectTypeOf(failed.error.details).toEqualTypeOf<ResultErrorDetails['output_invalid'] | undefined>();
    expect([own.status, unlisted.status, failed.status]).toEqual(['tool_error', 'permission_denied', 'tool_failed']);
  });

  it('B5: the list holds every AgtError code once, and every code the source emits in a result, a ToolError or an AgtError', () => {
    expect(new Set(RESULT_ERROR_CODES).size).toBe(RESULT_ERROR_CODES.length);
    expect(RESULT_ERROR_CODES.slice(0, AGT_ERROR_CODES.length)).toEqual([...AGT_ERROR_CODES]);
    // Every literal code the library writes: an error object's code, a builder's, a ToolErrorSignal's, an AgtError's, a failure's status.
    const emits = /(?:\bcode: |resultErrorOf\(|toolErrorOf\(|ToolErrorSignal\(|\btoolError\(|new AgtError\(|\bfailed: )'([a-z_]+)'/g;
    const found = new Map<string, string>();
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (entry.name.endsWith('.ts'))
          for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
            if (/^\s*(\*|\/\*|\/\/)/.test(line)) continue; // a comment's example is not an emission
            for (const m of line.matchAll(emits)) found.set(m[1] as string, path.relative(REPO_ROOT, file));
          }
      }
    };
    walk(path.join(REPO_ROOT, 'src'));
    expect([...found.keys()]).toEqual(expect.arrayContaining(['invalid_arguments', 'server_error', 'duplicate_name', 'corrupt_record']));
    const unlisted = [...found].filter(([code]) => !(RESULT_ERROR_CODES as readonly string[]).includes(code));
    expect(unlisted).toEqual([]);
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
