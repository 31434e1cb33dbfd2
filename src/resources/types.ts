/** The resource model: kinds, records and the data shape of each kind. */

/** Every kind, for validation and listings. */
export const RESOURCE_KINDS = ['mcp', 'agent', 'skill'] as const;

/** What a resource is (one of {@link RESOURCE_KINDS}). */
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** Names one resource: its kind and its reference `category/name`. */
export interface ResourceRef {
  kind: ResourceKind;
  reference: string;
}

/** A stored resource. `revision` starts at 1 and increases on every write. */
export interface ResourceRecord<D = unknown> {
  kind: ResourceKind;
  reference: string;
  revision: number;
  data: D;
  /** ISO 8601 timestamps. */
  createdAt: string;
  updatedAt: string;
  /**
   * Set by `list` for a stored row that cannot be read (corrupt or hand-edited):
   * its `data` is null; the other rows are listed as usual. `get` of it rejects.
   */
  problem?: { code: 'corrupt_record'; message: string };
}

/** Run settings of an agent; they take part in a run's resume fingerprint (F7). */
export interface AgentSettings {
  model?: string;
  provider?: string;
  basePrompt?: string;
  /** Built-in permissions, as the host defines them (JSON). */
  permissions?: unknown;
  /** Delegation configuration, as the host defines it (JSON). */
  delegation?: unknown;
}

/** An agent resource's data; on update, omitted top-level fields are kept. */
export interface AgentData {
  /** Display name. */
  name?: string;
  role?: 'manager' | 'worker';
  kind?: 'native' | 'harness';
  /** Whether the agent's binding is enabled. */
  enabled?: boolean;
  /** Installed capabilities, e.g. 'resource_management'. */
  capabilities?: string[];
  /** Mounted MCP servers: references of mcp resources (A1). */
  mcps?: string[];
  /** Mounted skills: references of skill resources. */
  skills?: string[];
  settings?: AgentSettings;
}

/**
 * A skill resource's data (K1): an Agent Skill, `{ files: { 'SKILL.md': '…', 'references/GUIDE.md': '…' } }` — the
 * SKILL.md's frontmatter gives its `name` and `description` — or the older form `{ description, instructions }`, read
 * as a SKILL.md with no other files.
 */
export type SkillData = AgentSkillData | LegacySkillData;

/** An Agent Skill: its files by path inside the skill (text), SKILL.md among them. */
export interface AgentSkillData {
  files: { 'SKILL.md': string; [path: string]: string };
}

/** The older skill form: a description and instructions (a SKILL.md body). */
export interface LegacySkillData {
  /** One line on what the skill is for. */
  description: string;
  /** The instructions given to an agent that mounts the skill. */
  instructions?: string;
}

/** The capability that grants the framework (resource management) tools (G1). */
export const RESOURCE_MANAGEMENT = 'resource_management';
