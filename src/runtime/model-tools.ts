/**
 * The tools a model sees: a run's routes as model tools, app-only MCP tools
 * (MCP Apps) left out unless asked for.
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
}

/** The routes as tools for a model: app-only MCP tools (see {@link visibleToModel}) left out unless `includeAppOnly`. */
export function modelTools(routes: Iterable<Route>, includeAppOnly: boolean): ModelTool[] {
  return [...routes]
    .filter((r) => includeAppOnly || r.kind !== 'mcp' || visibleToModel(r.meta))
    .map((r) => ({
      name: r.name,
      ...defined({ description: r.description }),
      inputSchema: r.inputSchema,
      ...(r.kind === 'mcp' && r.meta ? { _meta: r.meta } : {}),
      ...(r.kind === 'mcp' && r.execution ? { execution: r.execution } : {}),
    }));
}

/** True unless the tool's `_meta.ui.visibility` (MCP Apps) is a list without "model": such a tool is for the host's app only. */
export function visibleToModel(meta: Readonly<Record<string, unknown>> | undefined): boolean {
  const ui = meta?.ui as { visibility?: unknown } | undefined;
  return !Array.isArray(ui?.visibility) || ui.visibility.includes('model');
}
