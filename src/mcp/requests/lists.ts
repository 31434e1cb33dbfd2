/**
 * Tolerant listing of tools, resources, resource templates and prompts. The
 * SDK's `listTools()` rejects the whole list when one tool lacks
 * `type: "object"`; here every page is fetched with a loose result schema and
 * each entry is kept as it came (only its identifying fields are required), so
 * one bad entry never hides the others. Tool schemas are judged one by one
 * later, by the ToolSchemaRegistry.
 */
import { ResultSchema } from '@modelcontextprotocol/core';
import { transportFailure } from './transport-failure.js';
import { ProtocolError } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/client';
import { isRequestTimeout } from '../settings/timeouts.js';
import { AgtError } from '../../errors.js';
import { defined, isPlainObject } from '../../json.js';
import { isAuthFailure } from '../auth/auth.js';
import { MAX_LIST_PAGES, MAX_LIST_TTL_MS } from '../../bounds.js';

/** One tool as the server declared it (only `name` is guaranteed). */
export interface RawTool {
  name: string;
  title?: string;
  description?: string;
  /** Exactly as declared; may be invalid (judged by the registry). */
  inputSchema: unknown;
  /** Exactly as declared, when the tool has one (judged by the registry). */
  outputSchema?: unknown;
  /** Behaviour hints as the server declared them (untrusted: servers may claim anything). */
  annotations?: ToolAnnotations;
  /** The tool's `_meta` as declared (MCP Apps: `ui.resourceUri`, `ui.visibility`). */
  _meta?: Record<string, unknown>;
  /** The tool's `execution` as declared (e.g. task support). */
  execution?: Record<string, unknown>;
}

/** MCP tool annotations: hints about a tool's behaviour, declared by its server. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** A resource a server lists. */
export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  /** The resource's `_meta` as listed (MCP Apps: `ui.csp`, `ui.permissions`). */
  _meta?: Record<string, unknown>;
}

/** A resource template a server lists (RFC 6570 URI template). */
export interface McpResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** A prompt a server lists. */
export interface McpPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** What can be listed, with the result key and the reader of one entry. */
interface ListSpec<T> {
  method: 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';
  key: string;
  /** The entry, or undefined to skip it (with a warning). */
  read(entry: Record<string, unknown>): T | undefined;
}

const LooseResult = ResultSchema.loose();

const str = (value: unknown): value is string => typeof value === 'string';
// The optional fields of `entry` that pass `test`, copied as they are.
function optional(entry: Record<string, unknown>, keys: readonly string[], test: (v: unknown) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (test(entry[key])) out[key] = entry[key];
  return out;
}

/** tools/list: entries need a string `name`. */
export const TOOLS_LIST: ListSpec<RawTool> = {
  method: 'tools/list',
  key: 'tools',
  read: (e) =>
    str(e.name)
      ? ({
          name: e.name,
          ...optional(e, ['title', 'description'], str),
          inputSchema: e.inputSchema,
          ...defined({ outputSchema: e.outputSchema }),
          ...(isPlainObject(e.annotations) ? { annotations: e.annotations } : {}),
          ...(isPlainObject(e._meta) ? { _meta: e._meta } : {}),
          ...(isPlainObject(e.execution) ? { execution: e.execution } : {}),
        } as RawTool)
      : undefined,
};

/** resources/list: entries need string `uri` and `name`. */
export const RESOURCES_LIST: ListSpec<McpResource> = {
  method: 'resources/list',
  key: 'resources',
  read: (e) =>
    str(e.uri) && str(e.name)
      ? ({
          uri: e.uri,
          name: e.name,
          ...optional(e, ['title', 'description', 'mimeType'], str),
          ...optional(e, ['size'], (v) => typeof v === 'number'),
          ...optional(e, ['_meta'], isPlainObject),
        } as McpResource)
      : undefined,
};

/** resources/templates/list: entries need string `uriTemplate` and `name`. */
export const TEMPLATES_LIST: ListSpec<McpResourceTemplate> = {
  method: 'resources/templates/list',
  key: 'resourceTemplates',
  read: (e) =>
    str(e.uriTemplate) && str(e.name)
      ? ({ uriTemplate: e.uriTemplate, name: e.name, ...optional(e, ['title', 'description', 'mimeType'], str) } as McpResourceTemplate)
      : undefined,
};

/** prompts/list: entries need a string `name`; malformed arguments are dropped. */
export const PROMPTS_LIST: ListSpec<McpPrompt> = {
  method: 'prompts/list',
  key: 'prompts',
  read: (e) => {
    if (!str(e.name)) return undefined;
    const args = Array.isArray(e.arguments)
      ? e.arguments
          .filter((a): a is Record<string, unknown> => isPlainObject(a) && str(a.name))
          .map((a) => ({ name: a.name, ...optional(a, ['description'], str), ...optional(a, ['required'], (v) => typeof v === 'boolean') }))
      : undefined;
    return { name: e.name, ...optional(e, ['title', 'description'], str), ...defined({ arguments: args }) } as McpPrompt;
  },
};

