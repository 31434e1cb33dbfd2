/**
 * The run snapshot (B1, B2, F5): mounts with their revisions, one route per
 * tool the agent may call, the compiled validators, and the fingerprint. It is
 * built once per run (and per refresh) and never changes afterwards.
 */
import type { ToolUi } from '../../mcp/apps/ui-meta.js';
import { AgtError } from '../../errors.js';
import type { FrameworkOutcome, FrameworkTool } from '../../framework/tools.js';
import type { McpConnection } from '../../mcp/connection.js';
import type { RawTool, ToolAnnotations } from '../../mcp/requests/lists.js';
import { canonicalHash } from '../../schema/canonical.js';
import { documentSandboxHash } from '../../mcp/process/sandbox/fingerprint.js';
import type { CompiledToolSchema, ToolSchemaRegistry } from '../../schema/registry.js';
import { MODEL_TOOL_NAME } from './aliases.js';
import { RESULT_READ } from '../../tool-names.js';
import type { DelegateTool } from '../types.js';
import { defined } from '../../json.js';
import type { McpSkill, McpSkillListing } from '../../mcp/connection-types.js';
import { type RegistrySkill, SkillSet } from '../../skills/skill-set.js';
import { skillReadTool } from '../../skills/skill-read.js';

/** What hosts and models see of a snapshot. */
export interface RunSnapshot {
  readonly fingerprint: string;
  readonly mounts: readonly { reference: string; revision: number }[];
  readonly aliases: readonly string[];
}

interface RouteBase {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  validator: CompiledToolSchema;
}
/** A mounted server's tool. */
export interface McpRoute extends RouteBase {
  kind: 'mcp';
  mount: string;
  remoteTool: string;
  connection: McpConnection;
  /** Present when the tool declares an outputSchema: results are checked against it. */
  outputValidator?: CompiledToolSchema;
  /** The property names the outputSchema declares (issue paths show only these: the rest is the server's data). */
  outputNames?: ReadonlySet<string>;
  /** The server's behaviour hints, frozen (policies may use them; they are untrusted). */
  annotations?: Readonly<ToolAnnotations>;
  /** The tool's `_meta` and `execution` as declared (MCP Apps UIs read `_meta.ui`). */
  meta?: Readonly<Record<string, unknown>>;
  execution?: Readonly<Record<string, unknown>>;
  /** MCP Apps: the tool's interface and who may call it, read from `_meta.ui` (absent: no interface, callable by both). */
  ui?: Readonly<ToolUi>;
}
/** A framework tool. */
export interface FrameworkRoute extends RouteBase {
  kind: 'framework';
  tool: FrameworkTool;
}
/** A host delegate tool. */
export interface DelegateRoute extends RouteBase {
  kind: 'delegate';
  tool: DelegateTool;
}
/** Where a tool name leads. */
export type Route = McpRoute | FrameworkRoute | DelegateRoute;

/** One mounted server, loaded. */
export interface LoadedMount {
  reference: string;
  revision: number;
  /** The stored document of that revision: a pooled mount whose server died is leased again from it (same key). */
  data: unknown;
  connection: McpConnection;
  /** Lists the tools: the pool's list shared by every lease of the connection, or the connection's own. */
  listTools(): Promise<RawTool[]>;
  /** Lists the skills: the pool's shared list, or the connection's own. */
  listSkills(): Promise<McpSkillListing>;
  /** Gives the connection back: closes it (own connection) or returns the pool lease; also unsubscribes the run. Shared by relisted copies. */
  release(): Promise<void>;
  routes: McpRoute[];
  /** Canonical hashes of its tools' schemas and annotations, for the fingerprint. */
  tools: { name: string; schema: string; output?: string; annotations?: string; ui?: string }[];
  /** The skills its server serves (the MCP Skills extension), as listed. */
  skills?: readonly McpSkill[];
}

/** The frozen state of a run. */
export interface SnapshotState extends RunSnapshot {
  readonly settingsHash: string;
  readonly mountsHash: string;
  readonly routes: ReadonlyMap<string, Route>;
  readonly loaded: ReadonlyMap<string, LoadedMount>;
  readonly notices: readonly string[];
  /** The run settings the fingerprint was computed from (pinned for the run, F7). */
  readonly settings: unknown;
  /** The agent's access the fingerprint was computed from. */
  readonly access: AgentAccess;
  /** The agent's mounted skills (a change of one triggers a refresh, F1). */
  readonly skills: readonly string[];
  /** Those skills as loaded (kept as they are by a relist, F8). */
  readonly registrySkills: readonly RegistrySkill[];
  /** The run's skills: the registry skills and the mounts' (K2, K3). */
  readonly skillSet: SkillSet;
  /** The framework tools the agent was given (kept for a relist-only refresh). */
  readonly framework: readonly FrameworkTool[];
}

/** The fixed schema of every delegate tool (B7). */
export const DELEGATE_INPUT_SCHEMA = Object.freeze({
  type: 'object',
  properties: {
    agent: { type: 'string', description: 'The agent to hand the task to (one of the allowed targets).' },
    task: { type: 'string', minLength: 1, description: 'What the agent should do.' },
    context: { type: 'string', description: 'Anything the agent needs to know.' },
  },
  required: ['agent', 'task'],
  additionalProperties: false,
}) as Record<string, unknown>;

/** What an agent may use, as its record says at start or refresh (framework tools follow from it). */
export interface AgentAccess {
  role: string | null;
  kind: string | null;
  capabilities: readonly string[];
}

