// Public API of agt-mcp: re-exports only, no logic.
export { AgtError, AGT_ERROR_CODES, contentText, isAgtError, readToolError, toolErrorOf } from './errors.js';
export type { AgtErrorCode, ToolError } from './errors.js';
export * from './schema/index.js';
export * from './resources/index.js';
export * from './mcp/index.js';
export * from './runtime/index.js';
export * from './framework/index.js';
export * from './harness/index.js';
