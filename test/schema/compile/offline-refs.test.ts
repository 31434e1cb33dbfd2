import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isAgtError, ToolSchemaRegistry } from '../../../src/index.js';

function reasonOf(schema: unknown): unknown {
  try {
    new ToolSchemaRegistry().compile(schema, { tool: 'refs' });
    return 'loaded';
  } catch (error) {
    return isAgtError(error) ? error.details?.reason : error;
  }
}

describe('S5: references resolve inside the schema, offline', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    'https://example.com/schema.json',
    'http://json-schema.org/draft-07/schema#',
    'file:///etc/passwd',
    'other.json',
    'other.json#/$defs/x',
    'urn:example:thing',
  ])('S5: $ref %s is external and fails to load', (ref) => {
    expect(reasonOf({ type: 'object', properties: { a: { $ref: ref } } })).toBe('external_ref');
  });

  it.each(['#/$defs/missing', '#/properties/nope', '#unknown-anchor', '#/enum/0'])('S5: dangling $ref %s fails to load', (ref) => {
    expect(reasonOf({ type: 'object', properties: { a: { $ref: ref } }, enum: [{}] })).toBe('dangling_ref');
  });

  it('S5: a reference cycle without progress fails to load; one through properties is fine', () => {
    expect(
      reasonOf({ type: 'object', $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' }),
    ).toBe('ref_cycle');
    expect(reasonOf({ type: 'object', properties: { self: { $ref: '#' } } })).toBe('loaded');
  });

  it('S5: the failure names the tool and the location of the $ref', () => {
    try {
      new ToolSchemaRegistry().compile({ type: 'object', properties: { a: { $ref: 'https://evil.example/x' } } }, { tool: 'search' });
      expect.unreachable();
    } catch (error) {
      expect(isAgtError(error) && error.details).toMatchObject({ tool: 'search', schemaPath: '/properties/a/$ref' });
      expect((error as Error).message).toContain('tool "search"');
      expect((error as Error).message).toContain('/properties/a/$ref');
    }
  });

  it('S5: compiling never fetches and never reads a file', () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('no network in S5'));
    const spies = [
      vi.spyOn(http, 'request'),
      vi.spyOn(http, 'get'),
      vi.spyOn(https, 'request'),
      vi.spyOn(https, 'get'),
      vi.spyOn(fs, 'readFileSync'),
      vi.spyOn(fs, 'readFile'),
      vi.spyOn(fs, 'openSync'),
      vi.spyOn(fs, 'open'),
      vi.spyOn(fs.promises, 'readFile'),
      vi.spyOn(fs.promises, 'open'),
    ];
    for (const dialect of [
      undefined,
      'http://json-schema.org/draft-04/schema#',
      'http://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft/2019-09/schema',
    ]) {
      for (const ref of ['https://example.com/s.json', 'file:///etc/hostname', 'local.json', '#/definitions/ok']) {
        reasonOf({ ...(dialect ? { $schema: dialect } : {}), type: 'object', properties: { a: { $ref: ref } }, definitions: { ok: {} } });
      }
    }
    expect(fetchSpy).not.toHaveBeenCalled();
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});
