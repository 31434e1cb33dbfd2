export { ToolIndex } from './tool-index.js';
export type { ToolHit } from './tool-index.js';
export { estimateToolTokens } from './tokens.js';
export type { SearchableTool } from './tokens.js';
export { TOOL_SEARCH } from './search-tool.js';
