// The tickets server's contract, run against the real server process over stdio (C1, C3).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, it } from 'vitest';
import { contractCases } from 'agt-mcp/authoring';
import { contractSuite } from 'agt-mcp/testing';
import { createTicketTools } from './tools.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const server = { command: process.execPath, args: ['--import', 'tsx', 'server.ts'], cwd: here };
const [createTicket, getTicket, closeTicket] = createTicketTools();

const cases = [
  ...contractCases(createTicket, { valid: [{ title: 'Export is broken', priority: 'normal', assignee: 'carol' }] }),
  ...contractCases(getTicket, {
    valid: [{ id: 1 }],
    businessErrors: [{ name: 'unknown ticket', args: { id: 999 }, code: 'not_found' }],
  }),
  ...contractCases(closeTicket, {
    valid: [{ id: 1, resolution: 'fixed' }],
    meta: { caller: 'alice' }, // the assignee of ticket 1
    validBoundaries: false, // closing changes state: derive only invalid cases, which never reach the handler
    businessErrors: [
      { name: 'no caller', args: { id: 1, resolution: 'fixed' }, code: 'unauthenticated' },
      { name: 'not the assignee', args: { id: 1, resolution: 'fixed' }, meta: { caller: 'mallory' }, code: 'forbidden' },
      { name: 'already closed', args: { id: 2, resolution: 'fixed' }, meta: { caller: 'admin' }, code: 'invalid_state' },
      { name: 'unknown ticket', args: { id: 404, resolution: 'fixed' }, meta: { caller: 'admin' }, code: 'not_found' },
    ],
  }),
];

describe('tickets-server contract (C1, C3, C4)', () => {
  contractSuite(server, cases, { test: it, beforeAll });
});
