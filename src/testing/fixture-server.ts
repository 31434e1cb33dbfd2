/** The fixture MCP server on stdio (`fixtureServer()` starts it): run as a program, it serves fixtureTools(). */
import { createToolServer, serveStdio } from '../authoring/serve/server.js';
import { fixtureTools } from './fixture-tools.js';

await serveStdio(createToolServer({ name: 'agt-fixture', version: '1.0.0', tools: fixtureTools() }));
