/**
 * Secret leaks (found by a hostile trial): secrets never leave through
 * errors, through what a server repeats, through error
 * causes or userinfo URLs, nor through oversized remote bodies.
 * Real Python servers over stdio, a real HTTP server on loopback,
 * the real bin.
 */
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp, McpProber, MemoryStore, NativeRun, policies, ResourceService, toolAlias } from '../../src/index.js';
import { redactRecord } from '../../src/config.js';
import { StderrTail } from '../../src/mcp/process/stderr-buffer.js';
import { startAuthCheckingServer } from '../support/http-server.js';
import { failure, pythonConfig, runAgt, tempDir } from '../support/index.js';
import type { McpDocument } from '../../src/index.js';

const tmp = tempDir('agt-secrets-');
afterAll(() => tmp.cleanup());

const SECRETS = { env: 'sk-env-value-4711', file: 'sk-file-value-0815', host: 'sk-host-value-1234', input: 'sk-input-value-99' };
const envFile = path.join(tmp.dir, 'leak.env');
fs.writeFileSync(envFile, `FROM_FILE=${SECRETS.file}\n`);
const variables = { env: { ...process.env, HOST_SECRET: SECRETS.host } as Record<string, string>, inputs: { pw: SECRETS.input } };
// The server repeats all four values in its name, version, a tool's description and the tool's result.
const leaky = {
  ...pythonConfig({
    extra: ['--feature', 'hostile', '--leak', 'API_KEY', '--leak', 'FROM_FILE', '--leak', 'HOST_VALUE', '--leak', 'INPUT_VALUE'],
  }),
  env: { API_KEY: SECRETS.env, HOST_VALUE: '${HOST_SECRET}', INPUT_VALUE: '${input:pw}' },
  envFile,
};
const shows = (text: string) => Object.values(SECRETS).filter((s) => text.includes(s));
const everything = (value: unknown) => `${JSON.stringify(value)}\n${util.inspect(value, { depth: 10 })}`;

describe('what a server repeats of its secrets is masked', () => {
  it('R7: env, envFile, resolved placeholder and input values in server info, tool lists and results are ***; revealSecrets shows them', async () => {
    {
      await using connection = await connectMcp(leaky, { variables });
      const seen = [connection.serverInfo, await connection.listTools(), await connection.callTool('leak', {})];
      expect(shows(everything(seen))).toEqual([]);
      expect(connection.serverInfo.name).toContain('***');
    }
    await using open = await connectMcp(leaky, { variables, revealSecrets: true });
    expect(shows(everything(await open.callTool('leak', {})))).toEqual(Object.values(SECRETS));
  });

  it('R7/P2: a probe report and a run (tools and results the model sees) never hold them', async () => {
    const report = await new McpProber().probe({ mcpServers: { leaky } }, { variables });
    expect(report.ok).toBe(true);
    expect(shows(everything(report))).toEqual([]);
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/leaky', create: true, data: { mcpServers: { leaky } } });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/leaky'] } });
    await using run = await NativeRun.start({ agent: 'team/a', service, policy: policies.autoAllow('*'), variables });
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'b1',
      calls: [{ callId: 'c1', name: toolAlias('tools/leaky', 'leak'), arguments: {} }],
    });
    expect(results[0]?.status).toBe('ok');
    expect(shows(everything([run.tools(), results]))).toEqual([]);
  });

  it('R7: agt mcp probe --json masks them; --show-secrets shows them', async () => {
    const home = tempDir('agt-secrets-cli-');
    const db = path.join(home.dir, 'agt.db');
    const env = { HOST_SECRET: SECRETS.host };
    const config = { ...leaky, env: { API_KEY: SECRETS.env, HOST_VALUE: '${HOST_SECRET}' } };
    fs.writeFileSync(path.join(home.dir, 'leaky.json'), JSON.stringify({ mcpServers: { leaky: config } }));
    expect(
      (await runAgt(['mcp', 'create', 'tools/leaky', '--from', path.join(home.dir, 'leaky.json')], { home: home.dir, db, env })).code,
    ).toBe(0);
    const masked = await runAgt(['mcp', 'probe', 'tools/leaky', '--json'], { home: home.dir, db, env });
    expect(masked.code).toBe(0);
    expect(shows(masked.stdout + masked.stderr)).toEqual([]);
    const shown = await runAgt(['mcp', 'probe', 'tools/leaky', '--json', '--show-secrets'], { home: home.dir, db, env });
    expect(shows(shown.stdout)).toEqual([SECRETS.env, SECRETS.file, SECRETS.host]);
    home.cleanup();
  });
});

