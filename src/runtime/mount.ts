/**
 * Loading one mounted server for a run (B1): connect through connectMcp, list
 * its tools, compile each tool's inputSchema and outputSchema, and build a
 * route per tool. A tool whose schemas do not load is left out with a notice:
 * it could not be validated, so it cannot be called. Relisting (after the
 * server announced a change) rebuilds the routes on the live connection.
 */
import { readToolUi } from '../mcp/apps/ui-meta.js';
import { AgtError, isAgtError } from '../errors.js';
import type { ConnectOptions } from '../mcp/connect.js';
import { connectMcp } from '../mcp/connect.js';
import type { McpConnection } from '../mcp/connection.js';
import type { RawTool } from '../mcp/requests/lists.js';
import type { McpSkillListing } from '../mcp/connection-types.js';
import { compileToolSchemas } from '../mcp/probe/tool-schemas.js';
import type { McpDocument } from '../config/mcp-config.js';
import type { ResourceService } from '../resources/service.js';
import { canonicalHash } from '../schema/canonical.js';
import { declaredNames } from '../schema/issues/issues.js';
import type { ToolSchemaRegistry } from '../schema/registry.js';
import { toolAlias } from './assembly/aliases.js';
import { listMountSkills } from '../skills/load.js';
import type { LoadedMount, McpRoute } from './assembly/snapshot.js';
import { defined } from '../json.js';
import { MAX_TOOL_NAME_LENGTH } from '../bounds.js';
import { outsideText } from '../outside-text.js';
import { serverWords } from '../mcp/server-words.js';

/** What loading a mount needs. */
export interface MountContext {
  service: ResourceService;
  registry: ToolSchemaRegistry;
  /** The connect options of one mount (timeouts, handlers, auth). */
  connectOptions(reference: string): ConnectOptions;
  /** Where connections come from: a pool's lease; default: a connection of the run's own, closed at release. */
  open?(reference: string, record: { revision: number; data: unknown }, options: ConnectOptions): Promise<OpenedConnection>;
  /** Called with each new connection, before its tools are listed; returns the unsubscribe. */
  watch?(reference: string, connection: McpConnection): () => void;
}

/** A mount's connection as opened: released by the run when it gives the mount back; `listTools` may be a shared, cached list. */
export interface OpenedConnection {
  connection: McpConnection;
  release(): Promise<void>;
  listTools?(): Promise<RawTool[]>;
  /** The server's skills: the pool's list shared by every lease, or the connection's own. */
  listSkills?(): Promise<McpSkillListing>;
}

// A connection of the run's own: released by closing it.
async function ownConnection(_reference: string, record: { data: unknown }, options: ConnectOptions) {
  const connection = await connectMcp(record.data as McpDocument, options);
  return { connection, release: () => connection.close() };
}

/** Loads one mount as stored now: connect, list, compile, route. Closes the connection if anything fails. */
export async function loadMount(reference: string, ctx: MountContext, notices: string[]): Promise<LoadedMount> {
  let record;
  try {
    record = await ctx.service.read({ kind: 'mcp', reference });
  } catch (error) {
    throw mountFailed(reference, error);
  }
  return openMount(reference, record, ctx, notices);
}

/** Opens a mount of a pooled run again after its server died: the same revision, so the same pool key (the pool restarts it). */
export function reopenMount(dead: LoadedMount, ctx: MountContext, notices: string[]): Promise<LoadedMount> {
  return openMount(dead.reference, { revision: dead.revision, data: dead.data }, ctx, notices);
}

async function openMount(
  reference: string,
  record: { revision: number; data: unknown },
  ctx: MountContext,
  notices: string[],
): Promise<LoadedMount> {
  let opened: OpenedConnection | undefined;
  let unwatch: (() => void) | undefined;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    unwatch?.();
    await opened?.release();
  };
  try {
    opened = await (ctx.open ?? ownConnection)(reference, record, {
      registry: ctx.registry,
      ...ctx.connectOptions(reference),
      revision: record.revision, // the era verdict of this revision is used (E2)
    });
    const connection = opened.connection;
    unwatch = ctx.watch?.(reference, connection);
    const listTools = opened.listTools ?? (() => connection.listTools());
    const listSkills = opened.listSkills ?? (() => connection.listSkills());
    // K2: the skills' names and descriptions are listed beside the tools; no file is read.
    const [tools, skills] = await Promise.all([listTools(), listMountSkills(reference, connection, listSkills, notices)]);
    return {
      reference,
      revision: record.revision,
      data: record.data,
      connection,
      listTools,
      listSkills,
      release,
      ...routesOf(reference, tools, connection, ctx.registry, notices),
      ...(skills ? { skills } : {}),
    };
  } catch (error) {
    await release();
    throw mountFailed(reference, error);
  }
}

