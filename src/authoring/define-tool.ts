/**
 * defineTool (C2): one valibot object schema is the single source of a tool's
 * arguments. The published inputSchema is generated from it (JSON Schema
 * 2020-12, said explicitly: @valibot/to-json-schema defaults to draft-07) and
 * the server parses incoming arguments with the very same schema. Anything
 * valibot cannot express in JSON Schema (transforms, custom checks) fails at
 * definition time, so the two can never drift.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { AgtError, isAgtError, ToolErrorSignal } from '../errors.js';

export { ToolErrorSignal } from '../errors.js';
import { MODEL_TOOL_NAME } from '../tool-names.js';
import type { HandlerOutput } from '../results.js';
import type { ArgumentIssue } from '../schema/issues.js';
import { ToolSchemaRegistry } from '../schema/registry.js';

/** What a handler gets besides its typed input. */
export interface ToolContext {
  /** The request's `_meta`, if the client sent one. */
  meta: Readonly<Record<string, unknown>>;
  /** Who is calling, from `_meta.caller` (a string or an object), if present. */
  caller: unknown;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
}

/**
 * What a handler may return: text; data (any other object: sent as JSON text
 * and as structuredContent, whatever its fields); or an MCP tool result —
 * `toolResult({ content, structuredContent?, isError? })`, or an object of
 * exactly those fields — sent as given, `isError` included.
 */
export type ToolOutput = HandlerOutput;

/** A tool definition, ready to serve. */
export interface DefinedTool<S extends v.GenericSchema = v.GenericSchema> {
  readonly name: string;
  readonly description: string;
  readonly input: S;
  /** Generated from `input`; never hand-written. */
  readonly inputSchema: Record<string, unknown>;
  readonly handler: (input: v.InferOutput<S>, context: ToolContext) => ToolOutput | Promise<ToolOutput>;
}

/** Any defined tool, whatever its input type: what a server serves. */
export interface ServableTool {
  readonly name: string;
  readonly description: string;
  readonly input: v.GenericSchema;
  readonly inputSchema: Record<string, unknown>;
  readonly handler: (input: never, context: ToolContext) => ToolOutput | Promise<ToolOutput>;
}

/** Throws a tool error from a handler: `throw toolError('not_found', 'no such ticket')` or just `toolError(...)`. */
export function toolError(code: string, message: string, details?: Record<string, unknown>): never {
  throw new ToolErrorSignal(code, message, details);
}

const registry = new ToolSchemaRegistry();

/** Defines a tool from one valibot object schema; throws invalid_input when the schema cannot be published faithfully. */
export function defineTool<S extends v.GenericSchema>(definition: {
  name: string;
  description: string;
  input: S;
  handler: (input: v.InferOutput<S>, context: ToolContext) => ToolOutput | Promise<ToolOutput>;
}): DefinedTool<S> {
  const { name, description, input, handler } = definition;
  if (typeof name !== 'string' || !MODEL_TOOL_NAME.test(name))
    throw new AgtError('invalid_input', `tool name "${String(name)}" must match ${MODEL_TOOL_NAME}`);
  if (!['object', 'strict_object', 'loose_object'].includes((input as { type?: string })?.type ?? '')) {
    throw new AgtError(
      'invalid_input',
      `tool "${name}": input must be a valibot object schema (v.object, v.strictObject or v.looseObject)`,
    );
  }
  let inputSchema: Record<string, unknown>;
  try {
    inputSchema = toJsonSchema(input, { target: 'draft-2020-12' }) as Record<string, unknown>;
  } catch (error) {
    throw new AgtError(
      'invalid_input',
      `tool "${name}": its input schema cannot be published as JSON Schema (${(error as Error).message}); the published schema and the parser would drift. Express the rule with JSON-Schema-compatible actions, or check it in the handler and report it with toolError()`,
      {
        cause: error,
      },
    );
  }
  try {
    registry.compile(inputSchema, { tool: name });
  } catch (error) {
    if (isAgtError(error))
      throw new AgtError('invalid_input', `tool "${name}": the generated inputSchema does not load: ${error.message}`, { cause: error });
    throw error;
  }
  return Object.freeze({ name, description, input, inputSchema: Object.freeze(inputSchema), handler });
}

// A valibot issue's path as a JSON Pointer (RFC 6901), the instancePath of ArgumentIssue.
function pointer(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? []).map((item) => `/${String(item.key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/**
 * Parses arguments with the tool's own schema, typed by it. Issues have the
 * shape of the validator's (`instancePath`, `schemaPath`, `keyword`,
 * `message`) and carry paths and expectations, never values.
 */
export function parseArguments<S extends v.GenericSchema>(
  tool: { input: S },
  args: unknown,
): { ok: true; value: v.InferOutput<S> } | { ok: false; issues: ArgumentIssue[] } {
  const parsed = v.safeParse(tool.input, args ?? {});
  if (parsed.success) return { ok: true, value: parsed.output };
  return {
    ok: false,
    issues: parsed.issues.map((issue) => {
      const instancePath = pointer(issue);
      const message =
        issue.kind === 'schema' && issue.type === 'object' && instancePath === ''
          ? 'arguments must be an object'
          : issue.expected
            ? `expected ${issue.expected}`
            : `failed "${issue.type}"`;
      return { instancePath, schemaPath: '', keyword: issue.type, message };
    }),
  };
}
