/**
 * Tolerant tools/list. The SDK's `listTools()` rejects the whole list when one
 * tool lacks `type: "object"`; here every page is fetched with a loose result
 * schema and each entry is kept as it came, to be judged one by one by the
 * ToolSchemaRegistry (a probe reports the bad tool and still reports the rest).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';

/** One tool as the server declared it (only `name` is guaranteed). */
export interface RawTool {
  name: string;
  title?: string;
  description?: string;
  /** Exactly as declared; may be invalid (judged by the registry). */
  inputSchema: unknown;
  annotations?: Record<string, unknown>;
}

const LooseResult = ResultSchema.loose();
const MAX_PAGES = 1000;

/** Fetches every page of tools/list within `listMs` in total. */
export async function listAllTools(client: Client, listMs: number, isClosed: () => boolean, warnings: string[]): Promise<RawTool[]> {
  const deadline = performance.now() + listMs;
  const tools: RawTool[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const remaining = deadline - performance.now();
    if (remaining <= 0) throw listTimeout(listMs);
    let result: Record<string, unknown>;
    try {
      result = (await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, LooseResult, { timeout: remaining })) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof McpError && error.code === -32001) throw listTimeout(listMs);
      if (isClosed()) throw new AgtError('connection_closed', 'the server went away during tools/list', { cause: error });
      throw new AgtError('protocol_error', 'the server answered tools/list with an error or an invalid result', { details: { reason: 'invalid_tools_list' }, cause: error });
    }
    const entries = Array.isArray(result.tools) ? result.tools : [];
    if (!Array.isArray(result.tools)) warnings.push('a tools/list page had no "tools" array');
    for (const entry of entries) {
      if (!isPlainObject(entry) || typeof entry.name !== 'string') {
        warnings.push('skipped a tools/list entry without a string "name"');
        continue;
      }
      tools.push({
        name: entry.name,
        ...(typeof entry.title === 'string' ? { title: entry.title } : {}),
        ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
        inputSchema: entry.inputSchema,
        ...(isPlainObject(entry.annotations) ? { annotations: entry.annotations } : {}),
      });
    }
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') return tools;
    if (seenCursors.has(next)) {
      throw new AgtError('protocol_error', 'tools/list pagination repeats a cursor (it would never end)', { details: { reason: 'cursor_loop' } });
    }
    seenCursors.add(next);
    cursor = next;
  }
  throw new AgtError('protocol_error', `tools/list has more than ${MAX_PAGES} pages`, { details: { reason: 'too_many_pages' } });
}

function listTimeout(listMs: number): AgtError {
  return new AgtError('handshake_timeout', `tools/list did not complete within ${listMs} ms`, { details: { phase: 'tools/list', timeoutMs: listMs } });
}
