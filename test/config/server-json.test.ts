/**
 * importServerJson: a server.json as published (test/fixtures/server-json,
 * each file's source in its README) becomes an MCP config document — the
 * package's runtime command, a remote's URL and headers, required inputs and
 * secrets as `${input:…}` — and whatever it cannot take is invalid_input with
 * a field and a reason. Hostile files (a `${…}` aimed at this host's
 * environment, a runtime that is a shell, a name that is a flag) are refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importServerJson, type ServerJsonImportOptions } from '../../src/config.js';
import { REPO_ROOT, thrown } from '../support/index.js';

const DIR = path.join(REPO_ROOT, 'test/fixtures/server-json');
const published = (file: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
const CWD = '/srv/agents';

function refused(json: unknown, options: ServerJsonImportOptions = { cwd: CWD }): { message: string; details: Record<string, unknown> } {
  const { code, message, details } = thrown(() => importServerJson(json, options));
  expect(code).toBe('invalid_input');
  return { message, details: details ?? {} };
}

const npmPackage = (extra: Record<string, unknown> = {}) => ({
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name: 'io.github.example/tool',
  description: 'x',
  version: '1.0.0',
  packages: [{ registryType: 'npm', identifier: 'example-tool', version: '1.0.0', transport: { type: 'stdio' }, ...extra }],
});

describe('importServerJson: published files', () => {
  it('R1: an npm package runs as npx -y name@version in the given cwd; a required secret is a password input', () => {
    const imported = importServerJson(published('brave-search-mcp-server.json'), { cwd: CWD });
    expect(imported).toMatchObject({ name: 'io.github.brave/brave-search-mcp-server', suggestedName: 'brave-search-mcp-server' });
    expect(imported.document).toEqual({
      mcpServers: {
        'brave-search-mcp-server': {
          command: 'npx',
          args: ['-y', '@brave/brave-search-mcp-server@2.1.3'],
          cwd: CWD,
          env: { BRAVE_API_KEY: '${input:BRAVE_API_KEY}' },
        },
      },
      inputs: [{ id: 'BRAVE_API_KEY', type: 'promptString', description: 'Your API key for the service', password: true }],
    });
    expect(imported.source).toEqual({
      kind: 'package',
      registryType: 'npm',
      identifier: '@brave/brave-search-mcp-server',
      version: '2.1.3',
    });
    expect(imported.warnings).toEqual([]);
  });

  it('R1: a package with no inputs (playwright-mcp) is the command alone; an optional secret (context7) is asked for, with a warning', () => {
    expect(importServerJson(published('playwright-mcp.json'), { cwd: CWD }).document.mcpServers['playwright-mcp']).toEqual({
      command: 'npx',
      args: ['-y', '@playwright/mcp@0.1.0'],
      cwd: CWD,
      env: {},
    });
    const context7 = importServerJson(published('context7.json'), { cwd: CWD });
    expect(context7.document.mcpServers.context7).toMatchObject({ env: { CONTEXT7_API_KEY: '${input:CONTEXT7_API_KEY}' } });
    expect(context7.warnings).toEqual([
      'packages[0].environmentVariables[0]: an optional secret, asked for at launch as ${input:CONTEXT7_API_KEY}; remove it with agt mcp update if you do not use it',
    ]);
  });

  it('R1: a PyPI package runs as uvx name==version; an optional value with a default is written with it, and said', () => {
    const imported = importServerJson(published('registry-weather-python.json'), { cwd: CWD });
    expect(imported.document.mcpServers['weather-mcp']).toEqual({
      command: 'uvx',
      args: ['weather-mcp-server==0.5.0'],
      cwd: CWD,
      env: { WEATHER_API_KEY: '${input:WEATHER_API_KEY}', WEATHER_UNITS: 'celsius' },
    });
    expect(imported.warnings).toEqual([
      'packages[0].environmentVariables[1]: written with its default "celsius"; change it with agt mcp update',
    ]);
  });

  it('R1: an OCI image runs as docker run -i --rm; runtime arguments that already name the image get it once, tagged; an inline secret -e goes by name', () => {
    const imported = importServerJson(published('github-mcp-server.json'), { cwd: CWD });
    expect(imported.document.mcpServers['github-mcp-server']).toMatchObject({
      command: 'docker',
      // The secret goes by name (-e NAME): on the command line any local user would see it in ps.
      args: ['run', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', '-i', '--rm', 'ghcr.io/github/github-mcp-server:0.24.1'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${input:token}' },
    });
    expect(imported.document.inputs).toEqual([{ id: 'token', type: 'promptString', description: 'token', password: true }]);
  });

  it('R1: the first startable package by default, another by packageType; the rest are listed as alternatives', () => {
    const pypi = importServerJson(published('scrapling.json'), { cwd: CWD });
    // Its { valueHint: "mcp", isFixed: true } (not in the schema) is the fixed word "mcp".
    expect(pypi.document.mcpServers.scrapling).toMatchObject({ command: 'uvx', args: ['scrapling==0.4.3', 'mcp'] });
    expect(pypi.alternatives).toEqual(['oci ghcr.io/d4vinci/scrapling']);
    const oci = importServerJson(published('scrapling.json'), { cwd: CWD, packageType: 'oci' });
    expect(oci.document.mcpServers.scrapling).toMatchObject({
      command: 'docker',
      args: ['run', '-i', '--rm', 'ghcr.io/d4vinci/scrapling', 'mcp'],
    });
    expect(oci.alternatives).toEqual(['pypi scrapling@0.4.3']);
  });

  it('R7: a remote is its URL with the template variables filled in and its secret header as an input; no cwd needed', () => {
    const imported = importServerJson(published('registry-with-remote.json'));
    expect(imported.document).toEqual({
      mcpServers: {
        'remote-weather': {
          url: 'https://api.example.com/mcp',
          headers: { Authorization: '${input:Authorization}' },
          transport: 'streamable-http',
        },
      },
      inputs: [{ id: 'Authorization', type: 'promptString', description: 'Authorization', password: true }],
    });
    expect(imported.source).toEqual({ kind: 'remote', type: 'streamable-http', url: 'https://{host}/mcp' });
  });

  it('R7: a required URL variable without a default becomes an input; remote picks by transport or index; sse is kept', () => {
    const json = {
      name: 'io.example/multi',
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://{tenant}.example.com/mcp',
          variables: { tenant: { description: 'Your tenant', isRequired: true } },
        },
        { type: 'sse', url: 'https://example.com/sse' },
      ],
    };
    const first = importServerJson(json, { remote: true });
    expect(first.document.mcpServers.multi).toMatchObject({ url: 'https://${input:tenant}.example.com/mcp' });
    expect(first.document.inputs).toEqual([{ id: 'tenant', type: 'promptString', description: 'Your tenant' }]);
    expect(first.warnings).toEqual(['no "$schema": read as 2025-12-11']);
    expect(importServerJson(json, { remote: 'sse' }).document.mcpServers.multi).toEqual({
      url: 'https://example.com/sse',
      headers: {},
      transport: 'sse',
    });
    expect(importServerJson(json, { remote: 1 }).source).toEqual({ kind: 'remote', type: 'sse', url: 'https://example.com/sse' });
  });

  it('R1: the registry API answer ({ server: … }) is read like the file', () => {
    const imported = importServerJson({ server: published('playwright-mcp.json'), _meta: {} }, { cwd: CWD });
    expect(imported.source).toMatchObject({ identifier: '@playwright/mcp' });
  });
});

describe('importServerJson: what it refuses, and why', () => {
  it('a ${…} template in a value (github-mcp-server as kept in its repository) is refused, never expanded', () => {
    const { message, details } = refused(published('github-mcp-server.template.json'));
    expect(details).toEqual({ field: 'packages[0].identifier', reason: 'placeholder_in_value' });
    expect(message).toContain("would expand from this host's environment");
    const header = refused({
      name: 'io.example/x',
      remotes: [
        { type: 'streamable-http', url: 'https://example.com/mcp', headers: [{ name: 'X-Key', value: '${env:AWS_SECRET_ACCESS_KEY}' }] },
      ],
    });
    expect(header.details).toEqual({ field: 'remotes[0].headers[0].value', reason: 'placeholder_in_value' });
  });

  it('an unknown schema version, an older snake_case file and a draft are refused, naming the versions read', () => {
    const newer = refused({ ...npmPackage(), $schema: 'https://static.modelcontextprotocol.io/schemas/2027-01-01/server.schema.json' });
    expect(newer.details).toMatchObject({
      field: '$schema',
      reason: 'unsupported_schema',
      supported: ['2025-09-29', '2025-10-11', '2025-10-17', '2025-12-11'],
    });
    const older = refused({ ...npmPackage(), $schema: 'https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json' });
    expect(older.message).toContain('older than 2025-09-29');
    const snake = refused({ name: 'io.example/x', packages: [{ registry_type: 'npm', identifier: 'x', version: '1' }] });
    expect(snake.details).toMatchObject({ reason: 'unsupported_schema' });
  });

  it('an unknown registry type, an MCP bundle and a package that serves HTTP are refused with what to do instead', () => {
    expect(refused(npmPackage({ registryType: 'cargo' })).details).toEqual({
      field: 'packages[0].registryType',
      reason: 'unsupported_registry_type',
    });
    expect(refused(npmPackage({ registryType: 'mcpb' })).message).toContain('install it, then register its command');
    const http = refused(npmPackage({ transport: { type: 'streamable-http', url: 'http://localhost:8080/mcp' } }));
    expect(http.details).toEqual({ field: 'packages[0].transport', reason: 'unsupported_transport' });
    expect(refused({ name: 'io.example/x', remotes: [{ type: 'websocket', url: 'wss://x' }] }).details).toEqual({
      field: 'remotes[0].type',
      reason: 'unsupported_transport',
    });
  });

  it("a runtimeHint that is not its registry's runtime (a shell) is refused; so is a package name that is a flag", () => {
    expect(refused(npmPackage({ runtimeHint: 'sh' })).details).toEqual({ field: 'packages[0].runtimeHint', reason: 'unsupported_runtime' });
    expect(refused(npmPackage({ identifier: '--eval=process.exit()' })).details).toEqual({
      field: 'packages[0].identifier',
      reason: 'bad_identifier',
    });
    expect(refused(npmPackage({ version: '1.0 && rm -rf ~' })).details).toEqual({ field: 'packages[0].version', reason: 'bad_version' });
    expect(refused(npmPackage({ packageArguments: [{ type: 'named', name: 'x; rm', value: 'y' }] })).details).toEqual({
      field: 'packages[0].packageArguments[0].name',
      reason: 'bad_argument_name',
    });
    expect(refused(npmPackage({ environmentVariables: [{ name: 'A=B', value: 'x' }] })).details).toMatchObject({
      reason: 'bad_variable_name',
    });
  });

  it('a package without a cwd, a packageType the file lacks and a remote it lacks are refused, naming what it has', () => {
    expect(refused(npmPackage(), {}).details).toEqual({ field: 'cwd', reason: 'cwd_required' });
    const missing = refused(npmPackage(), { cwd: CWD, packageType: 'pypi' });
    expect(missing.message).toContain('it has: npm example-tool@1.0.0');
    expect(refused(npmPackage(), { remote: true }).details).toMatchObject({ reason: 'no_such_remote' });
    expect(refused({ name: 'io.example/x', packages: [] }).details).toMatchObject({ reason: 'nothing_to_import' });
  });

  it('sizes are bounded: more than 100 arguments, or a value over 8,192 characters, is too_large', () => {
    const many = Array.from({ length: 101 }, () => ({ type: 'positional', value: 'a' }));
    expect(refused(npmPackage({ packageArguments: many })).details).toMatchObject({ reason: 'too_large' });
    expect(refused(npmPackage({ packageArguments: [{ type: 'positional', value: 'a'.repeat(8193) }] })).details).toMatchObject({
      reason: 'too_large',
    });
  });

  it('hostile text in a name or description is escaped; unknown keys are warned about, at most eight named', () => {
    const keys = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}\u001b[2J`, 1]));
    const imported = importServerJson(
      npmPackage({ environmentVariables: [{ name: 'TOKEN', isRequired: true, description: 'Token\u001b[31m\nnext line' }], ...keys }),
      { cwd: CWD },
    );
    expect(imported.document.inputs).toEqual([{ id: 'TOKEN', type: 'promptString', description: 'Token\\x1b[31m\\nnext line' }]);
    const warning = imported.warnings.find((w) => w.includes('not in the server.json schema')) as string;
    expect(warning).toContain('"k0\\x1b[2J"');
    expect(warning).toContain('and 2 more');
    expect(warning).not.toContain('\u001b');
  });
});
