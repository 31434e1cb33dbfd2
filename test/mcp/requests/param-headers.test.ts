/**
 * SEP-2243 (2026-07-28) on Streamable HTTP: tools whose x-mcp-header
 * declarations break the rules are left out of the list (a warning names the
 * tool, never a value), valid ones are noted for the SDK to mirror.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { headerDeclarations, withValidHeaders } from '../../../src/mcp/requests/param-headers.js';

const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('E1: x-mcp-header declarations (SEP-2243)', () => {
  it('E1: string, integer and boolean properties with distinct token names are valid; none is none', () => {
    expect(headerDeclarations(schema({ a: { type: 'string' } }))).toEqual({ kind: 'none' });
    expect(
      headerDeclarations(
        schema({
          r: { type: 'string', 'x-mcp-header': 'Region' },
          p: { type: 'integer', 'x-mcp-header': 'Priority' },
          v: { type: 'boolean', 'x-mcp-header': 'Verbose' },
          f: { type: 'number' },
        }),
      ),
    ).toEqual({ kind: 'valid', count: 3 });
    expect(headerDeclarations(undefined)).toEqual({ kind: 'none' });
  });

  it.each([
    ['empty', { v: { type: 'string', 'x-mcp-header': '' } }],
    ['not a string', { v: { type: 'string', 'x-mcp-header': 7 } }],
    ['an object', { v: { type: 'object', 'x-mcp-header': 'Data' } }],
    ['an array', { v: { type: 'array', 'x-mcp-header': 'Items' } }],
    ['null', { v: { type: 'null', 'x-mcp-header': 'Nil' } }],
    ['a number', { v: { type: 'number', 'x-mcp-header': 'Score' } }],
    ['a space', { v: { type: 'string', 'x-mcp-header': 'My Region' } }],
    ['a colon', { v: { type: 'string', 'x-mcp-header': 'Region:Primary' } }],
    ['non-ASCII', { v: { type: 'string', 'x-mcp-header': 'Région' } }],
    ['a control character', { v: { type: 'string', 'x-mcp-header': 'Region\t1' } }],
    ['a duplicate', { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'Region' } }],
    ['a duplicate in another case', { a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } }],
  ])('E1: a declaration that is %s makes the tool invalid', (_what, properties) => {
    expect(headerDeclarations(schema(properties)).kind).toBe('invalid');
  });

  it('E1: invalid tools are left out with one warning each (said once across lists); valid ones are kept and noted', () => {
    const tools = [
      { name: 'ok', inputSchema: schema({ r: { type: 'string', 'x-mcp-header': 'Region' } }) },
      { name: 'plain', inputSchema: schema({ a: { type: 'string' } }) },
      { name: 'bad', inputSchema: schema({ d: { type: 'object', 'x-mcp-header': 'Data' } }) },
    ];
    const warnings: string[] = [];
    const mirrored = new Map<string, Tool>();
    expect(withValidHeaders(tools, warnings, mirrored).map((t) => t.name)).toEqual(['ok', 'plain']);
    withValidHeaders(tools, warnings, mirrored);
    expect(warnings).toEqual(['tool "bad" left out: an x-mcp-header is on a property that is not a string, integer or boolean (SEP-2243)']);
    expect([...mirrored.keys()]).toEqual(['ok']);
  });

  it('E1: a hostile schema of 100,000 properties is read only to its bound', () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) properties[`p${i}`] = { type: 'string', 'x-mcp-header': `H${i}` };
    expect(headerDeclarations(schema(properties))).toEqual({ kind: 'valid', count: 200 });
  });
});
