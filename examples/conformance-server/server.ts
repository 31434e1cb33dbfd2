/**
 * The conformance server over Streamable HTTP on loopback (DNS-rebinding
 * protection on): `node --import tsx server.ts [port]`; prints the endpoint.
 * `npm run conformance:server` runs the official server scenarios against it.
 */
import { createToolServer, serveHttp } from 'agt-mcp/authoring';
import { conformanceTools } from './tools.js';

const service = await serveHttp(() => createToolServer({ name: 'agt-conformance', version: '1.0.0', tools: conformanceTools() }), {
  port: Number(process.argv[2] ?? 0),
});
console.log(service.url);
process.once('SIGTERM', () => void service.close().then(() => process.exit(0)));
process.once('SIGINT', () => void service.close().then(() => process.exit(0)));
