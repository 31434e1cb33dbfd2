/**
 * The same tool served two ways on stdio, for `npm run bench -- kit`: `kit`
 * (defineTool + createToolServer + serveStdio) or `bare` (the SDK v2
 * McpServer with a zod schema, on the SDK's own serveStdio). Both serve both
 * eras; the tool checks its arguments and returns the sum as structured
 * content and as text.
 * Args: kit | bare
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio as serveSdkStdio } from '@modelcontextprotocol/server/stdio';
import * as v from 'valibot';
import * as z from 'zod/v4';
import { createToolServer, defineTool, serveStdio } from '../src/authoring/index.js';

if (process.argv[2] === 'kit') {
  const add = defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    input: v.object({ a: v.number(), b: v.number() }),
    handler: ({ a, b }) => ({ sum: a + b }),
  });
  await serveStdio(createToolServer({ name: 'kit', version: '1.0.0', tools: [add] }));
} else {
  serveSdkStdio(() => {
    const server = new McpServer({ name: 'bare', version: '1.0.0' });
    server.registerTool(
      'add',
      { description: 'Adds two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
      async ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }], structuredContent: { sum: a + b } }),
    );
    return server;
  });
}
