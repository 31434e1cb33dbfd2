/**
 * Importing MCP server configs written by other hosts: Claude Desktop / Claude
 * Code and Cursor (`{ mcpServers: { NAME: {...} } }`) and VS Code
 * (`{ servers: { NAME: { type, ... } } }`, `${workspaceFolder}`). Each entry
 * becomes one mcp document, or a list of what must be fixed first — broken
 * entries are reported, never imported silently.
 */
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { launchProblems, type McpDocument, normaliseMcpDocument } from './mcp-config.js';
import { isReference } from './reference.js';

/** One entry of an imported file. */
export interface ImportEntry {
  name: string;
  reference: string;
  /** Present when the entry can be registered as it is. */
  document?: McpDocument;
  /** What must be fixed first (the entry is not imported). */
  problems: string[];
}

/** Options of {@link planImport}. */
export interface ImportOptions {
  /** Category of the created references. Default "imported". */
  category?: string;
  /** Absolute cwd for stdio entries that have none (VS Code and Claude files usually have none). */
  cwd?: string;
}

/** Which host wrote a file. */
export type ImportFormat = 'mcpServers' | 'vscode';

function referenceName(name: string): string {
  const cleaned = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 64);
  return cleaned === '' ? 'server' : cleaned;
}

function replaceVsCodeVariables(value: unknown): unknown {
  if (typeof value === 'string') return value.split('${workspaceFolder}').join('${workspace}');
  if (Array.isArray(value)) return value.map(replaceVsCodeVariables);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceVsCodeVariables(v)]));
  return value;
}

/** Plans the import of a parsed config file: one entry per server. */
export function planImport(file: unknown, options: ImportOptions = {}): { format: ImportFormat; entries: ImportEntry[] } {
  if (!isPlainObject(file)) throw new AgtError('invalid_input', 'the file must hold a JSON object like { "mcpServers": { … } }', { details: { reason: 'not_an_object' } });
  const format: ImportFormat | undefined = isPlainObject(file.mcpServers) ? 'mcpServers' : isPlainObject(file.servers) ? 'vscode' : undefined;
  if (format === undefined) {
    throw new AgtError('invalid_input', 'no "mcpServers" (Claude, Cursor) or "servers" (VS Code) object in the file', { details: { reason: 'no_servers' } });
  }
  const servers = (format === 'mcpServers' ? file.mcpServers : file.servers) as Record<string, unknown>;
  const category = options.category ?? 'imported';
  const entries = Object.entries(servers).map(([name, raw]): ImportEntry => {
    const reference = `${category}/${referenceName(name)}`;
    const problems: string[] = [];
    if (!isReference(reference)) problems.push(`"${reference}" is not a valid reference; choose another --category`);
    let config = format === 'vscode' ? replaceVsCodeVariables(raw) : raw;
    if (isPlainObject(config) && config.command !== undefined && config.cwd === undefined && options.cwd !== undefined) config = { ...config, cwd: options.cwd };
    let normalised;
    try {
      normalised = normaliseMcpDocument({ mcpServers: { [name.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'server']: config } });
    } catch (error) {
      return { name, reference, problems: [...problems, (error as Error).message] };
    }
    for (const p of launchProblems(normalised.config, name)) problems.push(`${p.message}; fix: ${p.fix}${p.field.endsWith('.cwd') ? ' (or pass --cwd DIR)' : ''}`);
    return problems.length > 0 ? { name, reference, problems } : { name, reference, document: normalised.document, problems };
  });
  return { format, entries };
}
