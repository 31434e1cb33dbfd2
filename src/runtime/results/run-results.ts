/**
 * A run's side of the result budget (B8): its kept results (none with
 * `resultBudget: false`), the routes and model tools with `result_read` once a
 * result was cut, and their part of the run's state.
 */
import type { ToolSchemaRegistry } from '../../schema/registry.js';
import type { Route } from '../assembly/snapshot.js';
import { type ModelTool, modelTools } from '../model-tools.js';
import type { ResolvedResultBudget } from './budget.js';
import { KeptResults, type StoredResults } from './kept-results.js';
import { RESULT_READ, resultReadRoutes } from './result-read.js';

/** The result budget of one run. */
export class RunResults {
  /** The kept results; undefined without a budget. */
  readonly kept: KeptResults | undefined;
  /** A snapshot's routes with result_read beside them once a result was cut (else the same map). */
  readonly routes: (base: ReadonlyMap<string, Route>) => ReadonlyMap<string, Route>;

  constructor(budget: ResolvedResultBudget | undefined, registry: ToolSchemaRegistry) {
    this.kept = budget && new KeptResults(budget);
    this.routes = this.kept ? resultReadRoutes(this.kept, registry) : (base) => base;
  }

  /** The model's tools with result_read last, once a result was cut. */
  tools(tools: ModelTool[], base: ReadonlyMap<string, Route>): ModelTool[] {
    if (this.kept?.offered !== true || tools.some((t) => t.name === RESULT_READ)) return tools;
    const read = this.routes(base).get(RESULT_READ);
    return read === undefined ? tools : [...tools, ...modelTools([read], false)];
  }

  /** What the run's state stores of them (undefined when no result was cut). */
  state(): StoredResults | undefined {
    return this.kept?.state();
  }

  /** Takes back a stored state's kept results (checked: a hostile record loses only its own entries). */
  load(stored: unknown): void {
    this.kept?.load(stored);
  }
}
