export { HarnessToolSet } from './tool-set.js';
export type { HarnessToolDef } from './tool-set.js';
