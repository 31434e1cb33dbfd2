/** The single connect path against the standard-library Python server (R3–R6, P2–P4). */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp, McpProber, MemoryStore, ResourceService } from '../../src/index.js';
import { failure, FIXTURES, livingWithMarker, marker, PYTHON_SERVER, pythonConfig, tempDir } from '../support/index.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('connectMcp over stdio', () => {
  it('P2: initialize, every page of tools/list, a call, and close', async () => {
    const connection = await connectMcp(pythonConfig({ extra: ['--page-size', '1'] }));
    expect(connection.serverInfo).toEqual({ name: 'agt-python-fixture', version: '1.0.0' });
    expect(connection.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(connection.transport).toBe('stdio');
    expect((await connection.listTools()).map((t) => t.name)).toEqual(['echo', 'add', 'withdraw', 'whereami']);
    const result = await connection.callTool('add', { a: 2, b: 40 });
    expect(result.structuredContent).toEqual({ sum: 42 });
    await connection.close();
    expect(connection.closed).toBe(true);
    await expect(connection.callTool('add', { a: 1, b: 1 })).rejects.toMatchObject({ code: 'connection_closed' });
  });

  it('P2: a business error is a tool result with isError, not an exception', async () => {
    const connection = await connectMcp(pythonConfig());
    const result = await connection.callTool('withdraw', { amount: 1e6 });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result as { content: unknown[] })).error.code).toBe('insufficient_funds');
    await connection.close();
  });

  it("R5: the server runs in its config cwd, never the host's, even when the host runs elsewhere", async () => {
    const serverDir = path.join(tmp.dir, 'server-home');
    const hostDir = path.join(tmp.dir, 'host-elsewhere');
    fs.mkdirSync(serverDir);
    fs.mkdirSync(hostDir);
    const script = path.join(tmp.dir, 'host.mjs');
    fs.writeFileSync(
      script,
      `import { connectMcp } from ${JSON.stringify(path.join(FIXTURES, '..', '..', 'dist', 'index.js'))};
       const c = await connectMcp(${JSON.stringify(pythonConfig({ cwd: serverDir }))});
       const r = await c.callTool('whereami', {});
       console.log(JSON.stringify({ host: process.cwd(), server: JSON.parse(r.content[0].text).cwd }));
       await c.close();`,
    );
    const { execFileSync } = await import('node:child_process');
    const out = JSON.parse(execFileSync(process.execPath, [script], { cwd: hostDir, encoding: 'utf8' }).trim());
    expect(fs.realpathSync(out.host)).toBe(fs.realpathSync(hostDir));
    expect(fs.realpathSync(out.server)).toBe(fs.realpathSync(serverDir));
  });

  it('R4: relative args resolve against cwd; ${cwd} and ${workspace} expand in args and env', async () => {
    const log = path.join(tmp.dir, 'calls.log');
    fs.copyFileSync(PYTHON_SERVER, path.join(tmp.dir, 'server.py'));
    const connection = await connectMcp({
      command: 'python3',
      args: ['server.py', '--log', '${cwd}/calls.log', '--name', 'ws-${workspace}'],
      cwd: tmp.dir,
      env: { DATA_DIR: '${workspace}/data' },
    });
    expect(connection.serverInfo.name).toBe(`ws-${tmp.dir}`);
    await connection.callTool('echo', { message: 'hi' });
    const env = JSON.parse(textOf((await connection.callTool('whereami', { var: 'DATA_DIR' })) as { content: unknown[] }));
    expect(env.var_value_length).toBe(`${tmp.dir}/data`.length);
    await connection.close();
    expect(fs.readFileSync(log, 'utf8')).toContain('"tool": "echo"');
  });

  it('R5: the server gets the safe default environment plus its config env, nothing else of the host', async () => {
    process.env.AGT_TEST_HOST_SECRET = 'host-only';
    try {
      const connection = await connectMcp(pythonConfig({ env: { FROM_CONFIG: 'yes' } }));
      const has = async (name: string) =>
        JSON.parse(textOf((await connection.callTool('whereami', { var: name })) as { content: unknown[] })).has_var;
      expect(await has('FROM_CONFIG')).toBe(true);
      expect(await has('PATH')).toBe(true);
      expect(await has('AGT_TEST_HOST_SECRET')).toBe(false);
      await connection.close();
    } finally {
      delete process.env.AGT_TEST_HOST_SECRET;
    }
  });

  it('R6: a legacy config without an absolute cwd fails at launch with invalid_config saying which field to set', async () => {
    const f = await failure(connectMcp({ mcpServers: { old: { command: 'python3', args: [PYTHON_SERVER] } } } as never));
    expect(f.code).toBe('invalid_config');
    expect(f.message).toMatch(/config\.cwd: a stdio server needs an absolute "cwd"/);
    expect((await failure(connectMcp({ command: './run.sh', cwd: tmp.dir }))).code).toBe('invalid_config');
  });
});

