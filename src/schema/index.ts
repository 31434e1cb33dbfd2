export type { Dialect } from './dialects.js';
export type { ArgumentIssue } from './issues.js';
export type { SchemaLoadReason, ValidationResult } from './compile.js';
export { ToolSchemaRegistry } from './registry.js';
export type { CompiledToolSchema, SchemaPart, ToolSchemaRegistryOptions } from './registry.js';
