/**
 * The reference MCP servers from npm, launched by absolute process.execPath +
 * entry file (never npx), probed through the same path as runs; everything
 * also over Streamable HTTP and HTTP+SSE on a loopback port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, McpProber } from '../../src/index.js';
import { referenceServer, tempDir } from '../support/index.js';

const prober = new McpProber();
const tmp = tempDir('agt-ref-');
afterAll(() => tmp.cleanup());

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  return port;
}

async function startHttp(mode: 'streamableHttp' | 'sse'): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [referenceServer('everything'), mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`everything ${mode} did not start`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (/listening|running/i.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => reject(new Error('everything exited')));
  });
  return { child, port };
}

describe('reference servers over stdio', () => {
  it('P2: server-everything probes with every tool compiled', async () => {
    const report = await prober.probe({
      mcpServers: { everything: { command: process.execPath, args: [referenceServer('everything'), 'stdio'], cwd: tmp.dir } },
    });
    expect(report.server.name).toMatch(/everything/i);
    expect(report.tools.length).toBeGreaterThanOrEqual(10);
    expect(report.tools.filter((t) => !t.ok)).toEqual([]);
    expect(report.tools.map((t) => t.name)).toContain('echo');
  });

  it('P2: server-filesystem probes with every tool compiled (draft-07 zod schemas)', async () => {
    const report = await prober.probe({
      mcpServers: { fs: { command: process.execPath, args: [referenceServer('filesystem'), tmp.dir], cwd: tmp.dir } },
    });
    expect(report.tools.filter((t) => !t.ok)).toEqual([]);
    expect(report.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
  });

  it('P2: server-memory probes with every tool compiled', async () => {
    const report = await prober.probe({
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [referenceServer('memory')],
          cwd: tmp.dir,
          env: { MEMORY_FILE_PATH: '${cwd}/memory.jsonl' },
        },
      },
    });
    expect(report.tools.filter((t) => !t.ok)).toEqual([]);
    expect(report.tools.map((t) => t.name)).toContain('create_entities');
  });
});

describe('server-everything over HTTP on loopback (R7)', () => {
  let http: { child: ChildProcess; port: number };
  let sse: { child: ChildProcess; port: number };
  beforeAll(async () => {
    [http, sse] = await Promise.all([startHttp('streamableHttp'), startHttp('sse')]);
  }, 30_000);
  afterAll(() => {
    http?.child.kill();
    sse?.child.kill();
  });

  it('R7: Streamable HTTP: probe, call a tool, close (the session is terminated)', async () => {
    const url = `http://127.0.0.1:${http.port}/mcp`;
    const report = await prober.probe({ mcpServers: { everything: { url } } });
    expect(report.transport).toBe('streamable-http');
    expect(report.tools.filter((t) => !t.ok)).toEqual([]);
    const connection = await connectMcp({ url });
    const result = await connection.callTool('echo', { message: 'over http' });
    expect(JSON.stringify(result.content)).toContain('over http');
    await connection.close();
  });

  it('R7: an HTTP+SSE-only server is reached by falling back from Streamable HTTP', async () => {
    const connection = await connectMcp({ url: `http://127.0.0.1:${sse.port}/sse` });
    expect(connection.transport).toBe('sse');
    expect((await connection.listTools()).length).toBeGreaterThan(0);
    await connection.close();
  });

  it('R7: transport "sse" connects with SSE directly', async () => {
    const connection = await connectMcp({ url: `http://127.0.0.1:${sse.port}/sse`, transport: 'sse' });
    expect(connection.transport).toBe('sse');
    await connection.close();
  });

  it('R7: an unreachable URL fails with connection_closed (unreachable)', async () => {
    const port = await freePort();
    await expect(connectMcp({ url: `http://127.0.0.1:${port}/mcp` }, { timeouts: { handshakeMs: 3000 } })).rejects.toMatchObject({
      code: 'connection_closed',
      details: { reason: 'unreachable' },
    });
  });
});
