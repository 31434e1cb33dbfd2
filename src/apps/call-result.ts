/**
 * A run's ToolResult as an app reads it: an MCP CallToolResult. An `ok`
 * result keeps its content, structured content (an object) and `_meta`; any
 * other status is an error result naming its code, the message made fit for
 * one line (outside text).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { isPlainObject } from '../json.js';
import { outsideText } from '../outside-text.js';
import type { ToolResult } from '../runtime/types.js';

const MAX_MESSAGE = 500;

/** `<code>: <message>` of a result that is not ok, one line and bounded. */
export function resultReason(result: Exclude<ToolResult, { status: 'ok' }>): string {
  return `${outsideText(result.error.code, { max: 100 })}: ${outsideText(result.error.message, { max: MAX_MESSAGE })}`;
}

/** An error result for the app: `text` as its one text item. */
export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The run's result of a call as the app reads it (see the module's comment). */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (result.status !== 'ok') return errorResult(resultReason(result));
  return {
    content: result.content as CallToolResult['content'],
    ...(isPlainObject(result.structuredContent) ? { structuredContent: result.structuredContent } : {}),
    ...(result._meta === undefined ? {} : { _meta: result._meta }),
  };
}
