/**
 * Real host config files (Claude Desktop, Claude Code, VS Code, Cursor) under
 * test/fixtures/hosts: imported as written, their placeholders resolved at
 * launch from the launching process's environment and the declared inputs,
 * never stored resolved (R2, R4, R7, P1, P2).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpDocument, McpProber, MemoryStore, ResourceService } from '../../src/index.js';
import { documentInputs, parseJsonc, planImport, resolveServerConfig, type VariableSources } from '../../src/config.js';
import { testMcpConfig } from '../../src/config/config-test.js';
import { failure, REPO_ROOT } from '../support/index.js';
import { type AuthCheckingServer, startAuthCheckingServer } from '../support/http-server.js';

const HOSTS = path.join(REPO_ROOT, 'test', 'fixtures', 'hosts');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function hostFile(relative: string): unknown {
  return parseJsonc(fs.readFileSync(path.join(HOSTS, relative), 'utf8'));
}

function imported(relative: string, name: string): McpDocument {
  const entry = planImport(hostFile(relative), { cwd: REPO_ROOT }).entries.find((e) => e.name === name);
  expect(entry?.problems).toEqual([]);
  return entry?.document as McpDocument;
}

// Calls whereami on the server of `document` and returns what the server saw.
// revealSecrets: the fixture repeats resolved values (its --name) that are masked by default.
async function whereami(document: McpDocument, variables: VariableSources, envVar: string) {
  const connection = await connectMcp(document, { variables, revealSecrets: true });
  try {
    const result = await connection.callTool('whereami', { var: envVar });
    const text = (result.content[0] as { text: string }).text;
    return {
      serverName: connection.serverInfo.name,
      ...(JSON.parse(text) as { cwd: string; argv: string[]; has_var: boolean; var_sha256: string }),
    };
  } finally {
    await connection.close();
  }
}

describe('host config files', () => {
  it('R2: every host file imports; placeholders and envFile are stored as written, never resolved', () => {
    const desktop = imported('claude-desktop/claude_desktop_config.json', 'fixture');
    expect(desktop.mcpServers.fixture).toMatchObject({
      command: 'python3',
      cwd: REPO_ROOT,
      env: { FIXTURE_API_KEY: 'sk-desktop-literal-value' },
    });
    const code = imported('claude-code/.mcp.json', 'fixture');
    expect(code.mcpServers.fixture).toMatchObject({
      args: ['${AGT_FIXTURE_DIR:-test/fixtures}/mcp_server.py', '--name', '${AGT_FIXTURE_NAME}'],
      env: { FIXTURE_API_KEY: '${AGT_FIXTURE_KEY}' },
    });
    expect(imported('claude-code/.mcp.json', 'api').mcpServers.api).toMatchObject({
      url: '${AGT_API_BASE:-https://api.example.test}/mcp',
      headers: { Authorization: 'Bearer ${AGT_API_KEY}' },
    });
    const vscode = imported('vscode/.vscode/mcp.json', 'fixture');
    expect(vscode.mcpServers.fixture).toMatchObject({
      envFile: '${workspaceFolder}/test/fixtures/hosts/vscode/fixture.env',
      env: { FIXTURE_API_KEY: '${input:fixture-key}', FIXTURE_URL: 'https://example.test/a//b' },
    });
    expect(vscode.inputs).toEqual([
      { id: 'fixture-name', type: 'promptString', description: 'Name the fixture server reports' },
      { id: 'fixture-key', type: 'promptString', description: 'Fixture API key', password: true },
    ]);
    expect(documentInputs(vscode).map((i) => [i.id, i.password === true])).toEqual([
      ['fixture-name', false],
      ['fixture-key', true],
    ]);
    expect(imported('vscode/.vscode/mcp.json', 'docs').inputs).toBeUndefined(); // only the inputs an entry uses go with it
    const cursor = imported('cursor/.cursor/mcp.json', 'fixture');
    expect(cursor.mcpServers.fixture).toMatchObject({ env: { FIXTURE_API_KEY: '${env:AGT_CURSOR_KEY}', FIXTURE_HOME: '${userHome}' } });
  });

  it('R2: an unsupported placeholder is a warning of the import entry, as of a write', () => {
    const plan = planImport({ mcpServers: { odd: { command: 'python3', args: ['${command:pickFile}'], cwd: REPO_ROOT } } });
    expect(plan.entries[0]?.problems).toEqual([]);
    expect(plan.entries[0]?.warnings.join('\n')).toMatch(/\$\{command:pickFile\}.*not supported/);
  });

  it('R2/R4: an unsupported placeholder gets one rule in one message: the import warning says the launch refuses it, and the launch does', async () => {
    const plan = planImport({ mcpServers: { odd: { command: 'python3', args: ['${command:pickFile}'], cwd: REPO_ROOT } } });
    const warning = plan.entries[0]?.warnings.join('\n') ?? '';
    const launch = await failure(connectMcp(plan.entries[0]?.document as McpDocument));
    expect(launch.code).toBe('invalid_config');
    const rule = 'this placeholder is not supported, so the server cannot start until it is replaced';
    expect(warning).toContain(rule);
    expect(launch.message).toContain(rule);
  });

  it('R4: Claude Code ${VAR} and ${VAR:-default} resolve at launch from the given environment', async () => {
    const document = imported('claude-code/.mcp.json', 'fixture');
    const before = JSON.stringify(document);
    const seen = await whereami(document, { env: { AGT_FIXTURE_NAME: 'code-fixture', AGT_FIXTURE_KEY: 'k-4711' } }, 'FIXTURE_API_KEY');
    expect(seen.serverName).toBe('code-fixture');
    expect(seen.argv.slice(0, 2)).toEqual(['--name', 'code-fixture']);
    expect(seen.var_sha256).toBe(sha256('k-4711'));
    expect(JSON.stringify(document)).toBe(before); // the document keeps its placeholders
    const other = await whereami(
      document,
      { env: { AGT_FIXTURE_DIR: path.join(REPO_ROOT, 'test', 'fixtures'), AGT_FIXTURE_NAME: 'b', AGT_FIXTURE_KEY: 'k2' } },
      'FIXTURE_API_KEY',
    );
    expect(other.serverName).toBe('b');
  });

  it('R4/P1: placeholders without a value fail the static test and the launch, each named with its fix', async () => {
    const document = imported('claude-code/.mcp.json', 'fixture');
    const report = testMcpConfig(document, { env: {} });
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.field, p.message])).toEqual([
      ['mcpServers.fixture.args[2]', '${AGT_FIXTURE_NAME} has no value now'],
      ['mcpServers.fixture.env.FIXTURE_API_KEY', '${AGT_FIXTURE_KEY} has no value now'],
    ]);
    expect(report.problems[0]?.fix).toMatch(/set AGT_FIXTURE_NAME in the environment/);
    expect(testMcpConfig(document, { env: { AGT_FIXTURE_NAME: 'n', AGT_FIXTURE_KEY: 'k' } })).toMatchObject({ ok: true, problems: [] });
    const f = await failure(connectMcp(document, { variables: { env: { AGT_FIXTURE_NAME: 'n' } } }));
    expect(f).toMatchObject({
      code: 'invalid_config',
      details: {
        reason: 'unresolved_variables',
        problems: [{ field: 'config.env.FIXTURE_API_KEY', message: '${AGT_FIXTURE_KEY} has no value' }],
      },
    });
  });

  it('R4: VS Code ${input:id}, ${workspaceFolder} and envFile: the file is read at launch, the config env wins', async () => {
    const document = imported('vscode/.vscode/mcp.json', 'fixture');
    const f = await failure(connectMcp(document, { variables: { env: {} } }));
    expect(f.message).toMatch(/\$\{input:fixture-name\} has no value; give the input: .*--input fixture-name=VALUE/);
    expect(f.message).toMatch(/\$\{input:fixture-key\} has no value/);
    const inputs = { 'fixture-name': 'vs-fixture', 'fixture-key': 'input-secret' };
    const key = await whereami(document, { inputs }, 'FIXTURE_API_KEY');
    expect(key.serverName).toBe('vs-fixture');
    expect(key.var_sha256).toBe(sha256('input-secret')); // not "overridden-by-env" from the env file
    expect((await whereami(document, { inputs }, 'FIXTURE_FROM_ENV_FILE')).var_sha256).toBe(sha256('from-the-env-file'));
    expect((await whereami(document, { inputs }, 'FIXTURE_QUOTED')).var_sha256).toBe(sha256('quoted value'));
  });

  it('R4: values that placeholders and the envFile give the server are masked in its stderr tail', async () => {
    const leaky = {
      command: 'python3',
      args: ['test/fixtures/mcp_server.py', '--mode', 'leak-env', '--leak', 'FIXTURE_API_KEY', '--leak', 'FIXTURE_FROM_ENV_FILE'],
      cwd: REPO_ROOT,
      env: { FIXTURE_API_KEY: '${AGT_LEAK_KEY}' },
      envFile: 'test/fixtures/hosts/vscode/fixture.env',
    };
    const report = await new McpProber().probe(
      { mcpServers: { leaky } },
      { variables: { env: { AGT_LEAK_KEY: 'resolved-secret-31337' } } },
    );
    expect(report.stderrTail).toContain('FIXTURE_API_KEY=***');
    expect(report.stderrTail).toContain('FIXTURE_FROM_ENV_FILE=***');
    expect(JSON.stringify(report)).not.toMatch(/resolved-secret-31337|from-the-env-file/);
  });

  it('P1: resource_test takes the inputs of ${input:id}; without them each is a problem; other values are refused', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'imported/fixture', create: true, data: imported('vscode/.vscode/mcp.json', 'fixture') });
    const without = await service.test({ kind: 'mcp', reference: 'imported/fixture' });
    expect(without.problems.map((p) => p.message)).toEqual([
      '${input:fixture-name} has no value now',
      '${input:fixture-key} has no value now',
    ]);
    expect(
      await service.test({ kind: 'mcp', reference: 'imported/fixture', inputs: { 'fixture-name': 'n', 'fixture-key': 'k' } }),
    ).toMatchObject({ ok: true });
    const bad = await failure(
      service.test({ kind: 'mcp', reference: 'imported/fixture', inputs: { 'fixture-key': 5 } as unknown as Record<string, string> }),
    );
    expect(bad).toMatchObject({ code: 'invalid_input', details: { field: 'inputs' } });
  });

  it('R4: a missing envFile is spawn_failed env_file_unreadable at launch and a problem of the static test', async () => {
    const document: McpDocument = {
      mcpServers: { s: { command: 'python3', args: ['test/fixtures/mcp_server.py'], cwd: REPO_ROOT, envFile: 'no-such.env' } },
    };
    expect(testMcpConfig(document).problems).toEqual([
      expect.objectContaining({ field: 'mcpServers.s.envFile', message: 'the "envFile" cannot be read' }),
    ]);
    expect(await failure(connectMcp(document))).toMatchObject({ code: 'spawn_failed', details: { reason: 'env_file_unreadable' } });
  });

  it('R4: Cursor ${workspaceFolder}${pathSeparator}, ${workspaceFolderBasename}, ${env:NAME} and ${userHome}', async () => {
    const document = imported('cursor/.cursor/mcp.json', 'fixture');
    expect(testMcpConfig(document, { env: {} }).problems.map((p) => p.message)).toEqual(['${env:AGT_CURSOR_KEY} has no value now']);
    const variables = { env: { AGT_CURSOR_KEY: 'cursor-secret' } };
    const key = await whereami(document, variables, 'FIXTURE_API_KEY');
    expect(key.serverName).toBe(`cursor-${path.basename(REPO_ROOT)}`);
    expect(key.var_sha256).toBe(sha256('cursor-secret'));
    expect((await whereami(document, variables, 'FIXTURE_HOME')).var_sha256).toBe(sha256(os.homedir()));
  });

  it('R4: resolveServerConfig expands every field the hosts expand and leaves cwd as written', () => {
    const config = {
      command: '${BIN:-python3}',
      args: ['${cwd}/x', '${workspace}', '${/}'],
      cwd: '/srv/${NOT}',
      env: { A: '${env:A}' },
      envFile: '${userHome}/.env',
    };
    const { config: out, unresolved } = resolveServerConfig(config, { env: { A: 'a' } }, '/home/u');
    expect(out).toEqual({
      command: 'python3',
      args: ['/srv/${NOT}/x', '/srv/${NOT}', path.sep],
      cwd: '/srv/${NOT}',
      env: { A: 'a' },
      envFile: '/home/u/.env',
    });
    expect(unresolved).toEqual([]);
    expect(config.command).toBe('${BIN:-python3}'); // the input is not changed
  });
});

describe('remote host entries (R7)', () => {
  let server: AuthCheckingServer;
  beforeAll(async () => {
    server = await startAuthCheckingServer((authorization) => authorization === 'Bearer api-key-0815');
  });
  afterAll(() => server.close());

  it('R7: Claude Code ${VAR} in url and headers resolve at connect; nothing resolved is stored', async () => {
    const document = imported('claude-code/.mcp.json', 'api');
    const base = server.url.replace(/\/mcp$/, '');
    const connection = await connectMcp(document, { variables: { env: { AGT_API_BASE: base, AGT_API_KEY: 'api-key-0815' } } });
    expect((await connection.listTools()).map((t) => t.name)).toEqual(['who']);
    await connection.close();
    expect(server.seen.every((h) => h === 'Bearer api-key-0815')).toBe(true);
    expect(JSON.stringify(document)).not.toContain('api-key-0815');
    const f = await failure(connectMcp(document, { variables: { env: { AGT_API_BASE: base } } }));
    expect(f).toMatchObject({ code: 'invalid_config', details: { reason: 'unresolved_variables' } });
    expect(f.message).toMatch(/config\.headers\.Authorization: \$\{AGT_API_KEY\} has no value/);
  });
});

describe('parseJsonc', () => {
  it('R2: comments and trailing commas go, strings stay exact, errors keep JSON positions', () => {
    expect(parseJsonc('{ "a": "x // y", /* c */ "b": ["/* not */", 1,], // end\n }')).toEqual({ a: 'x // y', b: ['/* not */', 1] });
    expect(parseJsonc('{"q": "say \\"hi\\" // still a string",}')).toEqual({ q: 'say "hi" // still a string' });
    expect(parseJsonc('[1, 2 ,\n\t]')).toEqual([1, 2]);
    expect(() => parseJsonc('{ /* open comment "a": 1 }')).toThrow(SyntaxError);
    expect(() => parseJsonc('{ "a": 1,, }')).toThrow(SyntaxError);
  });
});

describe('urls with placeholders (R7)', () => {
  it('R7: a url is checked with its defaults at write, and after expansion at connect', async () => {
    expect(planImport({ mcpServers: { a: { url: '${BASE}/mcp' } } }).entries[0]?.problems).toEqual([]);
    expect(planImport({ mcpServers: { a: { url: '${BASE:-ftp://x}/mcp' } } }).entries[0]?.problems).toEqual([
      'mcp config: mcpServers.a.url: must use http or https',
    ]);
    const f = await failure(connectMcp({ url: '${BASE}/mcp' }, { variables: { env: { BASE: 'not a url' } } }));
    expect(f).toMatchObject({ code: 'invalid_config', details: { reason: 'invalid_url' } });
    expect(f.message).not.toContain('not a url');
  });
});
