export type {
  AgentData,
  AgentSettings,
  AgentSkillData,
  LegacySkillData,
  ResourceKind,
  ResourceRecord,
  ResourceRef,
  SkillData,
} from './types.js';
export { RESOURCE_KINDS } from './types.js';
export { MemoryStore } from './memory-store.js';
export { ResourceService } from './service.js';
export type { ResourceServiceOptions, ResourceTarget, WriteFields, WriteInput, WriteResult } from './service.js';
export type { AgentDescription, MountStatus } from './describe.js';
export { withRevision } from './with-revision.js';
export type { RevisionChange, RevisionService, WithRevisionOptions, WithRevisionResult } from './with-revision.js';