/** Fetches every page of a list within `listMs` in total. */
export async function listAll<T>(
  client: Client,
  spec: ListSpec<T>,
  listMs: number,
  isClosed: () => boolean,
  warnings: string[],
  onHints?: (hints: CacheHints) => void,
): Promise<T[]> {
  const deadline = performance.now() + listMs;
  const items: T[] = [];
  let first = true;
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const remaining = deadline - performance.now();
    if (remaining <= 0) throw listTimeout(spec.method, listMs);
    let result: Record<string, unknown>;
    try {
      result = (await client.request({ method: spec.method, params: cursor === undefined ? {} : { cursor } }, LooseResult, {
        timeout: remaining,
      })) as Record<string, unknown>;
    } catch (error) {
      if (isRequestTimeout(error)) throw listTimeout(spec.method, listMs);
      if (isClosed()) throw new AgtError('connection_closed', `the server went away during ${spec.method}`, { cause: error });
      if (isAuthFailure(error)) throw error; // the connection maps it (and may finish an OAuth step-up)
      const broken = transportFailure(error, spec.method);
      if (broken !== undefined) throw broken;
      throw new AgtError('protocol_error', `the server answered ${spec.method} with an error or an invalid result`, {
        details: {
          reason: `invalid_${spec.key === 'resourceTemplates' ? 'templates' : spec.key}_list`,
          ...(error instanceof ProtocolError ? { rpcCode: error.code } : {}),
        },
        cause: error,
      });
    }
    if (first) onHints?.(cacheHints(result)); // 2026-07-28: the first page says how long the whole list may be reused
    first = false;
    const entries = result[spec.key];
    if (!Array.isArray(entries)) warnings.push(`a ${spec.method} page had no "${spec.key}" array`);
    for (const entry of Array.isArray(entries) ? entries : []) {
      const item = isPlainObject(entry) ? spec.read(entry) : undefined;
      if (item === undefined) warnings.push(`skipped a ${spec.method} entry without its identifying fields`);
      else items.push(item);
    }
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') return items;
    if (seenCursors.has(next)) {
      throw new AgtError('protocol_error', `${spec.method} pagination repeats a cursor (it would never end)`, {
        details: { reason: 'cursor_loop' },
      });
    }
    seenCursors.add(next);
    cursor = next;
  }
  throw new AgtError('protocol_error', `${spec.method} has more than ${MAX_LIST_PAGES} pages`, { details: { reason: 'too_many_pages' } });
}

/** How long a list may be reused and by whom (MCP 2026-07-28 `ttlMs`, `cacheScope`), as bounded here. */
export interface CacheHints {
  /** Milliseconds the list may be reused: 0 when absent, negative or not a number; at most {@link MAX_LIST_TTL_MS}. */
  ttlMs: number;
  /** `public`: any user of the server may reuse it; `private` (also when absent or unknown): one auth identity only. */
  cacheScope: 'public' | 'private';
}

/** The longest a server may ask a list to be reused: one day (the SDK's own bound). */
export { MAX_LIST_TTL_MS };

/** The cache hints of a list result, bounded: a missing, negative or huge ttl and an unknown scope are made safe. */
export function cacheHints(result: Record<string, unknown>): CacheHints {
  const ttl = result.ttlMs;
  const ttlMs = typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.min(Math.floor(ttl), MAX_LIST_TTL_MS) : 0;
  return { ttlMs, cacheScope: result.cacheScope === 'public' ? 'public' : 'private' };
}

// The arrays that make a 2026-07-28 result a cacheable one (the lists, and resources/read's contents).
const CACHEABLE = ['tools', 'prompts', 'resources', 'resourceTemplates', 'contents'];
const isTtl = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * A cacheable 2026-07-28 result with its cache fields made what docs/mcp.md
 * says they count as — a missing, negative, fractional, null or overflowing
 * `ttlMs` as 0, an unknown `cacheScope` as private — before the SDK's strict
 * wire schema reads it (it would refuse the whole list); any other result as
 * it came. Runs on every message received (request-state.ts's guard).
 */
export function lenientCacheFields(result: Record<string, unknown>): Record<string, unknown> {
  if (result.resultType !== 'complete' || !CACHEABLE.some((key) => Array.isArray(result[key]))) return result;
  if (isTtl(result.ttlMs) && (result.cacheScope === 'public' || result.cacheScope === 'private')) return result;
  return {
    ...result,
    ttlMs: isTtl(result.ttlMs) ? result.ttlMs : 0,
    cacheScope: result.cacheScope === 'public' ? 'public' : 'private',
  };
}

/** The error of a list that did not complete within `listMs` (every page together). */
export function listTimeout(method: string, listMs: number): AgtError {
  return new AgtError('handshake_timeout', `${method} did not complete within ${listMs} ms`, {
    details: { phase: method, timeoutMs: listMs },
  });
}
