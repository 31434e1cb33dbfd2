/**
 * Tool results as model APIs take them. A failed result is the ToolError JSON
 * (`{"error":{code,message,details}}`), so the model sees the code, the
 * message and the issue paths of invalid_arguments; a successful one is its
 * text content, or its structured content as JSON when it has no text.
 */
import { isPlainObject } from '../json.js';
import { toolErrorText } from '../results.js';
import type { ToolResult } from '../runtime/types.js';

/** The text a model is given for a result (`apart`: parts that travel as their own blocks, left out of the text). */
export function resultText(result: ToolResult, options: { apart?: (part: unknown) => boolean } = {}): string {
  if (result.status !== 'ok') return toolErrorText(result.error);
  const only = result.content.length === 1 ? result.content[0] : undefined;
  if (isPlainObject(only) && only.type === 'text' && typeof only.text === 'string' && only.text !== '') return only.text; // the common case, without allocations
  const parts = result.content
    .filter((part) => !options.apart?.(part))
    .map(partText)
    .filter((t) => t !== '');
  if (parts.length > 0) return parts.join('\n');
  return result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
}

// One MCP content part as text; what text cannot carry is named, not dropped silently.
function partText(part: unknown): string {
  if (!isPlainObject(part)) return '';
  if (part.type === 'text' && typeof part.text === 'string') return part.text;
  if (part.type === 'resource' && isPlainObject(part.resource)) {
    const r = part.resource;
    return typeof r.text === 'string' ? r.text : `[resource ${String(r.uri ?? '')} (${String(r.mimeType ?? 'binary')})]`;
  }
  if (part.type === 'resource_link') return `[resource link ${String(part.uri ?? '')}]`;
  if (part.type === 'image' || part.type === 'audio') return `[${part.type} ${String(part.mimeType ?? '')} not shown]`;
  return '';
}

/** An MCP image part's base64 data and media type, if it is one. */
export function imagePart(part: unknown): { data: string; mediaType: string } | undefined {
  if (!isPlainObject(part) || part.type !== 'image' || typeof part.data !== 'string' || typeof part.mimeType !== 'string') return undefined;
  return { data: part.data, mediaType: part.mimeType };
}
