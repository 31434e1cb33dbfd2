/**
 * The tickets tools: each argument rule is written once, in valibot; the
 * published inputSchema and the server's parser both come from it (C2).
 * Business and permission rules live in the handlers and are reported with
 * toolError (C4).
 */
import * as v from 'valibot';
import { defineTool, toolError } from 'agt-mcp/authoring';

interface Ticket {
  id: number;
  title: string;
  priority: 'low' | 'normal' | 'high';
  assignee: string;
  status: 'open' | 'closed';
  resolution?: string;
}

/**
 * The tickets store: in memory, seeded so every rule can be exercised.
 * `admins` may close any ticket (default: the TICKETS_ADMINS environment
 * variable, comma-separated, else `admin`).
 */
export function createTicketTools(options: { admins?: readonly string[] } = {}) {
  const admins = new Set(options.admins ?? (process.env.TICKETS_ADMINS ?? 'admin').split(',').filter(Boolean));
  const tickets = new Map<number, Ticket>([
    [1, { id: 1, title: 'Login page is slow', priority: 'high', assignee: 'alice', status: 'open' }],
    [2, { id: 2, title: 'Typo on the pricing page', priority: 'low', assignee: 'bob', status: 'closed', resolution: 'fixed' }],
  ]);
  let nextId = 3;
  const find = (id: number): Ticket => tickets.get(id) ?? toolError('not_found', `there is no ticket ${id}`);

  const createTicket = defineTool({
    name: 'create_ticket',
    description: 'Open a ticket and assign it.',
    input: v.strictObject({
      title: v.pipe(v.string(), v.minLength(3), v.maxLength(80)),
      priority: v.picklist(['low', 'normal', 'high']),
      assignee: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{1,31}$/)),
    }),
    handler: ({ title, priority, assignee }) => {
      const ticket: Ticket = { id: nextId++, title, priority, assignee, status: 'open' };
      tickets.set(ticket.id, ticket);
      return { id: ticket.id, status: ticket.status };
    },
  });

  const getTicket = defineTool({
    name: 'get_ticket',
    description: 'Read a ticket.',
    input: v.strictObject({ id: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
    handler: ({ id }) => ({ ...find(id) }),
  });

  const closeTicket = defineTool({
    name: 'close_ticket',
    description: 'Close a ticket. Only its assignee or an admin may close it.',
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: v.strictObject({
      id: v.pipe(v.number(), v.integer(), v.minValue(1)),
      resolution: v.picklist(['fixed', 'wontfix', 'duplicate']),
      note: v.optional(v.pipe(v.string(), v.maxLength(200))),
    }),
    // `caller` comes from the transport's authentication (a bearer token on HTTP; the user who started the server on stdio),
    // never from the request: a client that writes `_meta.caller` changes nothing.
    handler: ({ id, resolution }, { caller }) => {
      if (caller === undefined) toolError('unauthenticated', 'closing a ticket needs an authenticated caller');
      const ticket = find(id);
      if (ticket.status === 'closed') toolError('invalid_state', `ticket ${id} is already closed`);
      if (caller.id !== ticket.assignee && !admins.has(caller.id))
        toolError('forbidden', 'only the assignee or an admin may close this ticket');
      ticket.status = 'closed';
      ticket.resolution = resolution;
      return { id, status: ticket.status, resolution };
    },
  });

  return [createTicket, getTicket, closeTicket] as const;
}