/** Lists a loaded mount's tools again on its live connection (the server announced a change); a pooled list is listed once per connection. */
export async function relistMount(live: LoadedMount, registry: ToolSchemaRegistry, notices: string[]): Promise<LoadedMount> {
  try {
    // K4: a changed skill list reaches the next batch like a changed tool list.
    const [raw, skills] = await Promise.all([live.listTools(), listMountSkills(live.reference, live.connection, live.listSkills, notices)]);
    const { skills: _old, ...rest } = live;
    return { ...rest, ...routesOf(live.reference, raw, live.connection, registry, notices), ...(skills ? { skills } : {}) };
  } catch (error) {
    throw mountFailed(live.reference, error);
  }
}

// A server's tool name in a notice (a host logs notices): one line, escaped, bounded (outsideText).
const toolWords = (name: string) => outsideText(name, { max: MAX_TOOL_NAME_LENGTH });

function routesOf(
  reference: string,
  raw: RawTool[],
  connection: McpConnection,
  registry: ToolSchemaRegistry,
  notices: string[],
): Pick<LoadedMount, 'routes' | 'tools'> {
  const routes: McpRoute[] = [];
  const tools: LoadedMount['tools'] = [];
  const seen = new Set<string>();
  for (const tool of raw) {
    if (seen.has(tool.name)) {
      notices.push(`mount "${reference}": tool "${toolWords(tool.name)}" is listed twice; only the first is used`);
      continue;
    }
    seen.add(tool.name);
    const ui = readToolUi(tool._meta); // MCP Apps: a malformed declaration fails its tool only (never guessed: U1)
    if (!ui.ok) {
      notices.push(`mount "${reference}": tool "${toolWords(tool.name)}" is unavailable: its ${ui.field} ${ui.message}`);
      continue;
    }
    const schemas = compileToolSchemas(tool, registry);
    if (!schemas.ok) {
      notices.push(`mount "${reference}": tool "${toolWords(tool.name)}" is unavailable: ${serverWords(schemas.error.message)}`);
      continue;
    }
    routes.push({
      kind: 'mcp',
      name: toolAlias(reference, tool.name),
      mount: reference,
      remoteTool: tool.name,
      connection,
      validator: schemas.input,
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(schemas.output ? { outputValidator: schemas.output, outputNames: declaredNames(tool.outputSchema) } : {}),
      ...(tool.annotations ? { annotations: Object.freeze({ ...tool.annotations }) } : {}),
      ...(tool._meta ? { meta: Object.freeze({ ...tool._meta }) } : {}),
      ...(ui.ui ? { ui: Object.freeze(ui.ui) } : {}),
      ...(tool.execution ? { execution: Object.freeze({ ...tool.execution }) } : {}),
      ...defined({ description: tool.description }),
    });
    // B2: what a call's validation and permission depend on takes part in the fingerprint.
    tools.push({
      name: tool.name,
      schema: schemas.input.hash,
      ...(schemas.output ? { output: schemas.output.hash } : {}),
      ...(tool.annotations ? { annotations: canonicalHash(tool.annotations) } : {}),
      ...(ui.ui ? { ui: canonicalHash(ui.ui) } : {}), // who may call it (U1, U3) takes part too
    });
  }
  return { routes, tools };
}

function mountFailed(reference: string, cause: unknown): AgtError {
  if (isAgtError(cause)) {
    return new AgtError(cause.code, `mount "${reference}" failed to load: ${cause.message}`, {
      details: { ...cause.details, mount: reference },
      cause,
    });
  }
  return new AgtError('connection_closed', `mount "${reference}" failed to load`, { details: { mount: reference }, cause });
}
