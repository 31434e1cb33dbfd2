export { FRAMEWORK_TOOL_NAMES, FRAMEWORK_TOOLS, frameworkToolsFor } from './tools.js';
export type { FrameworkContext, FrameworkOutcome, FrameworkTool } from './tools.js';
