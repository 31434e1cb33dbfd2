/** The tickets MCP server on stdio: `node --import tsx server.ts` (see README.md). */
import { createToolServer, serveStdio } from 'agt-mcp/authoring';
import { createTicketTools } from './tools.js';

await serveStdio(createToolServer({ name: 'tickets', version: '1.0.0', tools: createTicketTools() }));
