import { describe, expect, it } from 'vitest';
import { ToolSchemaRegistry } from '../../../src/index.js';

const dialects = {
  '2020-12': undefined,
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  'draft-04': 'http://json-schema.org/draft-04/schema#',
};

describe('S6: format is an annotation', () => {
  it.each(Object.entries(dialects))('S6: under %s, format never rejects a string', (_name, uri) => {
    const v = new ToolSchemaRegistry().compile(
      {
        ...(uri ? { $schema: uri } : {}),
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email' },
          when: { type: 'string', format: 'date-time' },
          site: { type: 'string', format: 'uri' },
          id: { type: 'string', format: 'uuid' },
        },
      },
      { tool: 'fmt' },
    );
    expect(v.validate({ email: 'not an email', when: 'yesterday', site: '::', id: 'x' })).toEqual({ ok: true });
    // the rest of the subschema still applies
    expect(v.validate({ email: 5 }).ok).toBe(false);
  });

  it('S6: a format value must still be a string (metaschema)', () => {
    expect(() => new ToolSchemaRegistry().compile({ type: 'object', properties: { a: { format: 5 } } }, { tool: 'fmt' })).toThrow(
      /\/properties\/a\/format/,
    );
  });
});
