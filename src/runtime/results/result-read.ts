/**
 * The run tool `result_read` ({ callId, offset?, limit? }) (B8): offered once a
 * result of the run was cut at its budget, called through the same pipeline
 * as every tool (validated, permitted, audited), and never itself cut: a page
 * is at most the budget. An unknown or dropped call id, or an offset past the
 * end, is a tool error the model reads.
 */
import * as v from 'valibot';
import { defineFrameworkTool, type FrameworkTool } from '../../framework/tools.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { toolResult } from '../../results.js';
import { outsideJson } from '../../outside-text.js';
import { RESULT_READ } from '../../tool-names.js';
import type { ToolSchemaRegistry } from '../../schema/registry.js';
import { frameworkRoute, type Route } from '../assembly/snapshot.js';
import type { KeptResults } from './kept-results.js';
import { MAX_KEPT_CALL_ID } from '../../bounds.js';

export { RESULT_READ } from '../../tool-names.js';

const position = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));

const input = v.strictObject({
  callId: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(MAX_KEPT_CALL_ID),
    v.description('The call whose result was cut, as its notice names it'),
  ),
  offset: v.optional(v.pipe(position, v.description('The character to start at (default: where the last read of this call ended)'))),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(Number.MAX_SAFE_INTEGER),
      v.description('The most characters to read (at most the result budget)'),
    ),
  ),
});

/** result_read over one run's kept results. */
export function resultReadTool(results: KeptResults): FrameworkTool {
  return defineFrameworkTool(
    RESULT_READ,
    'Read more of a tool result that was cut at the result budget: the next page from offset (a character position; other parts such as images count one each), as the cut notice says.',
    input,
    async ({ callId, offset, limit }) => {
      const page = results.read(callId, offset, limit);
      const id = outsideJson(callId); // exact as JSON, with bidi and line controls escaped
      const where = `[agt-mcp: characters ${page.start}–${page.end} of ${page.total} of call ${id}`;
      const next =
        page.end < page.total ? `; read on with result_read {"callId":${id},"offset":${page.end}}]` : '; this is the end of the result]';
      // The page's parts are the kept result's own MCP content parts (typed parts, read from the server's answer).
      const content = [...page.parts, { type: 'text', text: where + next }] as CallToolResult['content'];
      return { result: toolResult({ content }) };
    },
  );
}

/**
 * The routes of a snapshot as the run uses them: with `result_read` added once a result was cut (it is not part of
 * the snapshot, so fingerprints and aliases stay as they were, B2). One map per snapshot's routes.
 */
export function resultReadRoutes(
  results: KeptResults,
  registry: ToolSchemaRegistry,
): (base: ReadonlyMap<string, Route>) => ReadonlyMap<string, Route> {
  const withRead = new WeakMap<ReadonlyMap<string, Route>, ReadonlyMap<string, Route>>();
  let route: Route | undefined;
  return (base) => {
    if (!results.offered || base.has(RESULT_READ)) return base;
    let routes = withRead.get(base);
    if (routes === undefined) {
      route ??= frameworkRoute(resultReadTool(results), registry);
      routes = new Map([...base, [RESULT_READ, route]]);
      withRead.set(base, routes);
    }
    return routes;
  };
}
