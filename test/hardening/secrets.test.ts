/**
 * Secrets stay secret: env and header values of MCP configs never appear in
 * the CLI's output (text or --json), probe reports, errors, audit events or
 * the stderr tail, unless --show-secrets asks (R7, P2). A redacted document
 * written back keeps its secrets.
 */
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type AuditEvent, connectMcp, McpProber, MemoryStore, NativeRun, policies, ResourceService } from '../../src/index.js';
import { failure, FIXTURES, PYTHON_SERVER, runAgt, tempDir } from '../support/index.js';

const tmp = tempDir('agt-secrets-');
afterAll(() => tmp.cleanup());
let n = 0;

// In this process (test/support/cli.ts): a secret must not reach what a command prints, wherever it runs.
async function agt(db: string, ...args: string[]): Promise<string> {
  const { stdout, stderr } = await runAgt(args, { home: tmp.dir, db });
  return `${stdout}\n${stderr}`;
}

// Secrets as users have them: API keys and tokens (letters, digits, -, _, ., /, +, =).
const secret = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_./+=-]{11,47}$/);

describe('secrets in CLI output', () => {
  it('R7: a random secret in env and in a header never appears in any agt output; --show-secrets shows it', async () => {
    await fc.assert(
      fc.asyncProperty(secret, secret, async (envValue, headerValue) => {
        const db = path.join(tmp.dir, `cli-${n++}.db`);
        const outputs = [
          await agt(
            db,
            'mcp',
            'create',
            'tools/leaky',
            '--command',
            'python3',
            '--arg',
            PYTHON_SERVER,
            '--arg=--mode',
            '--arg',
            'leak-env',
            '--arg=--leak',
            '--arg',
            'API_KEY',
            '--cwd',
            FIXTURES,
            '--env',
            `API_KEY=${envValue}`,
            '--json',
          ),
          await agt(
            db,
            'mcp',
            'create',
            'tools/remote',
            '--url',
            'http://127.0.0.1:9/mcp',
            '--header',
            `Authorization: Bearer ${headerValue}`,
          ),
          await agt(db, 'mcp', 'show', 'tools/leaky'),
          await agt(db, 'mcp', 'show', 'tools/remote', '--json'),
          await agt(db, 'mcp', 'list', '--json'),
          await agt(db, 'mcp', 'test', 'tools/leaky', '--json'),
          await agt(db, 'mcp', 'probe', 'tools/leaky', '--json'), // the server prints API_KEY on its stderr
          await agt(db, 'mcp', 'probe', 'tools/remote'),
        ];
        for (const out of outputs) {
          expect(out).not.toContain(envValue);
          expect(out).not.toContain(headerValue);
        }
        expect(outputs[6]).toContain('starting with API_KEY=***'); // the stderr tail is there, masked
        expect(await agt(db, 'mcp', 'show', 'tools/leaky', '--show-secrets')).toContain(envValue);
        expect(await agt(db, 'mcp', 'show', 'tools/remote', '--json', '--show-secrets')).toContain(headerValue);
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});

describe('secrets in library output', () => {
  it('R7/P2: probe reports, errors and their stderr tails, static tests and audit never hold env values', async () => {
    await fc.assert(
      fc.asyncProperty(secret, async (value) => {
        const env = { API_KEY: value, TOKEN: `Bearer ${value}x` };
        const leaky = {
          command: 'python3',
          args: [PYTHON_SERVER, '--mode', 'leak-env', '--leak', 'API_KEY', '--leak', 'TOKEN'],
          cwd: FIXTURES,
          env,
        };
        const report = await new McpProber().probe({ mcpServers: { leaky } });
        expect(report.stderrTail).toContain('API_KEY=***');
        const dies = { command: 'sh', args: ['-c', 'echo "key=$API_KEY token=$TOKEN" >&2; exit 3'], cwd: FIXTURES, env };
        const error = await failure(connectMcp(dies));
        expect(error.code).toBe('exited_early');
        const service = new ResourceService({ store: new MemoryStore() });
        await service.write({ kind: 'mcp', reference: 'tools/leaky', create: true, data: { mcpServers: { leaky } } });
        await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/leaky'], role: 'manager' } });
        const audit: AuditEvent[] = [];
        const run = await NativeRun.start({
          agent: 'team/a',
          service,
          policy: policies.autoAllow('*'),
          audit: { record: (e) => void audit.push(e) },
        });
        const read = await run.executeBatch({
          runId: run.id,
          agent: run.agent,
          batchId: 'b',
          calls: [
            { callId: 'r', name: 'resource_read', arguments: { kind: 'mcp', reference: 'tools/leaky' } },
            { callId: 'p', name: 'mcp_probe', arguments: { reference: 'tools/leaky' } },
          ],
        });
        await run.close();
        const everything = JSON.stringify({
          report,
          error,
          test: await service.test({ kind: 'mcp', reference: 'tools/leaky' }),
          read,
          audit,
        });
        expect(everything).not.toContain(value);
      }),
      { numRuns: 5 },
    );
  }, 120_000);

  it('R7: a redacted document written back keeps the stored secrets; *** for a new key is a warning', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const doc = {
      mcpServers: { s: { url: 'https://user:pw-123456@mcp.example.test/mcp', headers: { Authorization: 'Bearer live-token-1' } } },
    };
    await service.write({ kind: 'mcp', reference: 'tools/s', create: true, data: doc });
    const admin = new ResourceService({ store: service.store });
    await admin.write({ kind: 'agent', reference: 'team/a', create: true, data: { role: 'manager' } });
    const run = await NativeRun.start({ agent: 'team/a', service: admin, policy: policies.autoAllow('*') });
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'b',
      calls: [{ callId: 'r', name: 'resource_read', arguments: { kind: 'mcp', reference: 'tools/s' } }],
    });
    const shown = (results[0] as { structuredContent: { data: typeof doc } }).structuredContent.data;
    expect(shown.mcpServers.s).toEqual({
      url: 'https://user:***@mcp.example.test/mcp',
      headers: { Authorization: '***' },
      transport: 'streamable-http',
    });
    const edited = {
      mcpServers: { s: { ...shown.mcpServers.s, headers: { ...shown.mcpServers.s.headers, 'X-Team': 'blue', 'X-New': '***' } } },
    };
    const { warnings } = await service.write({ kind: 'mcp', reference: 'tools/s', data: edited });
    const stored = (await service.read({ kind: 'mcp', reference: 'tools/s' })).data as typeof doc;
    expect(stored.mcpServers.s.url).toBe('https://user:pw-123456@mcp.example.test/mcp');
    expect(stored.mcpServers.s.headers).toEqual({ Authorization: 'Bearer live-token-1', 'X-Team': 'blue', 'X-New': '***' });
    expect(warnings.join()).toMatch(/X-New: the value is "\*\*\*", a redacted placeholder/);
    await run.close();
  });
});
