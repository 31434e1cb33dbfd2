/**
 * The tools a model sees: a run's routes as model tools, app-only MCP tools
 * (MCP Apps) left out unless asked for (U1); with apps on, a tool with an
 * interface says so (`app`), so the host knows what it will render.
 */
import { defined } from '../json.js';
import type { Route } from './assembly/snapshot.js';

/** A tool as the model sees it. */
export interface ModelTool {
  name: string;
  description?: string;
  inputSchema: object;
  /** An MCP tool's `_meta` as its server declared it (MCP Apps: `ui.resourceUri`, `ui.visibility`). */
  _meta?: Readonly<Record<string, unknown>>;
  /** An MCP tool's `execution` as declared. */
  execution?: Readonly<Record<string, unknown>>;
  /** With tool search on and `tools({ includeDeferred: true })`: a tool the model is not shown yet (provider-native deferral). */
  deferred?: true;
  /** MCP Apps (a run with `apps: true`): the tool has an interface, rendered by the host from this `ui://` resource (run.readApp). */
  app?: { resourceUri: string };
  /** MCP Apps (a run with `apps: true`): an MCP tool's mount and its server's own name (what its app calls it by). */
  mount?: string;
  remoteTool?: string;
}

/** The routes as tools for a model: app-only MCP tools (see {@link visibleToModel}) left out unless `includeAppOnly`; `apps`: interfaces marked. */
export function modelTools(routes: Iterable<Route>, includeAppOnly: boolean, apps = false): ModelTool[] {
  return [...routes]
    .filter((r) => includeAppOnly || visibleToModel(r))
    .map((r) => ({
      name: r.name,
      ...defined({ description: r.description }),
      inputSchema: r.inputSchema,
      ...(r.kind === 'mcp' && r.meta ? { _meta: r.meta } : {}),
      ...(r.kind === 'mcp' && r.execution ? { execution: r.execution } : {}),
      ...(apps && r.kind === 'mcp' && r.ui?.resourceUri !== undefined ? { app: { resourceUri: r.ui.resourceUri } } : {}),
      ...(apps && r.kind === 'mcp' ? { mount: r.mount, remoteTool: r.remoteTool } : {}),
    }));
}

/** True unless the route is an MCP tool whose `_meta.ui.visibility` (MCP Apps) leaves out "model": such a tool is for its app only. */
export function visibleToModel(route: Route): boolean {
  return route.kind !== 'mcp' || route.ui === undefined || route.ui.visibility.includes('model');
}

/** True when an app may call the route: an MCP tool whose visibility holds "app" (the default). */
export function visibleToApp(route: Route): boolean {
  return route.kind === 'mcp' && (route.ui === undefined || route.ui.visibility.includes('app'));
}
