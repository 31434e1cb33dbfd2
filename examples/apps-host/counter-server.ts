/**
 * The counter: an MCP server with an interface (MCP Apps), on stdio:
 * `node --import tsx counter-server.ts`. `show_counter` shows the count in
 * its app (counter-app.html, served as its `ui://` resource); the app's button
 * calls `increment`, which a host may gate (examples/apps-host/host.ts asks a
 * person to approve it).
 */
import fs from 'node:fs';
import * as v from 'valibot';
import { createToolServer, defineTool, serveStdio } from 'agt-mcp/authoring';

const html = fs.readFileSync(new URL('./counter-app.html', import.meta.url), 'utf8');
let count = 0;

const showCounter = defineTool({
  name: 'show_counter',
  description: 'Show the counter in an interface with a button that increments it.',
  annotations: { readOnlyHint: true },
  input: v.strictObject({}),
  // No network for the app: no csp domains declared, so its frame may reach nothing.
  app: { html },
  handler: () => ({ count }),
});

const increment = defineTool({
  name: 'increment',
  description: 'Add to the counter.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: v.strictObject({ by: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)) }),
  handler: ({ by }) => {
    count += by;
    return { count };
  },
});

await serveStdio(createToolServer({ name: 'counter', version: '1.0.0', tools: [showCounter, increment] }));
