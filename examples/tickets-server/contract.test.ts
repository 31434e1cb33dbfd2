// The tickets server's contract, run against the real server process over stdio (C1, C3), and its
// identity rules over HTTP with bearer tokens (C4: the caller comes from authentication, never from _meta).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractCases, createToolServer, runContract, serveHttp } from 'agt-mcp/authoring';
import { contractSuite } from 'agt-mcp/testing';
import { createTicketTools } from './tools.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// On stdio the caller is the user who started the server: this test's user, made an admin here.
const owner = os.userInfo().username;
// tsx compiles the server as it starts: on a busy CI machine that has taken over 10 s (the default handshake), so
// the contract waits for the process up to a minute rather than failing on a slow start.
const server = {
  command: process.execPath,
  args: ['--import', 'tsx', 'server.ts'],
  cwd: here,
  env: { TICKETS_ADMINS: owner },
  handshakeTimeoutMs: 60_000,
};
const [createTicket, getTicket, closeTicket] = createTicketTools();

const cases = [
  ...contractCases(createTicket, { valid: [{ title: 'Export is broken', priority: 'normal', assignee: 'carol' }] }),
  ...contractCases(getTicket, {
    valid: [{ id: 1 }],
    businessErrors: [{ name: 'unknown ticket', args: { id: 999 }, code: 'not_found' }],
  }),
  ...contractCases(closeTicket, {
    valid: [{ id: 1, resolution: 'fixed' }],
    validBoundaries: false, // closing changes state: derive only invalid cases, which never reach the handler
    businessErrors: [
      { name: 'already closed', args: { id: 2, resolution: 'fixed' }, code: 'invalid_state' },
      { name: 'unknown ticket', args: { id: 404, resolution: 'fixed' }, meta: { caller: 'admin' }, code: 'not_found' },
    ],
  }),
];

describe('tickets-server contract (C1, C3, C4)', () => {
  // One test per case and era: each case runs on a 2025 connection and on a 2026-07-28 one.
  // Two server starts (one per era) and every case: more than the 30 s a hook gets by default when the machine is busy.
  contractSuite(server, cases, { test: it, beforeAll: (fn) => beforeAll(fn, 180_000) });
});

describe('tickets-server identity over HTTP (C4)', () => {
  const users: Record<string, string> = { 'tok-alice': 'alice', 'tok-mallory': 'mallory' };
  let service: Awaited<ReturnType<typeof serveHttp>>;
  beforeAll(async () => {
    const tools = createTicketTools({ admins: [] });
    service = await serveHttp(() => createToolServer({ name: 'tickets', version: '1.0.0', tools }), {
      auth: { verify: (token) => (users[token] ? { token, clientId: users[token], scopes: [] } : undefined) },
    });
  });
  afterAll(() => service.close());
  const as = (token: string | undefined, meta?: Record<string, unknown>) =>
    runContract({ url: service.url, ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}) }, [
      {
        name: 'close ticket 1',
        tool: 'close_ticket',
        args: { id: 1, resolution: 'fixed' },
        ...(meta ? { meta } : {}),
        expect: { ok: true },
      },
    ]);

  // Each run calls once per era (2025, then 2026-07-28), on one service with one state.
  const outcomes = async (token: string | undefined, meta?: Record<string, unknown>) =>
    (await as(token, meta)).eras.map((e) => [e.era, e.results[0]?.got]);

  it("C4: a forged _meta.caller changes nothing: mallory cannot close alice's ticket by claiming to be alice; alice can", async () => {
    expect(await outcomes('tok-mallory', { caller: 'alice' })).toEqual([
      ['legacy', { code: 'forbidden' }],
      ['modern', { code: 'forbidden' }],
    ]);
    await expect(as(undefined)).rejects.toMatchObject({ code: 'auth_required' }); // no token: 401 before any tool runs
    // alice closes it on the 2025 connection; on the 2026-07-28 one the same service finds it closed.
    expect(await outcomes('tok-alice')).toEqual([
      ['legacy', { ok: true }],
      ['modern', { code: 'invalid_state' }],
    ]);
  });
});
