/** The public names of src/framework (what src/index.ts re-exports). */
export { FRAMEWORK_TOOL_NAMES } from './tools.js';
