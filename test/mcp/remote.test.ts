/** Remote specifics: configured headers reach the server on every request (R7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/index.js';
import { failure } from '../support/index.js';
import { type AuthCheckingServer, startAuthCheckingServer } from '../support/http-server.js';

const TOKEN = 'Bearer test-token-4711';
let server: AuthCheckingServer;
beforeAll(async () => {
  server = await startAuthCheckingServer((authorization) => authorization === TOKEN);
});
afterAll(() => server.close());

describe('remote servers (R7)', () => {
  it('R7: configured headers are sent with every request', async () => {
    const connection = await connectMcp({ url: server.url, headers: { Authorization: TOKEN } });
    expect((await connection.listTools()).map((t) => t.name)).toEqual(['who']);
    expect(JSON.stringify((await connection.callTool('who', {})).content)).toContain('authorised');
    await connection.close();
    expect(server.terminated).toEqual([...server.sessions.keys()]); // R7: close terminates the session (DELETE)
    expect(server.seen.length).toBeGreaterThanOrEqual(3);
    expect(server.seen.every((h) => h === TOKEN)).toBe(true);
  });

  it('R7: a rejected handshake is auth_required with the HTTP status, never the header value', async () => {
    const f = await failure(connectMcp({ url: server.url, headers: { Authorization: 'Bearer wrong-secret-999' } }));
    expect(f).toMatchObject({ code: 'auth_required', details: { reason: 'unauthorized', status: 401 } });
    expect(f.message).toMatch(/rejected the Authorization header of the config \(HTTP 401\)/); // the header is named, never "set one"
    expect(JSON.stringify({ m: f.message, d: f.details })).not.toContain('wrong-secret-999');
  });
});