describe('errors name placeholders as written, never what they resolved to', () => {
  it('R3: command "${HOST_TOKEN}" that is not found: the message, details and --json name ${HOST_TOKEN}', async () => {
    const env = { ...process.env, HOST_TOKEN: 'sk-host-token-value' } as Record<string, string>;
    const error = await failure(connectMcp({ command: '${HOST_TOKEN}', cwd: tmp.dir }, { variables: { env } }));
    expect(error).toMatchObject({ code: 'spawn_failed', details: { reason: 'command_not_found', command: '${HOST_TOKEN}' } });
    expect(error.message).toContain('"${HOST_TOKEN}" was not found');
    expect(everything(error)).not.toContain('sk-host-token-value');
    const withInput = await failure(
      connectMcp({ command: '${input:pw}', cwd: tmp.dir }, { variables: { inputs: { pw: 'sk-password-input' } } }),
    );
    expect(everything(withInput)).not.toContain('sk-password-input');
  });

  it('R3: a command that is a relative path only once expanded is invalid_config without the expanded value', async () => {
    const env = { ...process.env, REL: 'bin/sk-relative-secret' } as Record<string, string>;
    const error = await failure(connectMcp({ command: '${REL}', cwd: tmp.dir }, { variables: { env } }));
    expect(error.code).toBe('invalid_config');
    expect(everything(error)).not.toContain('sk-relative-secret');
  });
});

describe('userinfo URLs and error causes', () => {
  it('R7: a url with user:password@ connects with Basic authorization, as curl does', async () => {
    const server = await startAuthCheckingServer((a) => a === `Basic ${Buffer.from('me:pa ss:wörd').toString('base64')}`);
    try {
      const url = server.url.replace('http://', `http://me:${encodeURIComponent('pa ss:wörd')}@`);
      await using connection = await connectMcp({ url });
      expect((await connection.callTool('who', {})).content).toEqual([{ type: 'text', text: 'authorised' }]);
    } finally {
      await server.close();
    }
  });

  it('R7: a token the server echoes in its 401 body, and a URL password, never sit in an error or its cause chain', async () => {
    const server = await startAuthCheckingServer(() => false, { echo: true });
    try {
      const bearer = await failure(connectMcp({ url: server.url, headers: { Authorization: 'Bearer sk-header-token-1' } }));
      const userinfo = await failure(connectMcp({ url: server.url.replace('http://', 'http://me:sk-url-password-2@') }));
      const provider = await failure(connectMcp({ url: server.url }, { auth: { bearer: () => 'sk-provider-token-3' } }));
      for (const error of [bearer, userinfo, provider]) expect(error.code).toBe('auth_required');
      // failure() keeps code/message/details: inspect the thrown errors themselves too.
      const thrown: unknown[] = [];
      for (const target of [
        { url: server.url, headers: { Authorization: 'Bearer sk-header-token-1' } },
        { url: server.url.replace('http://', 'http://me:sk-url-password-2@') },
      ]) {
        await connectMcp(target).catch((error: unknown) => thrown.push(error));
      }
      await connectMcp({ url: server.url }, { auth: { bearer: () => 'sk-provider-token-3' } }).catch((error: unknown) =>
        thrown.push(error),
      );
      const text =
        everything([bearer, userinfo, provider]) + thrown.map((e) => `${util.inspect(e, { depth: 10 })}${JSON.stringify(e)}`).join('\n');
      for (const secret of [
        'sk-header-token-1',
        'sk-url-password-2',
        'sk-provider-token-3',
        Buffer.from('me:sk-url-password-2').toString('base64'),
      ])
        expect(text).not.toContain(secret);
    } finally {
      await server.close();
    }
  });
});

