/**
 * agt-mcp/config: reading and writing MCP configurations outside the
 * registry — importing a host's config (Claude, Cursor, VS Code …), JSONC,
 * `${input:…}`/`${env:…}` variables, references, and the redaction of a
 * config's secrets for display, and a registry server.json as a config. A host that only registers servers through
 * ResourceService needs none of it (docs/README.md, "Entry points").
 */
export type { ConfigTestReport } from './config/config-test.js';
export { planImport } from './resources/import.js';
export type { ImportEntry, ImportFormat, ImportOptions } from './resources/import.js';
export { JsoncError, parseJsonc } from './config/jsonc.js';
export type { ConfigProblem, DeclaredInput, McpTransport, RemoteServerConfig, StdioServerConfig } from './config/mcp-config.js';
export { isReference, parseReference } from './resources/reference.js';
export type { ParsedReference } from './resources/reference.js';
export { SECRET_MASK, redactMcpDocument, redactRecord } from './config/secrets.js';
export { RESOURCE_MANAGEMENT } from './resources/types.js';
export { importServerJson, isServerJson, SERVER_JSON_SCHEMAS } from './config/server-json/import.js';
export type { ServerJsonImport, ServerJsonImportOptions, ServerJsonSource } from './config/server-json/import.js';
export { documentInputs, resolveServerConfig } from './config/variables.js';
export type { UnresolvedVariable, VariableSources } from './config/variables.js';
