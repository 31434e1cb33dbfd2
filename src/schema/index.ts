export type { ArgumentIssue } from './issues/issues.js';
export { ToolSchemaRegistry } from './registry.js';
