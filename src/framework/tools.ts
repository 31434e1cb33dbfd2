/**
 * The framework (resource management) tools (G1, G2, H1, B7). Each is defined
 * once with valibot: its published inputSchema is generated from that
 * definition (2020-12) and its typed parser is the same definition, so the two
 * cannot drift. Calls enter through the shared ToolSchemaRegistry like every
 * tool, then the valibot parse, then the resource service's domain rules.
 */
import * as v from 'valibot';
import type { McpProber } from '../mcp/probe/prober.js';
import type { ResourceService } from '../resources/service.js';
import { redactRecord } from '../config/secrets.js';
import { REFERENCE_PATTERN } from '../resources/reference.js';
import { RESOURCE_KINDS, type ResourceKind } from '../resources/types.js';
import type { ArgumentIssue } from '../schema/issues/issues.js';
import { publishValibot, shapeArguments } from '../schema/valibot/valibot.js';
import { defined } from '../json.js';

/** What a framework tool's handler gets besides its input. */
export interface FrameworkContext {
  service: ResourceService;
  prober: McpProber;
  /** The calling agent's reference. */
  agent: string;
  /** The run's tool search (tool_search), when it is on. */
  toolSearch?: ToolSearchContext;
  /** Aborts with the batch or the run (a read of a server's skill is cancelled with it). */
  signal?: AbortSignal;
}

/** What `tool_search` finds: a tool the model may load, in one line. */
export interface FoundTool {
  name: string;
  description: string;
  mount: string;
}

/** The run's side of tool_search: search its deferred tools, and load what was found at the boundary. */
export interface ToolSearchContext {
  search(query: string, limit: number): FoundTool[];
  /** Loads `names` at the end of the current batch. */
  load(names: readonly string[]): void;
}

/** A framework tool's outcome: the JSON result, and the resource it changed (for refresh, F1). */
export interface FrameworkOutcome {
  result: unknown;
  changed?: { kind: ResourceKind; reference: string };
}

/** One framework tool. */
export interface FrameworkTool {
  name: string;
  description: string;
  /** Generated from its valibot input by defineTool; never hand-written. */
  inputSchema: Record<string, unknown>;
  /** Shapes arguments stage 1 already validated against inputSchema (the same definition; checks nothing twice). */
  parse(args: unknown): { ok: true; value: unknown } | { ok: false; issues: ArgumentIssue[] };
  run(input: unknown, context: FrameworkContext): Promise<FrameworkOutcome>;
}

// The resource grammar comes from resources, not retyped here.
const kind = v.picklist(RESOURCE_KINDS);
const reference = v.pipe(v.string(), v.regex(REFERENCE_PATTERN));
const revision = v.pipe(v.number(), v.integer(), v.minValue(1));
const refList = v.array(reference);
const mountChanges = v.strictObject({ mcps: v.optional(refList), skills: v.optional(refList) });

/** Defines a framework tool from one valibot object schema: published as the kit publishes (schema/valibot/valibot.ts), run inside a NativeRun. */
export function defineFrameworkTool<S extends v.GenericSchema>(
  name: string,
  description: string,
  input: S,
  run: (input: v.InferOutput<S>, context: FrameworkContext) => Promise<FrameworkOutcome>,
): FrameworkTool {
  const tool = { input, inputSchema: publishValibot(name, 'input', input) };
  return {
    name,
    description,
    inputSchema: tool.inputSchema,
    parse: (args) => shapeArguments(tool, args),
    run: (value, context) => run(value as v.InferOutput<S>, context),
  };
}

const summary = (record: { kind: string; reference: string; revision: number }) => ({
  kind: record.kind,
  reference: record.reference,
  revision: record.revision,
});

/** All framework tools, in the order they are listed to a model. */
export const FRAMEWORK_TOOLS: readonly FrameworkTool[] = [
  defineFrameworkTool(
    'resource_write',
    'Create (create: true) or update a resource: an mcp server config ({ mcpServers: { NAME: {...} } }), an agent or a skill. For agents, data.mcps replaces the mount list; add/remove change single mounts. Registering stores configuration only; it installs and enables nothing.',
    v.strictObject({
      kind,
      reference,
      create: v.optional(v.boolean()),
      data: v.optional(v.unknown()),
      add: v.optional(mountChanges),
      remove: v.optional(mountChanges),
      expected_revision: v.optional(revision),
    }),
    async ({ expected_revision, ...input }, { service }) => {
      // Models see snake_case; the TypeScript API is camelCase: mapped here, at the boundary.
      const { record, warnings } = await service.write({ ...input, ...defined({ expectedRevision: expected_revision }) } as Parameters<
        ResourceService['write']
      >[0]);
      return { result: { ...summary(record), warnings }, changed: { kind: record.kind, reference: record.reference } };
    },
  ),
  defineFrameworkTool(
    'resource_read',
    'Read a resource with its revision (pass it back as expected_revision to avoid overwriting newer changes). Env and header values of mcp configs read as "***"; writing "***" back keeps the stored value.',
    v.strictObject({ kind, reference }),
    async (input, { service }) => ({ result: redactRecord(await service.read(input)) }),
  ),
  defineFrameworkTool(
    'resource_test',
    'Check an mcp config statically (cwd, command, url), with a fix for each problem. Starts nothing and opens no connection.',
    v.strictObject({ kind: v.literal('mcp'), reference }),
    async (input, { service }) => ({ result: await service.test(input) }),
  ),
  defineFrameworkTool(
    'resource_delete',
    'Delete a resource. Agents that mount a deleted mcp show the mount as missing.',
    v.strictObject({ kind, reference, expected_revision: v.optional(revision) }),
    async ({ expected_revision, ...input }, { service }) => {
      await service.delete({ ...input, ...defined({ expectedRevision: expected_revision }) });
      return {
        result: { deleted: true, kind: input.kind, reference: input.reference },
        changed: { kind: input.kind, reference: input.reference },
      };
    },
  ),
  defineFrameworkTool(
    'mcp_probe',
    'Start or connect a registered MCP server exactly as a run would, list its tools and check their schemas, then close it. This executes the configured command on the host.',
    v.strictObject({ reference }),
    async (input, { prober }) => ({ result: await prober.probe(input.reference) }),
  ),
  defineFrameworkTool(
    'agent_mcp_list',
    "List an agent's mounted MCP servers, each resolved (exists, transport, problems). Defaults to the calling agent.",
    v.strictObject({ agent: v.optional(reference) }),
    async (input, { service, agent }) => ({ result: await service.agentMcpList(input.agent ?? agent) }),
  ),
];

/** The names of the framework tools. */
export const FRAMEWORK_TOOL_NAMES: readonly string[] = FRAMEWORK_TOOLS.map((t) => t.name);

/** The framework tools an agent gets (G1, G2): none without resource management; harness agents get no probe. */
export function frameworkToolsFor(agent: { role?: string; kind?: string; capabilities?: readonly string[] }): readonly FrameworkTool[] {
  const manages = agent.role === 'manager' || (agent.capabilities ?? []).includes('resource_management');
  if (!manages) return [];
  return agent.kind === 'harness' ? FRAMEWORK_TOOLS.filter((t) => t.name !== 'mcp_probe') : FRAMEWORK_TOOLS;
}
