/**
 * Output schemas of kit tools: a tool that declares `output` has every result
 * checked before it is sent — structured content present, a JSON object, and
 * valid for the published outputSchema (the registry's validator, as clients
 * check it). A broken result is the server's bug: the client gets
 * `output_invalid` with paths, never values.
 */
import { AgtError } from '../errors.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CompiledToolSchema } from '../schema/registry.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { declaredNames, serverSafeIssues } from '../schema/issues.js';
import type { ServableTool } from './define-tool.js';

const registry = new ToolSchemaRegistry();

/** The compiled outputSchema of a tool that declares one, and the property names it declares. */
export function compiledOutput(tool: ServableTool): { schema: CompiledToolSchema; names: ReadonlySet<string> } {
  return {
    schema: registry.compile(tool.outputSchema, { tool: tool.name, part: 'outputSchema' }),
    names: declaredNames(tool.outputSchema),
  };
}

/** What is wrong with a result of a tool with an outputSchema, or undefined (error results are not checked, as in MCP). */
export function outputProblem(
  tool: string,
  result: CallToolResult,
  output: { schema: CompiledToolSchema; names: ReadonlySet<string> } | undefined,
): AgtError | undefined {
  if (output === undefined || result.isError === true) return undefined;
  if (result.structuredContent === undefined) {
    return new AgtError('output_invalid', `tool "${tool}" declares an outputSchema, but its result has no structured content`, {
      details: { issues: [] },
    });
  }
  const validation = output.schema.validate(result.structuredContent);
  if (validation.ok) return undefined;
  const issues = serverSafeIssues(validation.issues, output.names); // the handler's own keys are data: never in the message
  const first = issues[0];
  return new AgtError(
    'output_invalid',
    `tool "${tool}" returned a result that does not match its outputSchema${first?.instancePath ? ` at "${first.instancePath}"` : ''}: ${first?.message ?? 'invalid'}`,
    { details: { issues: issues.map((i) => ({ instancePath: i.instancePath, schemaPath: i.schemaPath, keyword: i.keyword })) } },
  );
}
