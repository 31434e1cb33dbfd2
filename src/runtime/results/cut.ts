/**
 * The cut of one result at a budget (B8), shared by a run (kept-results.ts,
 * with a notice for the model) and `agt mcp call` (with one for a person):
 * what of a result is measured, what a page of it costs, and the cut result.
 */
import { MAX_JSON_DEPTH } from '../../bounds.js';
import { isPlainObject, measureJson } from '../../json.js';
import { partCost, type ResultLine } from './pages.js';
import type { ResultCut, ToolResult } from '../types.js';

/** The content a budget measures — an ok result's, a tool's own error's (`details.content`) — and its structured content; else undefined. */
export function budgetedContent(result: ToolResult): { content: unknown[]; structured: unknown } | undefined {
  const content = result.status === 'ok' ? result.content : result.status === 'tool_error' ? result.error.details?.content : undefined;
  if (!Array.isArray(content)) return undefined;
  return { content, structured: result.status === 'ok' ? result.structuredContent : undefined };
}

/** What the whole line costs in pages (text characters; other parts by partCost), stopping past `stop`. */
export function lineCost(line: ResultLine, stop: number): number {
  let cost = 0;
  for (const segment of line.segments) {
    cost += 'text' in segment ? segment.text.length : partCost(segment.part);
    if (cost > stop) break;
  }
  return cost;
}

/** An upper bound of a result's cost, without building its line, stopping past `stop`: the usual result is measured by a sum. */
export function roughSize(content: readonly unknown[], structured: unknown, stop: number): number {
  let size = 0;
  let text = false;
  for (const part of content) {
    if (!isPlainObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') {
      size += part.text.length + 1;
      text = true;
    } else if (part.type === 'resource' && isPlainObject(part.resource) && typeof part.resource.text === 'string') {
      size += part.resource.text.length + 1;
      text = true;
    } else size += 1 + partCost(part);
    if (size > stop) return size;
  }
  if (!text && structured !== undefined) {
    const json = measureJson(structured, { depth: MAX_JSON_DEPTH, bytes: Math.max(1, stop - size + 1) });
    size += typeof json === 'number' ? json : stop + 1;
  }
  return size;
}

/**
 * `result` with its content replaced by `parts` and `cut` set: an ok result keeps its structured content when its
 * JSON fits `room` characters; a tool's own error has `details.content` replaced, marked `truncated`.
 */
export function cutTo(result: ToolResult, parts: unknown[], cut: ResultCut, room: number): ToolResult {
  if (result.status === 'ok') {
    const { structuredContent, ...rest } = result;
    const keep =
      structuredContent !== undefined && typeof measureJson(structuredContent, { depth: MAX_JSON_DEPTH, bytes: room }) === 'number';
    return { ...rest, content: parts, ...(keep ? { structuredContent } : {}), cut };
  }
  if (result.status !== 'tool_error') return result;
  return { ...result, error: { ...result.error, details: { ...result.error.details, content: parts, truncated: true } }, cut };
}
