/**
 * agt-mcp: the core entry point, re-exports only. Each concept's folder index
 * lists exactly its public names, and this file re-exports them whole, so
 * every name is listed once; test/package/exports.test.ts pins the runtime
 * names of every entry point (adding one is a decision).
 */
export { AGT_ERROR_CODES, AgtError, isAgtError } from './errors.js';
export type { AgtErrorCode, ToolError } from './errors.js';
export * from './schema/index.js';
export * from './resources/index.js';
export * from './mcp/index.js';
export * from './runtime/index.js';
export * from './framework/index.js';
export * from './harness/index.js';
export * from './pool/index.js';
export * from './toolsearch/index.js';
