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
import { canonicalJson } from '../../schema/canonical.js';
import { type CliContext, cliWrite, emit, EXIT } from '../context.js';
import { readConfigFile } from '../files.js';

/** What happened to one entry. */
interface Outcome {
  reference: string;
  status: 'imported' | 'updated' | 'unchanged' | 'changed' | 'would_import' | 'would_update' | 'needs_fixing' | 'failed';
  problems: string[];
  warnings: string[];
}

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

const FINE = new Set<Outcome['status']>(['imported', 'updated', 'unchanged', 'would_import', 'would_update']);

/** Runs `agt mcp import`; returns the exit code. */
export async function importCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { category: { type: 'string' }, cwd: { type: 'string' }, 'dry-run': { type: 'boolean' }, update: { type: 'boolean' } },
  });
  if (!positionals[0])
    throw new AgtError(
      'invalid_input',
      'usage: agt mcp import FILE [--category C] [--cwd DIR] [--dry-run] [--update]  (agt mcp import --help)',
    );
  const cwd = values.cwd ? path.resolve(values.cwd) : workspaceOf(positionals[0]);
  const plan = planImport(await readConfigFile(positionals[0]), {
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

async function importOne(
  ctx: CliContext,
  reference: string,
  document: unknown,
  flags: { 'dry-run'?: boolean; update?: boolean },
): Promise<Pick<Outcome, 'status'> & Partial<Outcome>> {
  const current = await ctx.service.read({ kind: 'mcp', reference }).catch((error: unknown) => {
    if (isAgtError(error) && error.code === 'not_found') return undefined;
    throw error;
  });
  if (current === undefined) {
    if (flags['dry-run']) return { status: 'would_import' };
    await cliWrite(ctx, { kind: 'mcp', reference, create: true, data: document });
    return { status: 'imported' };
  }
  if (canonicalJson(current.data) === canonicalJson(document)) return { status: 'unchanged' }; // same JSON, whatever the key order
  if (!flags.update)
    return {
      status: 'changed',
      problems: [
        `differs from the stored config (revision ${current.revision}); re-run with --update to replace it, or look first with \`agt mcp show ${reference}\``,
      ],
    };
  if (flags['dry-run']) return { status: 'would_update' };
  await cliWrite(ctx, { kind: 'mcp', reference, data: document, expectedRevision: current.revision });
  return { status: 'updated' };
}

function outcomeLines(o: Outcome): string {
  return [
    oneLine`${o.status.padEnd(12)} ${o.reference}`,
    ...o.problems.map((p) => oneLine`             - ${p}`),
    ...o.warnings.map((w) => oneLine`             warning: ${w}`),
  ].join('\n');
}
