/**
 * `agt mcp import FILE`: every server of another host's config file. Re-running
 * it is safe: entries stored the same are "unchanged", changed ones are
 * replaced only with --update, and each entry's outcome is its own.
 */
import { oneLine } from '../../outside-text.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AgtError, isAgtError } from '../../errors.js';
import { planImport } from '../../resources/import.js';
import { type CliContext, emit, EXIT } from '../context.js';
import { importOne, type Outcome } from './import-write.js';
import { readConfigFile } from '../files.js';
import { isServerJson } from '../../config/server-json/import.js';
import { importServerJsonCommand, SERVER_JSON_OPTIONS } from './import-server-json.js';

/**
 * The folder a project config file belongs to, as its host reads it: `.vscode/mcp.json` and
 * `.cursor/mcp.json` belong to the folder above (their `${workspaceFolder}`), a project `.mcp.json`
 * (Claude Code) to its own folder. Other files (Claude Desktop) name no folder: entries need --cwd.
 */
export function workspaceOf(file: string): string | undefined {
  if (file === '-' || file === '/dev/stdin') return undefined;
  const absolute = path.resolve(file);
  const folder = path.dirname(absolute);
  const base = path.basename(absolute);
  if (base === 'mcp.json' && ['.vscode', '.cursor'].includes(path.basename(folder))) return path.dirname(folder);
  if (base === '.mcp.json') return folder;
  return undefined;
}

const IMPORT_OPTIONS = {
  category: { type: 'string' },
  cwd: { type: 'string' },
  'dry-run': { type: 'boolean' },
  update: { type: 'boolean' },
} as const;

const FINE = new Set<Outcome['status']>(['imported', 'updated', 'unchanged', 'would_import', 'would_update']);

/** Runs `agt mcp import`; returns the exit code. */
export async function importCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { ...IMPORT_OPTIONS, ...SERVER_JSON_OPTIONS },
  });
  if (!positionals[0])
    throw new AgtError(
      'invalid_input',
      'usage: agt mcp import FILE [--category C] [--cwd DIR] [--dry-run] [--update]  (agt mcp import --help)',
    );
  const file = await readConfigFile(positionals[0]);
  if (isServerJson(file)) return importServerJsonCommand(file, values, positionals, ctx);
  const extra = Object.keys(SERVER_JSON_OPTIONS).find((k) => Object.hasOwn(values, k));
  if (extra !== undefined || positionals.length > 1)
    throw new AgtError(
      'invalid_input',
      `${extra !== undefined ? `--${extra}` : 'a REF'} is for a server.json (MCP Registry); this file is a host's config: every server in it is imported under --category`,
    );
  const cwd = values.cwd ? path.resolve(values.cwd) : workspaceOf(positionals[0]);
  const plan = planImport(file, {
    ...(values.category ? { category: values.category } : {}),
    ...(cwd ? { cwd } : {}),
  });
  const outcomes: Outcome[] = [];
  for (const entry of plan.entries) {
    const base = { reference: entry.reference, problems: entry.problems, warnings: entry.warnings };
    if (entry.document === undefined) {
      outcomes.push({ ...base, status: 'needs_fixing' });
      continue;
    }
    try {
      outcomes.push({ ...base, ...(await importOne(ctx, entry.reference, entry.document, values)) });
    } catch (error) {
      outcomes.push({ ...base, status: 'failed', problems: [isAgtError(error) ? error.message : 'the write failed'] });
    }
  }
  const inferred = values.cwd === undefined && cwd !== undefined ? cwd : undefined;
  emit(ctx, { format: plan.format, entries: outcomes, ...(inferred ? { cwd: inferred } : {}) }, () =>
    [
      ...(inferred ? [`cwd: ${inferred} (the project folder of this file; give --cwd DIR for another)`] : []),
      ...outcomes.map(outcomeLines),
    ].join('\n'),
  );
  return outcomes.every((o) => FINE.has(o.status)) ? EXIT.ok : EXIT.failed;
}

function outcomeLines(o: Outcome): string {
  return [
    oneLine`${o.status.padEnd(12)} ${o.reference}`,
    ...o.problems.map((p) => oneLine`             - ${p}`),
    ...o.warnings.map((w) => oneLine`             warning: ${w}`),
  ].join('\n');
}
