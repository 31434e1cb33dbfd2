/**
 * Output schemas of kit tools: a tool that declares `output` has every result
 * checked before it is sent — structured content present, a JSON object, and
 * valid for the published outputSchema (the registry's validator, as clients
 * check it). A broken result is the server's bug: the client gets
 * `output_invalid` with paths, never values.
 */
import { AgtError } from '../errors.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { checkStructuredOutput, type OutputCheck, outputCheckOf, outputVerdictMessage } from '../schema/structured-output.js';
import type { ServableTool } from './define-tool.js';

const registry = new ToolSchemaRegistry();

/** The compiled outputSchema of a tool that declares one, and the property names it declares. */
export function compiledOutput(tool: ServableTool): OutputCheck {
  return outputCheckOf(registry.compile(tool.outputSchema, { tool: tool.name, part: 'outputSchema' }), tool.outputSchema);
}

/** What is wrong with a result of a tool with an outputSchema, or undefined (error results are not checked, as in MCP). */
export function outputProblem(tool: string, result: CallToolResult, output: OutputCheck | undefined): AgtError | undefined {
  if (output === undefined || result.isError === true) return undefined;
  const verdict = checkStructuredOutput(result.structuredContent, output);
  if (verdict.ok) return undefined;
  const message = outputVerdictMessage(verdict, tool);
  const issues = verdict.issues.map((i) => ({ instancePath: i.instancePath, schemaPath: i.schemaPath, keyword: i.keyword }));
  return new AgtError('output_invalid', message, { details: { issues } });
}
