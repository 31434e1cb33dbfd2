/** Remote specifics: headers reach the server; the official conformance client scenarios run our connect path. */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/index.js';
import { failure, REPO_ROOT } from '../service/helpers.js';

const TOKEN = 'Bearer test-token-4711';
let server: http.Server;
let url: string;
const seen: (string | undefined)[] = [];

const sessions = new Map<string, StreamableHTTPServerTransport>();
const terminated: string[] = [];

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    seen.push(req.headers.authorization);
    if (req.headers.authorization !== TOKEN) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      if (req.method === 'DELETE') terminated.push(sessionId);
      await sessions.get(sessionId)?.handleRequest(req, res);
      return;
    }
    const mcp = new Server({ name: 'header-check', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'who', inputSchema: { type: 'object' } }] }));
    mcp.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: 'authorised' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void sessions.set(id, transport) });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`;
});
afterAll(() => server.close());

describe('remote servers (R7)', () => {
  it('R7: configured headers are sent with every request', async () => {
    const connection = await connectMcp({ url, headers: { Authorization: TOKEN } });
    expect((await connection.listTools()).map((t) => t.name)).toEqual(['who']);
    expect(JSON.stringify((await connection.callTool('who', {})).content)).toContain('authorised');
    await connection.close();
    expect(terminated).toEqual([...sessions.keys()]); // R7: close terminates the session (DELETE)
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.every((h) => h === TOKEN)).toBe(true);
  });

  it('R7: a rejected handshake is auth_required with the HTTP status, never the header value', async () => {
    const f = await failure(connectMcp({ url, headers: { Authorization: 'Bearer wrong-secret-999' } }));
    expect(f).toMatchObject({ code: 'auth_required', details: { reason: 'unauthorized', status: 401 } });
    expect(f.message).toMatch(/pass auth .* or set an Authorization header/);
    expect(JSON.stringify({ m: f.message, d: f.details })).not.toContain('wrong-secret-999');
  });
});

function conformance(scenario: string): Promise<string> {
  const bin = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const command = `${process.execPath} --import tsx ${path.join(REPO_ROOT, 'test/mcp/fixtures/conformance-client.ts')}`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, 'client', '--command', command, '--scenario', scenario], { cwd: REPO_ROOT, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${stdout}\n${stderr}`)) : resolve(`${stdout}\n${stderr}`),
    );
  });
}

// @modelcontextprotocol/conformance is pinned to 0.1.13: 0.1.14+ crash on Node 20 (they import fs.globSync).
describe('@modelcontextprotocol/conformance client scenarios (over HTTP, through connectMcp)', () => {
  it.each(['initialize', 'tools_call'])('P2: scenario %s passes', async (scenario) => {
    const out = await conformance(scenario);
    expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(out).toContain('OVERALL: PASSED');
  });
});
