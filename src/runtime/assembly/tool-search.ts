/**
 * A run's tool search (issue 27): with many mounted tools, the model is shown
 * the pinned ones, its framework and delegate tools, `tool_search` and what
 * it has loaded; everything else is deferred. What a search finds is loaded at
 * the end of the batch (never mid-batch, F2), stays loaded for the run (the
 * least recently used unloaded beyond `maxLoadedTools`), and is part of the
 * suspended state. Deferred tools stay in the snapshot: a call to one is
 * validated and reviewed like any call (B4, G4), never a batch rejection.
 */
import { AgtError } from '../../errors.js';
import type { FoundTool, ToolSearchContext } from '../../framework/tools.js';
import { estimateTokens } from '../../toolsearch/tokens.js';
import { ToolIndex } from '../../toolsearch/tool-index.js';
import { TOOL_SEARCH_TOOL } from '../../framework/search-tool.js';
import type { ToolSchemaRegistry } from '../../schema/registry.js';
import { type AutoAllowMatch, checkMatch, matches } from '../pipeline/policies.js';
import { type ModelTool, modelTools, visibleToModel } from '../model-tools.js';
import { frameworkRoute, type Route } from './snapshot.js';

/** Options of tool search (`NativeRunOptions.toolSearch`). */
export interface ToolSearchOptions {
  /** `auto` (default): on when the mounted tools exceed `maxTools` or `maxToolTokens`; `always`; `off`. */
  mode?: 'off' | 'auto' | 'always';
  /** In `auto`: on beyond this many MCP tools. Default 40. */
  maxTools?: number;
  /** In `auto`: on beyond this many estimated tokens of MCP tool definitions. Default 20,000. */
  maxToolTokens?: number;
  /** Tools loaded at most; beyond it the least recently used is unloaded (with a notice). Default 32. */
  maxLoadedTools?: number;
  /** MCP tools always shown (as policies match: an alias, a mount, a RegExp, annotations …). */
  pinned?: AutoAllowMatch;
}

/** What a boundary changed in the loaded set, and what the model is told of it. */
export interface ToolsLoaded {
  loaded: string[];
  unloaded: string[];
  message: string;
}

/** The defaults of ToolSearchOptions: the `auto` budget and the loaded-tools limit. */
export const TOOL_SEARCH_DEFAULTS = Object.freeze({ maxTools: 40, maxToolTokens: 20_000, maxLoadedTools: 32 });
const DEFAULTS = TOOL_SEARCH_DEFAULTS;

/** The tool-search state of one run. */
export class RunToolSearch {
  readonly #options: Required<Omit<ToolSearchOptions, 'pinned'>> & Pick<ToolSearchOptions, 'pinned'>;
  /** Loaded tools, least recently used first. */
  readonly #loaded = new Set<string>();
  readonly #pending = new Set<string>();
  readonly #indexes = new WeakMap<ReadonlyMap<string, Route>, { active: boolean; index: ToolIndex }>();
  readonly #withSearch = new WeakMap<ReadonlyMap<string, Route>, ReadonlyMap<string, Route>>();
  readonly #registry: ToolSchemaRegistry;

  constructor(options: ToolSearchOptions = {}, registry: ToolSchemaRegistry) {
    this.#registry = registry;
    const o = { mode: 'auto' as const, ...DEFAULTS, ...withoutUndefined(options) };
    for (const key of ['maxTools', 'maxToolTokens', 'maxLoadedTools'] as const) {
      if (!Number.isInteger(o[key]) || o[key] < 1)
        throw new AgtError('invalid_input', `toolSearch.${key} must be a positive whole number`, {
          details: { field: `toolSearch.${key}` },
        });
    }
    if (o.pinned !== undefined) checkMatch(o.pinned, 'toolSearch.pinned');
    if (!['off', 'auto', 'always'].includes(o.mode))
      throw new AgtError('invalid_input', 'toolSearch.mode must be off, auto or always', { details: { field: 'toolSearch.mode' } });
    this.#options = o;
  }

