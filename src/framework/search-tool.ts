/**
 * The framework tool `tool_search` ({ query, limit? }): the model's way to
 * find deferred tools. It answers names, one-line descriptions and mounts,
 * and asks the run to load them at the end of this batch (never mid-batch),
 * so the model calls them in its next step.
 */
import * as v from 'valibot';
import { TOOL_SEARCH } from '../toolsearch/tool-index.js';
import { DEFAULT_TOOL_SEARCH_HITS, MAX_TOOL_SEARCH_QUERY, MAX_TOOL_SEARCH_TOOL_HITS } from '../bounds.js';
import { defineFrameworkTool, type FrameworkTool } from './tools.js';

const input = v.strictObject({
  query: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_TOOL_SEARCH_QUERY), v.description('What the tool should do, in a few words')),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(MAX_TOOL_SEARCH_TOOL_HITS),
      v.description(`How many tools to find (default ${DEFAULT_TOOL_SEARCH_HITS})`),
    ),
  ),
});

/** tool_search as a framework tool; `context.toolSearch` is the run's. */
export const TOOL_SEARCH_TOOL: FrameworkTool = defineFrameworkTool(
  TOOL_SEARCH,
  'Search the tools of this run that are not loaded yet. Returns their names, a one-line description and their server; the tools found are loaded when this step ends, so call them in your next step.',
  input,
  async ({ query, limit }, context) => {
    const search = context.toolSearch;
    if (search === undefined) return { result: { tools: [], note: 'tool search is off in this run: every tool is listed' } };
    const tools = search.search(query, limit ?? DEFAULT_TOOL_SEARCH_HITS);
    search.load(tools.map((t) => t.name));
    return {
      result: {
        tools,
        note:
          tools.length === 0
            ? 'no tool matches; try other words'
            : 'these tools are loaded when this step ends: call them in your next step',
      },
    };
  },
);
