/**
 * Importing MCP server configs written by other hosts: Claude Desktop / Claude
 * Code and Cursor (`{ mcpServers: { NAME: {...} } }`) and VS Code
 * (`{ servers: { NAME: { type, ... } }, inputs: [...] }`). Each entry becomes
 * one mcp document — its placeholders kept as written (resolved at launch), the
 * VS Code inputs it refers to carried with it — or a list of what must be fixed
 * first: broken entries are reported, never imported silently.
 */
import { MAX_NAME_LENGTH } from '../bounds.js';
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { launchProblems } from '../config/launch-rules.js';
import { type DeclaredInput, type McpDocument, normaliseMcpDocument, writtenDocument } from '../config/mcp-config.js';
import { isReference } from './reference.js';
import { inputsUsedBy } from '../config/variables.js';

/** One entry of an imported file. */
export interface ImportEntry {
  name: string;
  reference: string;
  /** Present when the entry can be registered as it is. */
  document?: McpDocument;
  /** What must be fixed first (the entry is not imported). */
  problems: string[];
  /** What a write of the document would warn about (unknown keys, unsupported placeholders). */
  warnings: string[];
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
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, MAX_NAME_LENGTH);
  return cleaned === '' ? 'server' : cleaned;
}

// VS Code's top-level "inputs" (promptString): those an entry refers to go into its document.
function declaredInputs(file: Record<string, unknown>): DeclaredInput[] {
  if (!Array.isArray(file.inputs)) return [];
  return file.inputs
    .filter((i): i is DeclaredInput => isPlainObject(i) && typeof i.id === 'string' && i.id !== '')
    .map((i) => ({
      id: i.id,
      ...(i.type === 'promptString' ? { type: i.type } : {}),
      ...(typeof i.description === 'string' ? { description: i.description } : {}),
      ...(typeof i.password === 'boolean' ? { password: i.password } : {}),
    }));
}

/** Plans the import of a parsed config file: one entry per server. */
export function planImport(file: unknown, options: ImportOptions = {}): { format: ImportFormat; entries: ImportEntry[] } {
  if (!isPlainObject(file))
    throw new AgtError('invalid_input', 'the file must hold a JSON object like { "mcpServers": { … } }', {
      details: { reason: 'not_an_object' },
    });
  const format: ImportFormat | undefined = isPlainObject(file.mcpServers)
    ? 'mcpServers'
    : isPlainObject(file.servers)
      ? 'vscode'
      : undefined;
  if (format === undefined) {
    throw new AgtError('invalid_input', 'no "mcpServers" (Claude, Cursor) or "servers" (VS Code) object in the file', {
      details: { reason: 'no_servers' },
    });
  }
  const servers = (format === 'mcpServers' ? file.mcpServers : file.servers) as Record<string, unknown>;
  const category = options.category ?? 'imported';
  const declared = declaredInputs(file);
  const entries = Object.entries(servers).map(([name, raw]): ImportEntry => {
    const reference = `${category}/${referenceName(name)}`;
    const problems: string[] = [];
    if (!isReference(reference)) problems.push(`"${reference}" is not a valid reference; choose another --category`);
    let config = raw;
    if (isPlainObject(config) && config.command !== undefined && config.cwd === undefined && options.cwd !== undefined)
      config = { ...config, cwd: options.cwd };
    const inputs = isPlainObject(config) ? inputsUsedBy(config, declared) : [];
    let normalised;
    try {
      const serverName = name.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'server';
      normalised = normaliseMcpDocument({ mcpServers: { [serverName]: config }, ...(inputs.length > 0 ? { inputs } : {}) });
    } catch (error) {
      return { name, reference, problems: [...problems, (error as Error).message], warnings: [] };
    }
    for (const p of launchProblems(normalised.config, name))
      problems.push(`${p.message}; fix: ${p.fix}${p.field.endsWith('.cwd') ? ' (or pass --cwd DIR)' : ''}`);
    const { warnings } = normalised;
    const document = writtenDocument(normalised);
    return problems.length > 0 || document === undefined
      ? { name, reference, problems, warnings }
      : { name, reference, document, problems, warnings };
  });
  return { format, entries };
}
