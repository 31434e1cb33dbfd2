/** Resolved views of an agent's assembly (A5, A6), computed statically from the store. */
import { testMcpConfig } from '../config/config-test.js';
import { agentNotices, readAgent } from './agent-data.js';
import type { ResourceStore } from './store.js';
import { type AgentSettings, RESOURCE_MANAGEMENT, type ResourceRecord } from './types.js';

/** One mount of an agent, resolved. */
export interface MountStatus {
  reference: string;
  exists: boolean;
  /** How the server is reached, when the mcp exists. */
  transport?: string;
  /** The revision of the mcp resource, when it exists. */
  revision?: number;
  /** Known problems: missing resource, static config problems. */
  problems: string[];
}

/** What a host checks before dispatching work to an agent (A6). */
export interface AgentDescription {
  reference: string;
  revision: number;
  name: string;
  role: 'manager' | 'worker';
  kind: 'native' | 'harness';
  enabled: boolean;
  capabilities: string[];
  /** Whether the agent may use the framework (resource management) tools (G1). */
  resourceManagement: boolean;
  mcps: MountStatus[];
  skills: { reference: string; exists: boolean; revision?: number }[];
  settings: AgentSettings;
  /** Keys stored before unknown keys were refused (they do nothing), one warning each with the closest known key. */
  warnings: string[];
}

/** Resolves each mcp mount of an agent record. */
export async function mountStatuses(store: ResourceStore, agent: ResourceRecord): Promise<MountStatus[]> {
  const data = readAgent(agent.data);
  return Promise.all(
    data.mcps.map(async (reference): Promise<MountStatus> => {
      const record = await store.get('mcp', reference);
      if (record === undefined) {
        return { reference, exists: false, problems: ['not registered: the mcp resource was deleted or never created'] };
      }
      const report = testMcpConfig(record.data);
      return {
        reference,
        exists: true,
        transport: report.transport,
        revision: record.revision,
        problems: report.problems.map((p) => `${p.field}: ${p.message}`),
      };
    }),
  );
}

/** Describes an agent record with its mounts resolved. */
export async function describeAgent(store: ResourceStore, agent: ResourceRecord): Promise<AgentDescription> {
  const data = readAgent(agent.data);
  const skills = await Promise.all(
    data.skills.map(async (reference) => {
      const record = await store.get('skill', reference);
      return record === undefined ? { reference, exists: false } : { reference, exists: true, revision: record.revision };
    }),
  );
  return {
    reference: agent.reference,
    revision: agent.revision,
    name: data.name,
    role: data.role,
    kind: data.kind,
    enabled: data.enabled,
    capabilities: data.capabilities,
    resourceManagement: data.role === 'manager' || data.capabilities.includes(RESOURCE_MANAGEMENT),
    mcps: await mountStatuses(store, agent),
    skills,
    settings: data.settings,
    warnings: typeof agent.data === 'object' && agent.data !== null ? agentNotices(agent.data) : [],
  };
}
