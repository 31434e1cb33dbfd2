export { ToolIndex } from './tool-index.js';
export type { ToolHit } from './tool-index.js';
