/**
 * SEP-2243 (MCP 2026-07-28): a tool may mark top-level arguments with
 * `x-mcp-header: NAME`, and a Streamable HTTP client mirrors their values into
 * `Mcp-Param-NAME` headers (the SDK's `callTool` does the mirroring, given the
 * tool's definition). A tool whose declarations break the rules must not be
 * offered at all: the name empty, not an HTTP token, repeated (in any case),
 * or on a property that is not a string, integer or boolean.
 *
 * Server data: at most {@link MAX_SCHEMA_PROPERTIES} properties are read, and nothing
 * of a name or value reaches a message.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { isPlainObject } from '../../json.js';
import type { RawTool } from './lists.js';
import { MAX_PARAM_HEADERS_BYTES, MAX_SCHEMA_PROPERTIES, MAX_TOOL_NAME_LENGTH } from '../../bounds.js';
import { AgtError } from '../../errors.js';
import { outsideText } from '../../outside-text.js';

// RFC 9110 token characters: what an HTTP header name may hold.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/;
const MIRRORABLE = new Set(['string', 'integer', 'boolean']);

/** What a tool declares for SEP-2243: nothing, valid headers, or a reason to leave the tool out. */
export type HeaderDeclarations = { kind: 'none' } | { kind: 'valid'; count: number } | { kind: 'invalid'; reason: string };

/** Reads the `x-mcp-header` declarations of a tool's inputSchema (bounded). */
export function headerDeclarations(inputSchema: unknown): HeaderDeclarations {
  const properties = isPlainObject(inputSchema) ? inputSchema.properties : undefined;
  if (!isPlainObject(properties)) return { kind: 'none' };
  const seen = new Set<string>();
  let read = 0;
  for (const key in properties) {
    if (!Object.hasOwn(properties, key)) continue;
    if (++read > MAX_SCHEMA_PROPERTIES) break;
    const property: unknown = properties[key];
    if (!isPlainObject(property) || !Object.hasOwn(property, 'x-mcp-header')) continue;
    const name: unknown = property['x-mcp-header'];
    if (typeof name !== 'string' || name === '') return { kind: 'invalid', reason: 'an x-mcp-header name is empty or not a string' };
    if (!TOKEN.test(name))
      return { kind: 'invalid', reason: 'an x-mcp-header name is not an HTTP header token (spaces, colons, non-ASCII)' };
    if (seen.has(name.toLowerCase())) return { kind: 'invalid', reason: 'two properties declare the same x-mcp-header name' };
    seen.add(name.toLowerCase());
    if (typeof property.type !== 'string' || !MIRRORABLE.has(property.type))
      return { kind: 'invalid', reason: 'an x-mcp-header is on a property that is not a string, integer or boolean' };
  }
  return seen.size === 0 ? { kind: 'none' } : { kind: 'valid', count: seen.size };
}

// How long a value is as an Mcp-Param header: plain ASCII as it is, anything else as the SDK's `=?base64?…?=` of its UTF-8.
function headerLength(value: unknown): number {
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  if (/^[\t\x20-\x7e]+$/.test(text) && text === text.trim()) return text.length;
  return Math.ceil(Buffer.byteLength(text) / 3) * 4 + 12;
}

/**
 * Refuses a call whose mirrored arguments would make Mcp-Param headers over
 * MAX_PARAM_HEADERS_BYTES (invalid_input, reason `param_headers_too_large`,
 * nothing sent): a server would answer 431 to the whole request. Names and
 * values never reach the message.
 */
export function checkParamHeaders(tool: Tool, args: Record<string, unknown>): void {
  const properties = isPlainObject(tool.inputSchema) ? tool.inputSchema.properties : undefined;
  if (!isPlainObject(properties)) return;
  let bytes = 0;
  let read = 0;
  for (const key in properties) {
    if (!Object.hasOwn(properties, key)) continue;
    if (++read > MAX_SCHEMA_PROPERTIES) break;
    const property: unknown = properties[key];
    const name = isPlainObject(property) ? property['x-mcp-header'] : undefined;
    if (typeof name !== 'string' || !Object.hasOwn(args, key)) continue;
    bytes += 'Mcp-Param-'.length + name.length + 2 + headerLength(args[key]);
  }
  if (bytes > MAX_PARAM_HEADERS_BYTES)
    throw new AgtError(
      'invalid_input',
      `the arguments this tool mirrors into Mcp-Param headers would take ${bytes} bytes, over ${MAX_PARAM_HEADERS_BYTES}; send shorter values in those arguments`,
      {
        details: { reason: 'param_headers_too_large', limitBytes: MAX_PARAM_HEADERS_BYTES, tool: tool.name.slice(0, MAX_TOOL_NAME_LENGTH) },
      },
    );
}

/**
 * The listed tools a Streamable HTTP client on 2026-07-28 may offer: those
 * with invalid declarations are left out (a warning names each), those with
 * valid ones are noted in `mirrored` (definitions without outputSchema: the
 * run checks outputs itself) for the SDK to mirror their arguments.
 */
export function withValidHeaders(tools: RawTool[], warnings: string[], mirrored: Map<string, Tool>): RawTool[] {
  mirrored.clear();
  return tools.filter((tool) => {
    const declared = headerDeclarations(tool.inputSchema);
    if (declared.kind === 'invalid') {
      const warning = `tool "${outsideText(tool.name, { max: MAX_TOOL_NAME_LENGTH })}" left out: ${outsideText(declared.reason)} (SEP-2243)`;
      if (!warnings.includes(warning)) warnings.push(warning); // listed again after a change: said once
      return false;
    }
    if (declared.kind === 'valid') mirrored.set(tool.name, { name: tool.name, inputSchema: tool.inputSchema } as Tool);
    return true;
  });
}
