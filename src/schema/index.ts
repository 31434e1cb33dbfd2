export type { ArgumentIssue } from './issues.js';
export { ToolSchemaRegistry } from './registry.js';
