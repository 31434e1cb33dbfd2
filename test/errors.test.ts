import { describe, expect, it } from 'vitest';
import { AGT_ERROR_CODES, AgtError, isAgtError, toolErrorOf } from '../src/index.js';

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
});

describe('readToolError', () => {
  it('reads the ToolError convention from tool-result text, and nothing else', async () => {
    const { readToolError } = await import('../src/errors.js');
    expect(readToolError([{ type: 'text', text: '{"error":{"code":"not_found","message":"no such ticket","details":{"id":4}}}' }])).toEqual({
      code: 'not_found', message: 'no such ticket', details: { id: 4 },
    });
    expect(readToolError([{ type: 'text', text: '{"error":{"code":"x"}}' }])).toEqual({ code: 'x', message: 'the tool reported an error' });
    expect(readToolError([{ type: 'text', text: 'plain failure text' }])).toBeUndefined();
    expect(readToolError([{ type: 'text', text: '{"error":"not an object"}' }])).toBeUndefined();
    expect(readToolError([{ type: 'image', data: '…' }])).toBeUndefined();
  });
});
