/**
 * What a probe lists (P2): the tools, judged one by one (names, schemas: a
 * failure fails the probe), and — side by side — the resources, prompts and
 * skills the server declares (a failure is reported in the list's entry).
 */
import { isAgtError, type AgtError, type ResultErrorCode } from '../../errors.js';
import { defined } from '../../json.js';
import { MAX_TOOL_NAME_LENGTH } from '../../bounds.js';
import type { ToolSchemaRegistry } from '../../schema/registry.js';
import type { McpConnection } from '../connection.js';
import type { RawTool } from '../requests/lists.js';
import type { Dialect } from '../../schema/compile/dialects.js';
import type { ToolAnnotations } from '../requests/lists.js';
import { compileToolSchemas } from './tool-schemas.js';
import { type AppVisibility, readToolUi } from '../apps/ui-meta.js';

/** A problem of one tool: its name (duplicate_name, invalid_name) or a schema that does not load (schema_load_failed). */
export interface ProbedSchemaError {
  code: ResultErrorCode;
  message: string;
  schemaPath?: string;
}

/** A tool's interface as the probe found it (MCP Apps): the tool, its `ui://` resource, who may call it. */
export interface ProbedApp {
  tool: string;
  resourceUri: string;
  visibility: AppVisibility[];
}

/** One tool as the probe judged it. */
export interface ProbedTool {
  name: string;
  /** True when its name is usable and its inputSchema (and outputSchema, if any) loaded. */
  ok: boolean;
  dialect?: Dialect;
  description?: string;
  error?: ProbedSchemaError;
  /** Present when the tool declares an outputSchema. */
  output?: { dialect?: Dialect; error?: ProbedSchemaError };
  annotations?: ToolAnnotations;
}

// A tool name as MCP recommends it: 1–128 of A–Z a–z 0–9 _ - . /
const TOOL_NAME = new RegExp(`^[A-Za-z0-9_./-]{1,${MAX_TOOL_NAME_LENGTH}}$`);

// Tools (a failure fails the probe), and the resources and prompts the server declares
// (a failure is reported in the list's entry), fetched side by side.
/** Lists what the server declares, side by side. */
export async function probeLists(connection: McpConnection) {
  const started = performance.now();
  const declares = (capability: string) =>
    typeof connection.capabilities[capability] === 'object' && connection.capabilities[capability] !== null;
  const counted = async (...lists: (() => Promise<unknown[]>)[]) => {
    try {
      const counts = await Promise.all(lists.map(async (l) => (await l()).length));
      return { counts };
    } catch (error) {
      return { counts: lists.map(() => 0), error: isAgtError(error) ? error.message : 'the list could not be read' };
    }
  };
  const skills = connection.servesSkills()
    ? connection.listSkills().then(
        (l) => l.skills.map((s) => ({ uri: s.uri, name: s.name, description: s.description })),
        (error: unknown) => (isAgtError(error) ? error.message : 'the skills could not be listed'),
      )
    : undefined;
  const [tools, resources, prompts, skillList] = await Promise.all([
    connection.listTools(),
    declares('resources')
      ? counted(
          () => connection.listResources(),
          () => connection.listResourceTemplates(),
        )
      : undefined,
    declares('prompts') ? counted(() => connection.listPrompts()) : undefined,
    skills,
  ]);
  return {
    tools,
    ...defined({
      skills: typeof skillList === 'string' ? undefined : skillList,
      skillsError: typeof skillList === 'string' ? skillList : undefined,
    }),
    listMs: performance.now() - started,
    ...(resources
      ? {
          resources: {
            count: resources.counts[0] ?? 0,
            templates: resources.counts[1] ?? 0,
            ...(resources.error ? { error: resources.error } : {}),
          },
        }
      : {}),
    ...(prompts ? { prompts: { count: prompts.counts[0] ?? 0, ...(prompts.error ? { error: prompts.error } : {}) } } : {}),
  };
}

function schemaError(error: AgtError): ProbedSchemaError {
  const schemaPath = typeof error.details?.schemaPath === 'string' ? error.details.schemaPath : undefined;
  return { code: error.code, message: error.message, ...defined({ schemaPath }) };
}

/** Each tool judged: a unique, valid name and schemas that load. */
export function judge(raw: RawTool[], registry: ToolSchemaRegistry): ProbedTool[] {
  const counts = new Map<string, number>();
  for (const tool of raw) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  return raw.map((tool): ProbedTool => {
    const base = {
      name: tool.name,
      ...defined({ description: tool.description }),
      ...defined({ annotations: tool.annotations }),
    };
    if ((counts.get(tool.name) ?? 0) > 1) {
      return {
        ...base,
        ok: false,
        error: { code: 'duplicate_name', message: 'another tool of this server has the same name; calls would be ambiguous' },
      };
    }
    if (!TOOL_NAME.test(tool.name)) {
      return {
        ...base,
        ok: false,
        error: {
          code: 'invalid_name',
          message: `a tool name must be 1-${MAX_TOOL_NAME_LENGTH} characters of letters, digits, "_", "-", "." or "/"`,
        },
      };
    }
    const schemas = compileToolSchemas(tool, registry);
    if (!schemas.ok && schemas.part === 'inputSchema') return { ...base, ok: false, error: schemaError(schemas.error) };
    const dialect = schemas.input.dialect;
    if (!schemas.ok) return { ...base, ok: false, dialect, output: { error: schemaError(schemas.error) } };
    const output = schemas.output ? { output: { dialect: schemas.output.dialect } } : {};
    // A malformed `_meta.ui` (MCP Apps): a run gives the tool to nobody, so the probe fails it, naming the field.
    const ui = readToolUi(tool._meta);
    if (!ui.ok) return { ...base, ok: false, dialect, ...output, error: { code: 'protocol_error', message: `${ui.field} ${ui.message}` } };
    return { ...base, ok: true, dialect, ...output };
  });
}

/** The interfaces the tools declare (MCP Apps), one per tool with a well-formed `_meta.ui.resourceUri`. */
export function appsOf(raw: RawTool[]): ProbedApp[] {
  return raw.flatMap((tool) => {
    const read = readToolUi(tool._meta);
    if (!read.ok || read.ui?.resourceUri === undefined) return [];
    return [{ tool: tool.name, resourceUri: read.ui.resourceUri, visibility: [...read.ui.visibility] }];
  });
}