/** The access part of an agent's data. */
export function accessOf(agent: { role?: string; kind?: string; capabilities?: readonly string[] }): AgentAccess {
  return Object.freeze({
    role: agent.role ?? null,
    kind: agent.kind ?? null,
    capabilities: Object.freeze([...(agent.capabilities ?? [])].sort()),
  });
}

/** Inputs of {@link assembleSnapshot}. */
export interface AssembleInput {
  settings: unknown;
  /** The agent's role, kind and capabilities: what it may use (G1), part of the fingerprint (B2). */
  access: AgentAccess;
  skills: readonly string[];
  registrySkills: readonly RegistrySkill[];
  loaded: Map<string, LoadedMount>;
  framework: readonly FrameworkTool[];
  delegates: readonly DelegateTool[];
  registry: ToolSchemaRegistry;
  notices: string[];
}

/** The route of a framework tool (its validator compiled from its published schema). */
export function frameworkRoute(tool: FrameworkTool, registry: ToolSchemaRegistry): FrameworkRoute {
  return {
    kind: 'framework',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    tool,
    validator: registry.compile(tool.inputSchema, { tool: tool.name }),
  };
}

/** Freezes loaded mounts, framework and delegate tools into a snapshot with its fingerprint (B2). */
export function assembleSnapshot(input: AssembleInput): SnapshotState {
  const routes = new Map<string, Route>();
  const add = (route: Route) => {
    if (routes.has(route.name))
      throw new AgtError('invalid_input', `two tools would be visible as "${route.name}"; rename the delegate tool`, {
        details: { tool: route.name },
      });
    routes.set(route.name, route);
  };
  for (const tool of input.framework) add(frameworkRoute(tool, input.registry));
  for (const tool of input.delegates) {
    if (!MODEL_TOOL_NAME.test(tool.name))
      throw new AgtError('invalid_input', `delegate tool name "${tool.name}" must match ${MODEL_TOOL_NAME}`);
    if (tool.name === RESULT_READ)
      // B8: the run's own tool, offered once a result is cut
      throw new AgtError('invalid_input', `"${RESULT_READ}" is the run's own tool (the result budget); rename the delegate tool`, {
        details: { tool: tool.name },
      });
    add({
      kind: 'delegate',
      name: tool.name,
      inputSchema: DELEGATE_INPUT_SCHEMA,
      tool,
      validator: input.registry.compile(DELEGATE_INPUT_SCHEMA, { tool: tool.name }),
      ...defined({ description: tool.description }),
    });
  }
  const mounts = [...input.loaded.values()].sort((a, b) => (a.reference < b.reference ? -1 : 1));
  for (const mount of mounts) for (const route of mount.routes) add(route);
  const skillSet = new SkillSet(
    input.registrySkills,
    mounts.flatMap((m) => (m.skills ? [{ mount: m.reference, connection: m.connection, skills: m.skills }] : [])),
  );
  if (skillSet.size > 0) add(frameworkRoute(skillReadTool(skillSet), input.registry)); // K3: offered when the run has skills
  const settingsHash = canonicalHash({
    settings: input.settings ?? {},
    access: input.access, // a promoted or swapped agent does not resume as the run it was (B2)
    framework: input.framework.map((t) => t.name).sort(),
    delegates: input.delegates.map((d) => ({ name: d.name, targets: [...d.targets].sort() })).sort((a, b) => (a.name < b.name ? -1 : 1)),
  });
  const mountHashes = mounts.map((m) => {
    const tools = [...m.tools].sort((a, b) => (a.name < b.name ? -1 : 1));
    const sandbox = documentSandboxHash(m.data); // P5: a sandboxed mount's rules take part; others hash as they always did
    return sandbox === undefined ? { reference: m.reference, tools } : { reference: m.reference, tools, sandbox };
  });
  // K4: the skills' digests take part; a run without skills keeps the fingerprint it always had.
  const mountsHash = canonicalHash(skillSet.hash === undefined ? mountHashes : { mounts: mountHashes, skills: skillSet.hash });
  return Object.freeze({
    fingerprint: canonicalHash({ settingsHash, mountsHash }),
    settingsHash,
    mountsHash,
    mounts: Object.freeze(mounts.map((m) => Object.freeze({ reference: m.reference, revision: m.revision }))),
    aliases: Object.freeze([...routes.keys()]),
    routes,
    loaded: input.loaded,
    notices: Object.freeze([...input.notices]),
    settings: input.settings,
    access: input.access,
    skills: Object.freeze([...input.skills]),
    registrySkills: input.registrySkills,
    skillSet,
    framework: input.framework,
  });
}

const views = new WeakMap<SnapshotState, RunSnapshot>();
/** The snapshot as hosts see it, frozen (one view per state). */
export function snapshotView(state: SnapshotState): RunSnapshot {
  let v = views.get(state);
  if (v === undefined)
    views.set(state, (v = Object.freeze({ fingerprint: state.fingerprint, mounts: state.mounts, aliases: state.aliases })));
  return v;
}

/** F1: a successful change of this agent, or of an mcp/skill it currently mounts. */
export function affectsSnapshot(outcome: FrameworkOutcome, agent: string, snapshot: SnapshotState): boolean {
  const changed = outcome.changed;
  if (changed === undefined) return false;
  if (changed.kind === 'agent') return changed.reference === agent;
  if (changed.kind === 'mcp') return snapshot.loaded.has(changed.reference);
  return snapshot.skills.includes(changed.reference);
}
