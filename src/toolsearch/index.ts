export { TOOL_SEARCH, ToolIndex } from './tool-index.js';
export type { ToolHit } from './tool-index.js';
export { estimateToolTokens } from './tokens.js';
export type { SearchableTool } from './tokens.js';
