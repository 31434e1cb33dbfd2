export type { McpDocument, McpServerConfig } from './mcp-config.js';
