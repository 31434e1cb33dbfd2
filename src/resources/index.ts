export type { AgentData, AgentSettings, ResourceKind, ResourceRecord, ResourceRef, SkillData } from './types.js';
export { RESOURCE_KINDS, RESOURCE_MANAGEMENT } from './types.js';
export type { ResourceStore, ResourceWrite } from './store.js';
export { MemoryStore } from './memory-store.js';
export { checkExpectedRevision, expectedRevisionOf, revisionConflict } from './conflict.js';
export type { ConflictTarget } from './conflict.js';
export { isReference, parseReference } from './reference.js';
export type { ParsedReference } from './reference.js';
export type {
  ConfigProblem,
  DeclaredInput,
  McpDocument,
  McpServerConfig,
  McpTransport,
  RemoteServerConfig,
  StdioServerConfig,
} from './mcp-config.js';
export type { ConfigTestReport } from './config-test.js';
export { ResourceService } from './service.js';
export type { ResourceServiceOptions, ResourceTarget, WriteInput, WriteResult } from './service.js';
export type { AgentDescription, MountStatus } from './describe.js';
export { planImport } from './import.js';
export type { ImportEntry, ImportFormat, ImportOptions } from './import.js';
export { redactMcpDocument, redactRecord, SECRET_MASK } from './secrets.js';
export { JsoncError, parseJsonc } from './jsonc.js';
export { documentInputs, resolveServerConfig } from './variables.js';
export type { UnresolvedVariable, VariableSources } from './variables.js';
