/**
 * A listed tool's schemas, compiled: its inputSchema and, when it declares
 * one, its outputSchema, both through the ToolSchemaRegistry with the same
 * dialect rules. Probes report the outcome per tool; runs route only tools
 * whose schemas all loaded, so a bad schema only ever affects its own tool.
 */
import { type AgtError, isAgtError } from '../../errors.js';
import type { CompiledToolSchema, ToolSchemaRegistry } from '../../schema/registry.js';
import type { RawTool } from '../requests/lists.js';

/** The compiled schemas of one tool, or the first that failed to load. */
export type ToolSchemas =
  | { ok: true; input: CompiledToolSchema; output?: CompiledToolSchema }
  | { ok: false; part: 'inputSchema'; error: AgtError }
  | { ok: false; part: 'outputSchema'; error: AgtError; input: CompiledToolSchema };

/** Compiles `tool`'s inputSchema and outputSchema; never throws for a bad schema. */
export function compileToolSchemas(tool: RawTool, registry: ToolSchemaRegistry): ToolSchemas {
  let input: CompiledToolSchema;
  try {
    input = registry.compile(tool.inputSchema, { tool: tool.name });
  } catch (error) {
    if (!isAgtError(error)) throw error;
    return { ok: false, part: 'inputSchema', error };
  }
  if (tool.outputSchema === undefined) return { ok: true, input };
  try {
    return { ok: true, input, output: registry.compile(tool.outputSchema, { tool: tool.name, part: 'outputSchema' }) };
  } catch (error) {
    if (!isAgtError(error)) throw error;
    return { ok: false, part: 'outputSchema', error, input };
  }
}
