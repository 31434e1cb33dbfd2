/**
 * Authorization for remote servers (R7): a bearer-token provider and OAuth
 * providers through connectMcp, probes and runs; 401 is auth_required with the
 * fix; tokens never appear in errors, audit, probe reports or CLI output.
 * (The OAuth flows themselves run against the conformance package's
 * authorization servers: test/mcp/conformance.test.ts.)
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditEvent,
  connectMcp,
  McpProber,
  MemoryStore,
  NativeRun,
  policies,
  ResourceService,
  toolAlias,
} from '../../../src/index.js';
import { failure, REPO_ROOT, tempDir } from '../../support/index.js';
import { HeadlessOAuthProvider } from '../fixtures/headless-oauth.js';
import { type AuthCheckingServer, startAuthCheckingServer } from '../../support/http-server.js';

const SECRET = 'tok-7f3a9c2e51b84d06';
let valid = new Set([SECRET]);
let server: AuthCheckingServer;
beforeAll(async () => {
  server = await startAuthCheckingServer(
    (authorization) => authorization !== undefined && valid.has(authorization.replace(/^Bearer /, '')),
  );
});
afterAll(() => server.close());

describe('bearer-token provider', () => {
  it('R7: the token of bearer() goes on every request and may rotate between requests', async () => {
    valid = new Set([SECRET, 'tok-rotated-000000']);
    let calls = 0;
    const connection = await connectMcp({ url: server.url }, { auth: { bearer: () => (calls++ === 0 ? SECRET : 'tok-rotated-000000') } });
    expect(JSON.stringify((await connection.callTool('who', {})).content)).toContain('authorised');
    await connection.close();
    expect(server.seen.slice(-3).every((h) => h?.startsWith('Bearer tok-'))).toBe(true);
    expect(server.seen).toContain('Bearer tok-rotated-000000');
    valid = new Set([SECRET]);
  });

  it('R7: a rejected token is auth_required with the fix; the token appears nowhere in the error', async () => {
    const f = await failure(connectMcp({ url: server.url }, { auth: { bearer: async () => 'tok-expired-99999999' } }));
    expect(f).toMatchObject({ code: 'auth_required', details: { reason: 'unauthorized', status: 401 } });
    expect(f.message).toMatch(/rejected the bearer token .*check the token that bearer\(\) returns/);
    expect(JSON.stringify(f)).not.toContain('tok-expired');
  });

  it('R7: no auth at all: auth_required telling what to pass', async () => {
    const f = await failure(connectMcp({ url: server.url }));
    expect(f.message).toMatch(/pass auth \(an OAuthClientProvider or \{ bearer \}\)/);
  });

  it('R7: an OAuth provider against a server with no authorization metadata fails as auth_required', async () => {
    const f = await failure(connectMcp({ url: server.url }, { auth: new HeadlessOAuthProvider() }));
    expect(f.code).toBe('auth_required');
  });

  it('R7: an OAuth provider that cannot wait for the code gets auth_required saying how to finish the flow', async () => {
    // A real authorization server (the conformance package's), a provider without waitForAuthorizationCode.
    const out = await new Promise<string>((resolve) => {
      const bin = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
      const client = `${process.execPath} --import tsx ${path.join(REPO_ROOT, 'test/mcp/fixtures/conformance-client.ts')}`;
      execFile(
        process.execPath,
        [bin, 'client', '--command', client, '--scenario', 'auth/metadata-default'],
        { cwd: REPO_ROOT, env: { ...process.env, AGT_OAUTH_NO_WAIT: '1' }, timeout: 120_000 },
        (_e, stdout, stderr) => resolve(`${stdout}\n${stderr}`),
      );
    });
    const line = out.split('\n').find((l) => l.startsWith('AGT_ERROR '));
    expect(JSON.parse(line?.slice('AGT_ERROR '.length) ?? '{}')).toEqual({
      code: 'auth_required',
      details: { reason: 'authorization_pending', credentials: 'oauth' },
      message: expect.stringMatching(/give it waitForAuthorizationCode\(\)/),
    });
  }, 150_000);
});

describe('one ConnectSettings for connectMcp, McpProber and NativeRun', () => {
  it('R7: auth as one provider object and as a function of the stored server both work for all three', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'remote/who', create: true, data: { mcpServers: { who: { url: server.url } } } });
    await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['remote/who'] } });
    const asked: string[] = [];
    const provider = { bearer: () => SECRET };
    const perServer = (ref: { reference: string }) => {
      asked.push(ref.reference);
      return provider;
    };
    for (const auth of [provider, perServer]) {
      const settings = { auth, timeouts: { callMs: 5_000 } };
      const connection = await connectMcp({ url: server.url }, { ...settings, reference: 'remote/who' });
      expect(JSON.stringify((await connection.callTool('who', {})).content)).toContain('authorised');
      await connection.close();
      expect((await new McpProber({ service, ...settings }).probe('remote/who')).ok).toBe(true);
      const run = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*'), ...settings });
      const { results } = await run.executeBatch({
        runId: run.id,
        agent: run.agent,
        batchId: 'b1',
        calls: [{ callId: 'w', name: toolAlias('remote/who', 'who'), arguments: {} }],
      });
      expect(results[0]?.status).toBe('ok');
      await run.close();
    }
    expect(asked).toEqual(['remote/who', 'remote/who', 'remote/who']); // the function is asked with the stored reference each time
  });
});

describe('tokens stay secret', () => {
  it('R7: a probe with a bearer provider reports the server, never the token', async () => {
    const report = await new McpProber().probe({ mcpServers: { remote: { url: server.url } } }, { auth: { bearer: () => SECRET } });
    expect(report.ok).toBe(true);
    expect(JSON.stringify(report)).not.toContain(SECRET);
  });

  it('R7: a run authorizes each remote mount through auth(server); audit and results never hold the token', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'remote/who', create: true, data: { mcpServers: { who: { url: server.url } } } });
    await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['remote/who'] } });
    const asked: string[] = [];
    const audit: AuditEvent[] = [];
    const run = await NativeRun.start({
      agent: 'team/alice',
      service,
      policy: policies.autoAllow('*'),
      audit: { record: (e) => void audit.push(e) },
      auth: (ref) => {
        asked.push(ref.reference);
        return { bearer: () => SECRET };
      },
    });
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'b1',
      calls: [{ callId: 'w', name: toolAlias('remote/who', 'who'), arguments: {} }],
    });
    expect(results[0]?.status).toBe('ok');
    expect(asked).toEqual(['remote/who']);
    // The token is revoked mid-run: the next call is tool_failed auth_required, the run goes on.
    valid = new Set();
    const revoked = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'b2',
      calls: [{ callId: 'x', name: toolAlias('remote/who', 'who'), arguments: {} }],
    });
    expect(revoked.results[0]).toMatchObject({ status: 'tool_failed', error: { code: 'auth_required' } });
    valid = new Set([SECRET]);
    await run.close();
    expect(JSON.stringify({ results, revoked, audit })).not.toContain(SECRET);
    const failed = await NativeRun.start({ agent: 'team/alice', service, policy: policies.autoAllow('*') }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'auth_required', message: expect.stringMatching(/^mount "remote\/who" failed to load/) });
  });

  it('R7: agt mcp probe of a server that refuses the configured header exits 4 and never prints the header value', async () => {
    const tmp = tempDir('agt-auth-cli-');
    const db = path.join(tmp.dir, 'agt.db');
    const agt = (...args: string[]) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        execFile(
          process.execPath,
          [path.join(REPO_ROOT, 'dist', 'cli.js'), ...args, '--store', db],
          { cwd: tmp.dir },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
        );
      });
    expect(
      (await agt('mcp', 'create', 'remote/who', '--url', server.url, '--header', 'Authorization: Bearer tok-wrong-12345678')).code,
    ).toBe(0);
    for (const flags of [[], ['--json']]) {
      const probe = await agt('mcp', 'probe', 'remote/who', ...flags);
      expect(probe.code).toBe(4);
      expect(probe.out).toMatch(/auth_required/);
      expect(probe.out).toMatch(/rejected the Authorization header stored with it \(HTTP 401\).*agt mcp update REF --header/);
      expect(probe.out).not.toMatch(/connectMcp|pass auth/);
      expect(probe.out).not.toContain('tok-wrong-12345678');
    }
    expect((await agt('mcp', 'create', 'remote/bare', '--url', server.url)).code).toBe(0);
    const bare = await agt('mcp', 'probe', 'remote/bare');
    expect(bare.code).toBe(4);
    expect(bare.out).toMatch(
      /requires authorization \(HTTP 401\): log in with agt mcp login REF \(OAuth\), or store an Authorization header with it: agt mcp update REF/,
    );
    expect(bare.out).not.toMatch(/connectMcp|pass auth/);
    tmp.cleanup();
  });
});
