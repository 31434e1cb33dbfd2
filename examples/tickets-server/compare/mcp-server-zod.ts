/**
 * For comparison only (docs/authoring.md, "Lines of code"): the same three
 * tickets tools on the SDK's McpServer with zod, rules and errors alike. Not
 * served or tested; its lines are counted against tools.ts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

interface Ticket {
  id: number;
  title: string;
  priority: 'low' | 'normal' | 'high';
  assignee: string;
  status: 'open' | 'closed';
  resolution?: string;
}

export function createTicketServer(admins: ReadonlySet<string>) {
  const server = new McpServer({ name: 'tickets', version: '1.0.0' });
  const tickets = new Map<number, Ticket>([
    [1, { id: 1, title: 'Login page is slow', priority: 'high', assignee: 'alice', status: 'open' }],
    [2, { id: 2, title: 'Typo on the pricing page', priority: 'low', assignee: 'bob', status: 'closed', resolution: 'fixed' }],
  ]);
  let nextId = 3;
  const fail = (code: string, message: string) => ({
    isError: true,
    content: [{ type: 'text' as const, text: JSON.stringify({ error: { code, message } }) }],
  });
  const data = (value: Record<string, unknown>) => ({
    content: [{ type: 'text' as const, text: JSON.stringify(value) }],
    structuredContent: value,
  });

  server.registerTool(
    'create_ticket',
    {
      description: 'Open a ticket and assign it.',
      inputSchema: {
        title: z.string().min(3).max(80),
        priority: z.enum(['low', 'normal', 'high']),
        assignee: z.string().regex(/^[a-z][a-z0-9-]{1,31}$/),
      },
    },
    async ({ title, priority, assignee }) => {
      const ticket: Ticket = { id: nextId++, title, priority, assignee, status: 'open' };
      tickets.set(ticket.id, ticket);
      return data({ id: ticket.id, status: ticket.status });
    },
  );

  server.registerTool('get_ticket', { description: 'Read a ticket.', inputSchema: { id: z.number().int().min(1) } }, async ({ id }) => {
    const ticket = tickets.get(id);
    return ticket ? data({ ...ticket }) : fail('not_found', `there is no ticket ${id}`);
  });

  server.registerTool(
    'close_ticket',
    {
      description: 'Close a ticket. Only its assignee or an admin may close it.',
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
      inputSchema: {
        id: z.number().int().min(1),
        resolution: z.enum(['fixed', 'wontfix', 'duplicate']),
        note: z.string().max(200).optional(),
      },
    },
    async ({ id, resolution }, extra) => {
      const caller = extra.authInfo?.clientId;
      if (caller === undefined) return fail('unauthenticated', 'closing a ticket needs an authenticated caller');
      const ticket = tickets.get(id);
      if (ticket === undefined) return fail('not_found', `there is no ticket ${id}`);
      if (ticket.status === 'closed') return fail('invalid_state', `ticket ${id} is already closed`);
      if (caller !== ticket.assignee && !admins.has(caller))
        return fail('forbidden', 'only the assignee or an admin may close this ticket');
      ticket.status = 'closed';
      ticket.resolution = resolution;
      return data({ id, status: ticket.status, resolution });
    },
  );
  return server;
}
