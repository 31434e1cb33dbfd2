/**
 * The input and result of a resource write (ResourceService.write), apart from
 * the service so that helpers over it (with-revision.ts) import no service.
 */
import type { McpDocument } from '../config/mcp-config.js';
import type { AgentData, AgentSkillData, LegacySkillData, ResourceRecord } from './types.js';

/** What every write has, whatever its kind. */
export interface WriteFields {
  reference: string;
  /** true: must not exist yet; false (default): must exist. */
  create?: boolean;
  add?: { mcps?: string[]; skills?: string[] };
  remove?: { mcps?: string[]; skills?: string[] };
  /** Reject the write unless the stored revision is exactly this (A4). */
  expectedRevision?: number;
}

/**
 * A write of a resource (see docs/resources.md), its `data` typed by `kind`: an {@link McpDocument} for `'mcp'`,
 * {@link AgentData} for `'agent'` (on update, the fields given), {@link SkillData} for `'skill'` (an Agent Skill's
 * files, written whole; or the older form's fields). The same checks run at run time, so data from outside the type system (a parsed file, a model's tool call)
 * may be passed `as WriteInput` and is refused with `invalid_input` naming the field when it is wrong.
 */
export type WriteInput =
  | (WriteFields & { kind: 'mcp'; data?: McpDocument })
  | (WriteFields & { kind: 'agent'; data?: AgentData })
  | (WriteFields & { kind: 'skill'; data?: AgentSkillData | Partial<LegacySkillData> });

/** The stored record and what the write noticed but allowed. */
export interface WriteResult {
  record: ResourceRecord;
  warnings: string[];
}
