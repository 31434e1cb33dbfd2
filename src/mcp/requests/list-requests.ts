/**
 * A connection's lists — tools, resources, resource templates, prompts, every
 * page (lists.ts) — and the two reads they lead to: one resource, one prompt.
 * Each is one request of the connection (counted, its errors mapped) and its
 * answer is masked; a list the server does not declare is empty, unasked.
 */
import type { Client, Tool } from '@modelcontextprotocol/client';
import { isPlainObject } from '../../json.js';
import type { PromptResult, RequestOptions, ResourceContents } from '../connection-types.js';
import {
  type CacheHints,
  listAll,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  PROMPTS_LIST,
  type RawTool,
  RESOURCES_LIST,
  TEMPLATES_LIST,
  TOOLS_LIST,
} from './lists.js';
import type { Send } from './more-requests.js';
import { withValidHeaders } from './param-headers.js';
import { boundedDepth } from './server-answers.js';
import { runsAsTask } from '../tasks/capabilities.js';

/** A connection's lists and reads: the part of McpConnection that {@link listRequests} implements. */
export interface ConnectionLists {
  /**
   * How long the last tools/list may be reused (E3): the server's `ttlMs` and `cacheScope` on a 2026-07-28
   * connection, bounded (lists.ts `cacheHints`); undefined on the 2025 era (reused until a list change).
   */
  toolListHints(): CacheHints | undefined;
  /** All pages of tools/list, tolerant of bad entries (each judged later). */
  listTools(): Promise<RawTool[]>;
  /** All pages of resources/list ([] when the server declares no resources). */
  listResources(): Promise<McpResource[]>;
  /** All pages of resources/templates/list ([] when the server declares no resources). */
  listResourceTemplates(): Promise<McpResourceTemplate[]>;
  /** Reads one resource; an unknown URI rejects with not_found. */
  readResource(uri: string, options?: RequestOptions): Promise<ResourceContents>;
  /** All pages of prompts/list ([] when the server declares no prompts). */
  listPrompts(): Promise<McpPrompt[]>;
  /** Gets one prompt rendered with `args`. */
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<PromptResult>;
}

/** What a connection's lists and reads need from it. */
export interface ListRequestParts {
  client: Client;
  send: Send;
  sdkOptions(options: RequestOptions, signal: AbortSignal): { signal?: AbortSignal; timeout: number };
  masked<T>(value: T): T;
  /** How long all pages of one list may take together (the connection's `timeouts.listMs`). */
  listMs: number;
  /** True once the connection is gone: a list stops paging. */
  gone(): boolean;
  warnings: string[];
  /** The tools' arguments are mirrored into headers (2026-07-28 over Streamable HTTP). */
  mirrorsHeaders: boolean;
  /** Refilled at each tools/list: the tools whose arguments are mirrored into headers. */
  headerTools: Map<string, Tool>;
  /** Refilled at each tools/list: the tools a 2025 server runs as tasks (their `execution.taskSupport`). */
  taskTools: Map<string, RawTool>;
  /** Only a 2026-07-28 list carries cache hints. */
  era: 'legacy' | 'modern';
}

/** listTools, toolListHints, listResources, listResourceTemplates, listPrompts, readResource and getPrompt of a connection. */
export function listRequests(parts: ListRequestParts): ConnectionLists {
  const { client, send, sdkOptions, masked, warnings } = parts;
  const declares = (capability: 'resources' | 'prompts') => isPlainObject(client.getServerCapabilities()?.[capability]);
  let toolHints: CacheHints | undefined; // of the last tools/list (2026-07-28)
  const list = async <T>(spec: Parameters<typeof listAll<T>>[1], onHints?: (hints: CacheHints) => void) =>
    masked(await send(spec.method, () => listAll(client, spec, parts.listMs, parts.gone, warnings, onHints)));
  return {
    listTools: async () => {
      const listed = await list(TOOLS_LIST, (hints) => (toolHints = parts.era === 'modern' ? hints : undefined));
      const tools = parts.mirrorsHeaders ? withValidHeaders(listed, warnings, parts.headerTools) : listed;
      parts.taskTools.clear();
      for (const tool of tools) if (runsAsTask(tool)) parts.taskTools.set(tool.name, tool);
      return tools;
    },
    toolListHints: () => toolHints,
    listResources: async () => (declares('resources') ? list(RESOURCES_LIST) : []),
    listResourceTemplates: async () => (declares('resources') ? list(TEMPLATES_LIST) : []),
    listPrompts: async () => (declares('prompts') ? list(PROMPTS_LIST) : []),
    readResource: (uri, options = {}) =>
      send(
        'resources/read',
        async (signal) =>
          masked(
            boundedDepth(
              (await client.request({ method: 'resources/read', params: { uri } }, sdkOptions(options, signal))) as ResourceContents,
              'resources/read',
            ),
          ),
        options,
      ),
    getPrompt: (name, args, options = {}) =>
      send(
        'prompts/get',
        async (signal) =>
          masked(
            boundedDepth(
              (await client.request(
                { method: 'prompts/get', params: { name, ...(args ? { arguments: args } : {}) } },
                sdkOptions(options, signal),
              )) as PromptResult,
              'prompts/get',
            ),
          ),
        options,
      ),
  };
}