describe('auth failures in their own words', () => {
  it('R7: a server that echoes only the token in its 401 body: no token in util.inspect or JSON.stringify of the error, its cause included', async () => {
    const server = await startAuthCheckingServer(() => false, { echo: 'token' });
    try {
      const thrown: unknown[] = [];
      await connectMcp({ url: server.url, headers: { Authorization: 'Bearer sk-bare-token-4' } }).catch((e: unknown) => thrown.push(e));
      await connectMcp({ url: server.url }, { auth: { bearer: () => 'sk-bare-provider-5' } }).catch((e: unknown) => thrown.push(e));
      expect(thrown).toHaveLength(2);
      for (const error of thrown) {
        expect(error).toMatchObject({ code: 'auth_required' });
        const shown = `${util.inspect(error, { depth: 10 })}${JSON.stringify(error)}${util.inspect((error as Error).cause, { depth: 10 })}`;
        expect(shown).not.toContain('sk-bare-token-4');
        expect(shown).not.toContain('sk-bare-provider-5');
      }
    } finally {
      await server.close();
    }
  });

  it('R7: a rejected Authorization header of the config is named as such, never "set an Authorization header"', async () => {
    const server = await startAuthCheckingServer(() => false);
    try {
      const header = await failure(connectMcp({ url: server.url, headers: { Authorization: 'Bearer sk-wrong-6' } }));
      expect(header).toMatchObject({ code: 'auth_required', details: { credentials: 'header', status: 401 } });
      expect(header.message).toMatch(/rejected the Authorization header of the config/);
      expect(header.message).not.toMatch(/set an Authorization header/);
      const none = await failure(connectMcp({ url: server.url }));
      expect(none).toMatchObject({ code: 'auth_required', details: { credentials: 'none' } });
    } finally {
      await server.close();
    }
  });
});

describe('remote bodies are bounded', () => {
  it("B5: a remote result over maxMessageBytes is that call's protocol_error; the connection still answers", async () => {
    const server = await startAuthCheckingServer(() => true);
    try {
      await using connection = await connectMcp({ url: server.url }, { maxMessageBytes: 64 * 1024 });
      const error = await failure(connection.callTool('who', { bytes: 200_000 }));
      expect(error).toMatchObject({ code: 'protocol_error', details: { reason: 'oversized_message', limitBytes: 65536 } });
      expect((await connection.callTool('who', {})).content).toEqual([{ type: 'text', text: 'authorised' }]);
    } finally {
      await server.close();
    }
  });
});

describe('what a reviewer sees of a config', () => {
  const home = tempDir('agt-review-');
  afterAll(() => home.cleanup());
  const db = path.join(home.dir, 'agt.db');
  const agt = (...args: string[]) => runAgt(args, { home: home.dir, db });

  it('R7: a remote entry that sends host variables warns on create, import, test and probe; show prints its placeholders as written', async () => {
    const url = 'https://mcp.example.test/mcp?k=${AWS_SECRET_ACCESS_KEY}';
    const created = await agt(
      'mcp',
      'create',
      'tools/remote',
      '--url',
      url,
      '--header',
      'X-T: ${GITHUB_TOKEN:-}',
      '--header',
      'Authorization: Bearer ${API_KEY}',
    );
    expect(created.code).toBe(0);
    const warning = /sends the host variables AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, API_KEY to https:\/\/mcp\.example\.test\/mcp/;
    expect(created.stdout + created.stderr).toMatch(warning);
    const file = path.join(home.dir, 'import.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ mcpServers: { other: { url, headers: { 'X-T': '${GITHUB_TOKEN:-}', Authorization: 'Bearer ${API_KEY}' } } } }),
    );
    expect((await agt('mcp', 'import', file, '--category', 'imp')).stdout).toMatch(warning);
    expect((await agt('mcp', 'test', 'tools/remote', '--json')).stdout).toMatch(warning);
    const report = await new McpProber()
      .probe(
        { mcpServers: { r: { url: 'http://127.0.0.1:9/mcp?k=${AWS_SECRET_ACCESS_KEY}' } } },
        { variables: { env: { AWS_SECRET_ACCESS_KEY: 'x' } } },
      )
      .catch((error: unknown) => error);
    expect(report).toMatchObject({ code: 'connection_closed' }); // nothing listens: the warning is for reports that connect
    const shown = JSON.parse((await agt('mcp', 'show', 'tools/remote', '--json')).stdout);
    expect(shown.data.mcpServers.remote.headers).toEqual({ 'X-T': '${GITHUB_TOKEN:-}', Authorization: 'Bearer ${API_KEY}' });
  });

  it('R7: a probe report of a remote server that gets host variables carries the warning', async () => {
    const server = await startAuthCheckingServer(() => true);
    try {
      const report = await new McpProber().probe(
        { mcpServers: { r: { url: `${server.url}?k=\${PROBE_SECRET}` } } },
        { variables: { env: { PROBE_SECRET: 'sk-probe-query-1' } } },
      );
      expect(report.warnings.join('\n')).toMatch(/sends the host variables PROBE_SECRET to http:\/\/127\.0\.0\.1:\d+\/mcp/);
      expect(everything(report)).not.toContain('sk-probe-query-1');
    } finally {
      await server.close();
    }
  });

  it('R7: values after --token, --api-key= and --password are *** in show and list, shown with --show-secrets, kept on write-back', async () => {
    const created = await agt(
      'mcp',
      'create',
      'tools/flags',
      '--cwd',
      home.dir,
      '--',
      'python3',
      'x.py',
      '--token',
      'sk-arg-token-77',
      '--api-key=sk-arg-key-88',
      '--password',
      '${PW}',
      '--verbose',
    );
    expect(created.code).toBe(0);
    const show = await agt('mcp', 'show', 'tools/flags', '--json');
    const args = JSON.parse(show.stdout).data.mcpServers.flags.args;
    expect(args).toEqual(['x.py', '--token', '***', '--api-key=***', '--password', '${PW}', '--verbose']);
    const list = await agt('mcp', 'list', '--json');
    expect(list.stdout + show.stdout).not.toMatch(/sk-arg-(token|key)/);
    expect((await agt('mcp', 'show', 'tools/flags', '--json', '--show-secrets')).stdout).toContain('sk-arg-token-77');
    const service = new ResourceService({ store: new MemoryStore() });
    const config = { command: 'python3', args: ['x.py', '--token', 'sk-arg-token-77', '--api-key=sk-arg-key-88'], cwd: home.dir };
    await service.write({ kind: 'mcp', reference: 'tools/f', create: true, data: { mcpServers: { f: config } } });
    const masked = redactRecord(await service.read({ kind: 'mcp', reference: 'tools/f' }));
    await service.write({ kind: 'mcp', reference: 'tools/f', create: false, data: masked.data as McpDocument });
    expect((await service.read({ kind: 'mcp', reference: 'tools/f' })).data).toMatchObject({ mcpServers: { f: { args: config.args } } });
  });
});

