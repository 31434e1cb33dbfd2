/**
 * The tickets MCP server over Streamable HTTP with bearer tokens:
 * `TICKETS_TOKENS="t0ken-a=alice,t0ken-b=bob" node --import tsx http-server.ts`.
 * Each token names its user (the caller of close_ticket); requests without a
 * known token get 401. Prints the endpoint URL.
 */
import { createToolServer, serveHttp } from 'agt-mcp/authoring';
import { createTicketTools } from './tools.js';

const users = new Map(
  (process.env.TICKETS_TOKENS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=') as [string, string]),
);
const tools = createTicketTools(); // one store for every session
const service = await serveHttp(() => createToolServer({ name: 'tickets', version: '1.0.0', tools }), {
  port: Number(process.env.PORT ?? 0),
  auth: {
    verify: (token) => {
      const user = users.get(token);
      return user === undefined ? undefined : { token, clientId: user, scopes: ['tickets'] };
    },
  },
});
console.log(service.url);
process.once('SIGTERM', () => void service.close());