  /**
   * The routes of a snapshot as the run uses them: with `tool_search` added
   * when search is on (it is not part of the snapshot, so fingerprints and
   * aliases stay as they were, B2).
   */
  routes(base: ReadonlyMap<string, Route>): ReadonlyMap<string, Route> {
    if (!this.active(base)) return base;
    let routes = this.#withSearch.get(base);
    if (routes === undefined) {
      const route = frameworkRoute(TOOL_SEARCH_TOOL, this.#registry);
      routes = new Map([...base, [route.name, route]]);
      this.#withSearch.set(base, routes);
    }
    return routes;
  }

  /** True when the routes are many enough (or the mode says always): the model sees a reduced list. */
  active(routes: ReadonlyMap<string, Route>): boolean {
    return this.#state(routes).active;
  }

  /** The routes the model is shown (of `routes(base)`): all, or with search on the pinned, loaded and non-MCP ones. */
  visible(base: ReadonlyMap<string, Route>): Route[] {
    const all = [...this.routes(base).values()];
    if (!this.active(base)) return all;
    return all.filter((r) => r.kind !== 'mcp' || this.#loaded.has(r.name) || this.#pinned(r));
  }

  /** The tools a model is shown; with `includeDeferred` every tool, the ones not shown marked `deferred` (provider-native deferral). */
  modelTools(
    base: ReadonlyMap<string, Route>,
    options: { includeAppOnly?: boolean; includeDeferred?: boolean },
    apps = false,
  ): ModelTool[] {
    const appOnly = options.includeAppOnly === true;
    const visible = modelTools(this.visible(base), appOnly, apps);
    if (options.includeDeferred !== true || !this.active(base)) return visible;
    const shown = new Set(visible.map((t) => t.name));
    return modelTools(this.routes(base).values(), appOnly, apps).map((t) => (shown.has(t.name) ? t : { ...t, deferred: true as const }));
  }

  /** tool_search's view of this run's routes. */
  context(routes: ReadonlyMap<string, Route>): ToolSearchContext {
    return {
      search: (query, limit) =>
        this.#state(routes)
          .index.search(query, { limit })
          .map(({ name }) => found(routes.get(name))),
      load: (names) => {
        for (const name of names) if (routes.get(name)?.kind === 'mcp') this.#pending.add(name);
      },
    };
  }

  /** At a batch boundary: loads what was found (most recent last), unloads the least recently used beyond the limit. */
  applyLoads(routes: ReadonlyMap<string, Route>): ToolsLoaded | undefined {
    if (this.#pending.size === 0) return undefined;
    const loaded: string[] = [];
    for (const name of this.#pending) {
      if (!routes.has(name)) continue;
      if (!this.#loaded.has(name)) loaded.push(name);
      this.#loaded.delete(name); // found again: most recent
      this.#loaded.add(name);
    }
    this.#pending.clear();
    const unloaded: string[] = [];
    for (const name of this.#loaded) {
      if (this.#loaded.size - unloaded.length <= this.#options.maxLoadedTools) break;
      unloaded.push(name);
    }
    for (const name of unloaded) this.#loaded.delete(name);
    if (loaded.length === 0 && unloaded.length === 0) return undefined;
    const dropped = unloaded.length > 0 ? `; unloaded (least recently used): ${unloaded.join(', ')}` : '';
    return { loaded, unloaded, message: `loaded ${loaded.length === 0 ? 'nothing new' : loaded.join(', ')}${dropped}` };
  }

  /** The loaded tools, least recently used first (suspended with the run). */
  loadedTools(): string[] {
    return [...this.#loaded];
  }

  /** Restores a suspended run's loaded tools (those its snapshot still has). */
  restore(names: readonly string[], routes: ReadonlyMap<string, Route>): void {
    for (const name of names) if (routes.get(name)?.kind === 'mcp') this.#loaded.add(name);
  }

  #pinned(route: Route): boolean {
    const pinned = this.#options.pinned;
    if (pinned === undefined || route.kind !== 'mcp') return false;
    const request = {
      tool: route.name,
      kind: route.kind,
      mount: route.mount,
      remoteTool: route.remoteTool,
      annotations: route.annotations,
    };
    return matches(pinned, request as Parameters<typeof matches>[1]);
  }

  #state(routes: ReadonlyMap<string, Route>): { active: boolean; index: ToolIndex } {
    let state = this.#indexes.get(routes);
    if (state === undefined) {
      const mcp = [...routes.values()].filter((r) => r.kind === 'mcp' && visibleToModel(r)); // U1: never an app-only tool
      const { mode, maxTools, maxToolTokens } = this.#options;
      const active = mode === 'always' || (mode === 'auto' && (mcp.length > maxTools || estimateTokens(mcp) > maxToolTokens));
      state = { active, index: new ToolIndex(active ? mcp : []) };
      this.#indexes.set(routes, state);
    }
    return state;
  }
}

function found(route: Route | undefined): FoundTool {
  const line = (route?.description ?? '').split('\n')[0] ?? '';
  return {
    name: route?.name ?? '',
    description: line.length > 200 ? `${line.slice(0, 200)}…` : line,
    mount: route?.kind === 'mcp' ? route.mount : '',
  };
}

function withoutUndefined(options: ToolSearchOptions): Partial<ToolSearchOptions> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}
