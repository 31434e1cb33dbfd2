/**
 * What a call's result must be before anyone sees it (stages 6 and 7 of the
 * pipeline): a server's structured content checked against the tool's
 * outputSchema, and every result bounded in size (maxResultBytes). Neither
 * puts a server's values in a message, an issue or the audit.
 */
import { MAX_JSON_DEPTH } from '../../bounds.js';
import { isPlainObject, jsonStringBytes, measureJson } from '../../json.js';
import { checkStructuredOutput, outputVerdictMessage } from '../../schema/structured-output.js';
import type { ArgumentIssue } from '../../schema/issues/issues.js';
import type { CompiledToolSchema } from '../../schema/registry.js';
import { callResult } from './call-result.js';
import type { ToolResult } from '../types.js';

/**
 * Stage 6, output: a server's result's `structuredContent` must be a JSON object and,
 * when the tool declares an outputSchema, be present and valid for it. A
 * mismatch fails the call (`output_invalid`) with paths only, never values.
 */
export function checkOutput(
  result: ToolResult,
  route: { outputValidator?: CompiledToolSchema; outputNames?: ReadonlySet<string> },
): ToolResult {
  if (result.status !== 'ok') return result; // an isError result is not checked (MCP)
  const structured = result.structuredContent;
  if (structured === undefined && route.outputValidator === undefined) return result; // the usual case: nothing to check
  const output = route.outputValidator === undefined ? undefined : { schema: route.outputValidator, names: route.outputNames ?? NO_NAMES };
  const verdict = checkStructuredOutput(structured, output);
  if (verdict.ok) return result;
  // The server's own property names are its data: never in the message, the issues or the audit.
  return outputInvalid(result, outputVerdictMessage(verdict), verdict.issues);
}

const NO_NAMES: ReadonlySet<string> = new Set();

function outputInvalid(result: ToolResult, message: string, issues: readonly ArgumentIssue[]): ToolResult {
  return callResult(result.callId, {
    kind: 'failed',
    failed: 'tool_failed',
    error: { code: 'output_invalid', message, details: { issues } },
  });
}

// The whole part as JSON (annotations, _meta and every other field count); a part too deep to measure counts as unlimited.
function partSize(part: unknown): number {
  const size = measureJson(part, { depth: MAX_JSON_DEPTH, bytes: Number.MAX_SAFE_INTEGER });
  return typeof size === 'number' ? size : Number.MAX_SAFE_INTEGER;
}

// True when the parts and the structured content together are within `maxBytes`, measured in one walk each that stops at the limit.
function fits(result: ToolResult, content: unknown[], maxBytes: number): boolean {
  const separators = 2 + Math.max(0, content.length - 1); // the list's brackets and commas, which the parts' sum leaves out
  const whole = measureJson(content, { depth: MAX_JSON_DEPTH + 1, bytes: maxBytes + separators });
  if (typeof whole !== 'number') return false;
  const parts = whole - separators;
  if (result.status !== 'ok' || result.structuredContent === undefined) return parts <= maxBytes;
  const structured = measureJson(result.structuredContent, { depth: MAX_JSON_DEPTH, bytes: maxBytes - parts });
  return typeof structured === 'number' && parts + structured <= maxBytes;
}

/**
 * Stage 7, bound: a result over `maxResultBytes` (every field of every part
 * counted as UTF-8 JSON) keeps its structured content when that fits, then its
 * first parts up to the limit (a text cut at the limit, keeping only its type
 * and text; larger parts dropped), and says so in a last text part. Memory stays
 * bounded: stdio messages and remote bodies are bounded by the transports.
 */
export function boundResult(result: ToolResult, maxBytes: number): ToolResult {
  const content = result.status === 'ok' ? result.content : (result.error.details?.content as unknown[] | undefined);
  if (!Array.isArray(content)) return result;
  if (fits(result, content, maxBytes)) return result; // the usual case: one walk that stops at the limit
  const structured = result.status === 'ok' && result.structuredContent !== undefined ? partSize(result.structuredContent) : 0;
  const sizes = content.map(partSize);
  const total = Math.min(Number.MAX_SAFE_INTEGER, sizes.reduce((n: number, size) => n + size, 0) + structured);
  if (total <= maxBytes) return result;
  // Structured content first (it is what programs read), then the parts in order.
  const keepStructured = structured > 0 && structured <= maxBytes;
  let budget = maxBytes - (keepStructured ? structured : 0);
  const kept: unknown[] = [];
  content.forEach((part, i) => {
    const size = sizes[i] as number;
    if (size <= budget) {
      kept.push(part);
      budget -= size;
    } else if (isPlainObject(part) && part.type === 'text' && typeof part.text === 'string' && budget > 32) {
      const text = cutToBytes(part.text, budget - 32);
      kept.push({ type: 'text', text });
      budget = 0;
    }
  });
  const shown = total === Number.MAX_SAFE_INTEGER ? 'too deep to measure' : `about ${total} bytes`;
  const notice = { type: 'text', text: `[agt-mcp: the result was ${shown}; only the first ${maxBytes} are kept (maxResultBytes)]` };
  if (result.status !== 'ok') return withContent(result, [...kept, notice]);
  const { structuredContent, ...rest } = result;
  return { ...rest, content: [...kept, notice], ...(keepStructured ? { structuredContent } : {}) };
}

// A failed result whose details hold `content` (cut) instead of its own: its code, and so its details' type, kept.
function withContent<R extends Exclude<ToolResult, { status: 'ok' }>>(result: R, content: unknown[]): R {
  return { ...result, error: { ...result.error, details: { ...result.error.details, content, truncated: true } } };
}

// The longest prefix of `text` whose JSON literal fits in `bytes` (escapes and UTF-8 counted; a surrogate pair is never split).
function cutToBytes(text: string, bytes: number): string {
  let used = 2;
  let end = 0;
  while (end < text.length) {
    const pair = (text.charCodeAt(end) & 0xfc00) === 0xd800 && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00;
    const next = end + (pair ? 2 : 1);
    const cost = jsonStringBytes(text.slice(end, next)) - 2;
    if (used + cost > bytes) break;
    used += cost;
    end = next;
  }
  return text.slice(0, end);
}