describe('the stderr tail masks before it trims', () => {
  it('R7: a secret split across the dropped and the kept part of the ring never shows its second half', () => {
    const secret = 'sk-split-secret-value-0042';
    for (let cut = 1; cut < secret.length; cut++) {
      const tail = new StderrTail(1024, [secret]);
      tail.push(Buffer.from(`${'a'.repeat(1024 - cut)}${secret.slice(0, cut)}`));
      tail.push(Buffer.from(`${secret.slice(cut)}${'b'.repeat(1024)}`)); // the first chunk is dropped
      tail.push(Buffer.from('c'));
      const text = tail.text(4096);
      expect({ cut, leaked: text.includes(secret.slice(cut)) }).toEqual({ cut, leaked: false });
    }
  });

  it('R7: a multi-byte character split across chunks stays whole, and a secret inside the kept part is ***', () => {
    const tail = new StderrTail(1024, ['sk-whole-secret']);
    const bytes = Buffer.from('é sk-whole-secret é');
    tail.push(bytes.subarray(0, 1));
    tail.push(bytes.subarray(1));
    expect(tail.text()).toBe('é *** é');
  });
});

describe("a server's JSON-RPC error reaches the model in its own words", () => {
  it('B5: tools/call answered with -32603 is tool_failed server_error with the code and the escaped, masked message; the sibling runs', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/leaky', create: true, data: { mcpServers: { leaky } } });
    await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/leaky'] } });
    await using run = await NativeRun.start({ agent: 'team/a', service, policy: policies.autoAllow('*'), variables });
    const { results } = await run.executeBatch({
      runId: run.id,
      agent: run.agent,
      batchId: 'b1',
      calls: [
        { callId: 'c1', name: toolAlias('tools/leaky', 'rpc_fail'), arguments: {} },
        { callId: 'c2', name: toolAlias('tools/leaky', 'leak'), arguments: {} },
      ],
    });
    expect(results.map((r) => r.status)).toEqual(['tool_failed', 'ok']);
    const error = (results[0] as { error: { code: string; message: string; details: Record<string, unknown> } }).error;
    expect(error).toMatchObject({ code: 'server_error', details: { reason: 'server_error', rpcCode: -32603 } });
    expect(error.message).toMatch(/JSON-RPC -32603\): getaddrinfo ENOTFOUND api\.example\.test\\n\\x1b\[31m\*\*\*/);
    expect(shows(everything(results))).toEqual([]);
  });
});