describe('McpProber', () => {
  it('P2: a probe by reference reports server, protocol, capabilities, timings, every tool and closes', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    const mark = marker();
    await service.write({
      kind: 'mcp',
      reference: 'tools/py',
      create: true,
      data: { mcpServers: { py: pythonConfig({ mark, extra: ['--page-size', '3'] }) } },
    });
    const report = await new McpProber({ service }).probe('tools/py');
    expect(report).toMatchObject({
      ok: true,
      server: { name: 'agt-python-fixture', version: '1.0.0' },
      capabilities: { tools: { listChanged: false } },
      transport: 'stdio',
      warnings: [],
    });
    expect(report.tools.map((t) => [t.name, t.ok, t.dialect])).toEqual([
      ['echo', true, '2020-12'],
      ['add', true, '2020-12'],
      ['withdraw', true, '2020-12'],
      ['whereami', true, '2020-12'],
    ]);
    for (const ms of Object.values(report.timings)) expect(ms).toBeGreaterThanOrEqual(0);
    expect(livingWithMarker(mark)).toEqual([]);
  });

  it('P2: a probe calls no business tool (the server logs every call it gets)', async () => {
    const log = path.join(tmp.dir, 'calls.log');
    await new McpProber().probe({ mcpServers: { py: pythonConfig({ extra: ['--log', log] }) } });
    expect(fs.existsSync(log)).toBe(false);
  });

  it('P2: one tool with a bad inputSchema is reported failed; the others are still reported', async () => {
    const report = await new McpProber().probe({ mcpServers: { py: pythonConfig({ mode: 'bad-schema' }) } });
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.tools.map((t) => [t.name, t]));
    expect(byName.echo?.ok).toBe(true);
    expect(byName.broken).toMatchObject({ ok: false, error: { code: 'schema_load_failed', schemaPath: '/type' } });
    expect(byName.worse).toMatchObject({ ok: false, error: { code: 'schema_load_failed', schemaPath: '/properties/x/type' } });
  });

  it('P2: duplicate and invalid tool names are reported per tool', async () => {
    const report = await new McpProber().probe({ mcpServers: { py: pythonConfig({ mode: 'bad-names' }) } });
    const errors = report.tools.filter((t) => !t.ok).map((t) => t.error?.code);
    expect(errors).toEqual(['duplicate_name', 'duplicate_name', 'invalid_name', 'invalid_name']);
  });

  it('P4: a probe certifies nothing: the next probe connects and lists again and sees changes', async () => {
    const service = new ResourceService({ store: new MemoryStore() });
    await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig() } } });
    const prober = new McpProber({ service });
    expect((await prober.probe('tools/py')).ok).toBe(true);
    await service.write({ kind: 'mcp', reference: 'tools/py', data: { mcpServers: { py: pythonConfig({ mode: 'bad-schema' }) } } });
    expect((await prober.probe('tools/py')).ok).toBe(false);
  });

  it('P3: a probe executes the configured command on the host (no sandbox)', async () => {
    const marker = path.join(tmp.dir, 'executed');
    const f = await failure(
      new McpProber().probe({ mcpServers: { sh: { command: '/bin/sh', args: ['-c', `touch ${marker}; exit 4`], cwd: tmp.dir } } }),
    );
    expect(f.code).toBe('exited_early');
    expect(fs.existsSync(marker)).toBe(true);
  });

  it('P2: probes and runs declare the same client capabilities (one connect path)', async () => {
    const log = path.join(tmp.dir, 'init.log');
    const config = pythonConfig({ extra: ['--log-init', log] });
    await new McpProber().probe({ mcpServers: { py: config } });
    const connection = await connectMcp(config);
    await connection.close();
    const [probe, run] = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(probe).toEqual(run);
    expect(probe.capabilities).toEqual({}); // no handlers: nothing declared
    expect(probe.clientInfo).toEqual({
      name: 'agt-mcp',
      version: JSON.parse(fs.readFileSync(path.join(FIXTURES, '../../package.json'), 'utf8')).version,
    });
  });

  it('P2: probing a stored reference needs a service', async () => {
    expect((await failure(new McpProber().probe('tools/py'))).code).toBe('invalid_input');
  });
});
