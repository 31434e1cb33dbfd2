/**
 * The conformance server over Streamable HTTP on loopback (DNS-rebinding
 * protection on): `node --import tsx server.ts [port] [--modern-only]`;
 * prints the endpoint. `--modern-only` serves the 2026-07-28 era alone.
 * `npm run conformance:server` runs the official server scenarios against it.
 * It serves the skills of ./skills (the MCP Skills extension) for the
 * `sep-2640-skills-*` scenarios.
 */
import { fileURLToPath } from 'node:url';
import { createToolServer, serveHttp } from 'agt-mcp/authoring';
import { conformanceTaskTools } from './task-tools.js';
import { conformanceTools } from './tools.js';

const args = process.argv.slice(2);
const port = Number(args.find((a) => /^\d+$/.test(a)) ?? 0);
const service = await serveHttp(
  () =>
    createToolServer({
      name: 'agt-conformance',
      version: '1.0.0',
      tools: [...conformanceTools(), ...conformanceTaskTools()],
      skills: fileURLToPath(new URL('./skills', import.meta.url)),
      // The tasks-* scenarios test the task surface itself: every call of a task tool becomes a task here, however
      // short (the default grace answers a handler that ends within 50 ms as a plain call, which the spec allows).
      tasks: { graceMs: 0 },
    }),
  {
    port,
    ...(args.includes('--modern-only') ? { eras: ['modern'] as const } : {}),
  },
);
console.log(service.url);
process.once('SIGTERM', () => void service.close().then(() => process.exit(0)));
process.once('SIGINT', () => void service.close().then(() => process.exit(0)));
