/** checkServer and the cases it derives from a server's own (hostile) schemas. */
import { describe, expect, it } from 'vitest';
import { checkServer, contractCases } from '../../src/authoring/index.js';
import { PYTHON_SERVER, REPO_ROOT } from '../support/index.js';

describe('cases from a server schema', () => {
  it('S2: lengths, counts and properties a hostile schema asks for are bounded before anything is built', () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) properties[`p${i}`] = { type: 'string' };
    properties.huge = { type: 'string', minLength: 1, maxLength: 1_000_000_000 };
    properties.many = { type: 'array', items: { type: 'string' }, maxItems: 2_000_000_000 };
    const schema = { type: 'object', properties, required: Object.keys(properties).slice(0, 5_000) };
    const cases = contractCases({ name: 'hostile', inputSchema: schema }, { valid: [{ huge: 'x', many: ['a'] }] });
    expect(cases.length).toBeLessThanOrEqual(1 + 200 * 2 + 200 * 8);
    expect(Math.max(...cases.map((c) => JSON.stringify(c.args).length))).toBeLessThan(100_000);
  });
});

describe('checkServer', () => {
  it('C3: a dry run lists the cases of every read-only tool and calls none', async () => {
    const report = await checkServer({ command: 'python3', args: [PYTHON_SERVER], cwd: REPO_ROOT }, { dryRun: true });
    expect(report.dryRun).toBe(true);
    const echo = report.tools.find((t) => t.tool === 'echo');
    expect(echo).toMatchObject({ status: 'planned', readOnly: true, results: [] });
    expect(echo?.cases[0]).toMatchObject({ name: 'generated valid arguments', expect: 'answer' });
    expect(echo?.cases.some((c) => c.name === 'missing required "message"' && c.expect === 'refuse')).toBe(true);
    expect(report.tools.find((t) => t.tool === 'withdraw')).toMatchObject({ status: 'skipped' });
  });
});
