/** checkServer and the cases it derives from a server's own (hostile) schemas. */
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { checkServer, contractCases, createToolServer, defineTool, serveHttp } from '../../../src/authoring/index.js';
import { PYTHON_SERVER, REPO_ROOT, runAgt, tempDir } from '../../support/index.js';
import { deleteFile as documented } from '../fixtures/delete-file-doc.js';

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

describe('C3: a failed check says what the server said', () => {
  // A tool that asks the user without looking at what the client offers (the check's client offers no elicitation).
  const unguarded = defineTool({
    name: 'delete_file',
    description: 'Deletes a file once the user confirms.',
    input: v.object({ path: v.string() }),
    handler: async ({ path: file }, ctx) => {
      const answer = await ctx.elicit({ message: `Delete ${file}?`, requestedSchema: { type: 'object', properties: {} } });
      return answer.action === 'accept' ? `deleted ${file}` : `kept ${file}`;
    },
  });
  const serve = (tool: typeof unguarded) => serveHttp(() => createToolServer({ name: 'files', version: '1.0.0', tools: [tool] }));

  it("C3: a tool that elicits from a client that cannot answer fails with the server's -32021 and its words", async () => {
    const service = await serve(unguarded);
    try {
      const report = await checkServer({ url: service.url }, { all: true, eras: ['modern'] });
      const failed = report.tools[0]!.results.filter((r) => !r.passed);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed[0]!.reason).toMatch(/^a JSON-RPC error instead of a result: -32021 .*client capabilities do not declare/);
    } finally {
      await service.close();
    }
  });

  it("C3: docs/authoring.md's delete_file looks at ctx.clientCapabilities first, and passes the kit's own check in both eras", async () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/authoring.md'), 'utf8');
    const block = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b?.includes("name: 'delete_file'"));
    const fixture = fs.readFileSync(path.join(REPO_ROOT, 'test/authoring/fixtures/delete-file-doc.ts'), 'utf8');
    expect(fixture.trim()).toBe(block?.trim()); // the fixture is the documented example, verbatim
    const service = await serve(documented);
    try {
      const report = await checkServer({ url: service.url }, { all: true });
      expect(report.eras.map((e) => e.era)).toEqual(['legacy', 'modern']);
      expect(report).toMatchObject({ ok: true, failed: 0 });
    } finally {
      await service.close();
    }
  });

  it('C3: agt mcp check prints the reason, and a case that ran out of time names --timeout', async () => {
    const tmp = tempDir('agt-check-');
    const slow = defineTool({
      name: 'slow',
      description: 'Never answers in time.',
      input: v.object({}),
      annotations: { readOnlyHint: true },
      handler: (_args, ctx) => new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('late'))),
    });
    const service = await serveHttp(() => createToolServer({ name: 'slow', version: '1.0.0', tools: [slow] }));
    try {
      const db = path.join(tmp.dir, 'agt.db');
      expect((await runAgt(['mcp', 'add', 'slow', '--url', service.url], { home: tmp.dir, db })).code).toBe(0);
      const out = await runAgt(['mcp', 'check', 'slow', '--timeout', '300', '--tool', 'slow'], { home: tmp.dir, db });
      expect(out.code).toBe(1);
      expect(out.stdout).toMatch(/no answer within 300 ms \(--timeout MS waits longer\)/);
    } finally {
      await service.close();
      tmp.cleanup();
    }
  });
});
