/** Tool output schemas in runs: compiled with the snapshot, results checked after execute (B3, B5, S7, S8). */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../src/index.js';
import { batch, py, runFixture } from '../../support/index.js';

const fx = runFixture(['output']);
const start = (audit?: AuditEvent[]) => fx.start(audit ? { audit: { record: (e) => void audit.push(e) } } : {});

describe('output schemas', () => {
  it('S7: a tool whose outputSchema does not load is left out with a notice naming it; the others stay', async () => {
    const r = await start();
    expect(r.snapshot.aliases).toContain(py('divide'));
    expect(r.snapshot.aliases).not.toContain(py('broken_output_schema'));
    expect(r.notices.join('\n')).toMatch(
      /tool "broken_output_schema" is unavailable: tool "broken_output_schema": outputSchema failed to load at "\/properties\/x/,
    );
  });

  it('B3: a valid structured result passes the output check unchanged', async () => {
    const r = await start();
    const { results } = await r.executeBatch(batch(r, [{ callId: 'd', name: py('divide'), arguments: { a: 7, b: 2 } }]));
    expect(results[0]).toEqual({
      callId: 'd',
      status: 'ok',
      content: [{ type: 'text', text: '3 r 1' }],
      structuredContent: { quotient: 3, remainder: 1 },
    });
  });

  it('S8/B5: a result that breaks the outputSchema is tool_failed output_invalid with paths only, audited; the other calls go on', async () => {
    const audit: AuditEvent[] = [];
    const r = await start(audit);
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'bad', name: py('bad_output'), arguments: {} },
        { callId: 'good', name: py('divide'), arguments: { a: 9, b: 3 } },
      ]),
    );
    expect(results.map((x) => [x.callId, x.status])).toEqual([
      ['bad', 'tool_failed'],
      ['good', 'ok'],
    ]);
    const bad = results[0] as unknown as { error: { code: string; message: string; details: { issues: { instancePath: string }[] } } };
    expect(bad.error.code).toBe('output_invalid');
    expect(bad.error.message).toMatch(/does not match its outputSchema at "\/quotient"/);
    expect(bad.error.details.issues.map((i) => i.instancePath)).toEqual(expect.arrayContaining(['/quotient', '/remainder']));
    const text = JSON.stringify({ results, audit });
    expect(text).not.toContain('seven'); // the server's values never reach the model's error or the audit
    expect(text).not.toContain('s3cr3t-value');
    // The server's own property name is its data too: the issue points at the object, named by its keyword.
    expect(bad.error.details.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ instancePath: '', keyword: 'additionalProperties' })]),
    );
    expect(text).not.toMatch(/\/secret|"secret"/);
    const event = audit.find((e) => e.type === 'tool_call' && e.callId === 'bad');
    expect(event).toMatchObject({
      status: 'tool_failed',
      code: 'output_invalid',
      outputIssues: expect.arrayContaining([{ instancePath: '/quotient', keyword: 'type' }]),
    });
  });

  it('B3: a declared outputSchema with no structuredContent, and a structuredContent that is not an object, are per-call errors', async () => {
    const r = await start();
    const { results } = await r.executeBatch(
      batch(r, [
        { callId: 'none', name: py('no_structured'), arguments: {} },
        { callId: 'string', name: py('malformed_structured'), arguments: {} },
        { callId: 'list', name: py('untyped_structured'), arguments: {} },
      ]),
    );
    expect(results.map((x) => (x.status === 'ok' ? 'ok' : x.error.code))).toEqual(['output_invalid', 'output_invalid', 'output_invalid']);
    expect((results[0] as { error: { message: string } }).error.message).toMatch(/has no structuredContent/);
    expect((results[1] as { error: { message: string } }).error.message).toMatch(/not a JSON object/);
    expect(JSON.stringify(results)).not.toContain('s3cr3t-value');
  });
});
