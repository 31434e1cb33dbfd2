/**
 * Valibot as the one source of a tool's schemas (C2), for every tool the
 * library publishes — the kit's (defineTool) and the runtime's framework
 * tools alike. `publishValibot` turns a valibot object schema into the JSON
 * Schema 2020-12 it is published as (said explicitly: @valibot/to-json-schema
 * defaults to draft-07) and refuses what cannot be published faithfully
 * (transforms, custom checks, annotation-only formats), so schema and parser
 * never drift. `parseArguments` parses as a server does: the published schema
 * first, then the valibot shape; `shapeArguments` is the second half alone,
 * for arguments the pipeline's stage 1 already validated.
 */
import { type JsonSchema, type OverrideActionContext, toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { AgtError, isAgtError } from '../../errors.js';
import { REGEX_ANNOTATIONS } from './action-patterns.js';
import type { ArgumentIssue } from '../issues/issues.js';
import { type CompiledToolSchema, ToolSchemaRegistry } from '../registry.js';
import { actionPattern, annotationOnlyActions, runtimeSchema } from './runtime-schema.js';

const registry = new ToolSchemaRegistry();

const OBJECT_SCHEMAS: readonly string[] = ['object', 'strict_object', 'loose_object'];

/** A tool side's valibot object schema as a frozen JSON Schema 2020-12 that loads in the registry; invalid_input saying why when it cannot be published faithfully. */
export function publishValibot(
  name: string,
  side: 'input' | 'output',
  schema: v.GenericSchema,
  definitions?: Record<string, v.GenericSchema>,
): Record<string, unknown> {
  if (!OBJECT_SCHEMAS.includes((schema as { type?: string })?.type ?? '')) {
    throw new AgtError(
      'invalid_input',
      `tool "${name}": ${side} must be a valibot object schema (v.object, v.strictObject or v.looseObject)`,
    );
  }
  const [unchecked] = annotationOnlyActions(schema);
  if (unchecked !== undefined) {
    const [at, action, as] = unchecked;
    throw new AgtError(
      'invalid_input',
      `tool "${name}": the ${side} schema at "${at}" uses the valibot action "${action}", published as ${as}: JSON Schema treats that as an annotation and checks nothing, so the published schema and the server would disagree. Say what you mean with v.regex(/…/) (published as a pattern, checked on both sides), or check it in the handler and report it with toolError()`,
      { details: { tool: name, path: at, action } },
    );
  }
  let json: Record<string, unknown>;
  try {
    json = toJsonSchema(schema, {
      target: 'draft-2020-12',
      overrideAction: exactPatterns,
      ...(definitions ? { definitions } : {}),
    }) as Record<string, unknown>;
  } catch (error) {
    throw new AgtError(
      'invalid_input',
      `tool "${name}": its ${side} schema cannot be published as JSON Schema (${(error as Error).message}); the published schema and the parser would drift. Express the rule with JSON-Schema-compatible actions, or check it in the handler and report it with toolError()`,
      { cause: error },
    );
  }
  try {
    registry.compile(json, { tool: name, part: side === 'input' ? 'inputSchema' : 'outputSchema' });
  } catch (error) {
    if (isAgtError(error))
      throw new AgtError('invalid_input', `tool "${name}": the generated ${side}Schema does not load: ${error.message}`, { cause: error });
    throw error;
  }
  return Object.freeze(json);
}

// A regex-checked action (v.email(), v.isoDate(), v.regex(/…/i) …) published as its exact pattern, where one exists (C2).
function exactPatterns({ valibotAction: action, jsonSchema, errors }: OverrideActionContext): JsonSchema | undefined {
  const known = REGEX_ANNOTATIONS[action.type];
  if (known === undefined && action.type !== 'regex') return undefined;
  const pattern = actionPattern(action as { requirement?: unknown });
  if (pattern === undefined) return undefined;
  // One string, two patterns: JSON Schema has one `pattern` per schema, and dropping either would check less than valibot.
  const twice = action.type === 'regex' ? (errors ?? []).some((e) => e.includes('combination')) : jsonSchema.pattern !== undefined;
  if (twice) throw new Error(`the "${action.type}" action cannot be combined with another pattern on the same string`);
  const { format, ...rest } = jsonSchema;
  return { ...rest, ...(known?.keepFormat && format !== undefined ? { format } : {}), pattern };
}

// A valibot issue's path as a JSON Pointer (RFC 6901), the instancePath of ArgumentIssue.
function pointer(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? []).map((item) => `/${String(item.key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

const compiled = new WeakMap<object, CompiledToolSchema>();
const shapes = new WeakMap<v.GenericSchema, v.GenericSchema>();

/** What parsing a tool's arguments gives: the typed value, or the issues (paths and expectations, never values). */
export type ParsedArguments<S extends v.GenericSchema> = { ok: true; value: v.InferOutput<S> } | { ok: false; issues: ArgumentIssue[] };

/**
 * Parses arguments as the server does: first against the published
 * inputSchema with the ToolSchemaRegistry (the validator hosts use), then
 * with the tool's valibot schema, typed by it. Issues have the validator's
 * shape (`instancePath`, `schemaPath`, JSON Schema `keyword`, `message`) and
 * carry paths and expectations, never values.
 */
export function parseArguments<S extends v.GenericSchema>(
  tool: { name?: string; input: S; inputSchema?: Record<string, unknown> },
  args: unknown,
): ParsedArguments<S> {
  const value = args === undefined ? {} : args; // missing arguments are {} (MCP); null is not an object
  if (tool.inputSchema !== undefined) {
    let validator = compiled.get(tool);
    if (validator === undefined) compiled.set(tool, (validator = registry.compile(tool.inputSchema, { tool: tool.name ?? 'tool' })));
    const checked = validator.validate(value);
    if (!checked.ok) return { ok: false, issues: [...checked.issues] };
  }
  return shapeArguments(tool, value);
}

/**
 * The valibot half of {@link parseArguments} alone, for arguments already
 * validated against the published inputSchema (the pipeline's stage 1): the
 * schema stripped of its checks only shapes them (defaults, unknown keys of
 * `v.object` dropped), so it cannot reject what the validator accepted.
 */
export function shapeArguments<S extends v.GenericSchema>(
  tool: { input: S; inputSchema?: Record<string, unknown> },
  args: unknown,
): ParsedArguments<S> {
  const value = args === undefined ? {} : args;
  let shape = shapes.get(tool.input);
  if (shape === undefined) shapes.set(tool.input, (shape = tool.inputSchema === undefined ? tool.input : runtimeSchema(tool.input)));
  const parsed = v.safeParse(shape, value);
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
