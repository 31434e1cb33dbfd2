/**
 * `agt mcp import server.json [REF]`: a server as the MCP Registry publishes
 * it, registered as one mcp resource. Only configuration is written: the
 * package is neither installed nor started (`agt mcp probe REF` starts it).
 */
import path from 'node:path';
import { AgtError, isAgtError } from '../../errors.js';
import { importServerJson, type ServerJsonImportOptions } from '../../config/server-json/import.js';
import { documentInputs } from '../../config/variables.js';
import { oneLine } from '../../outside-text.js';
import { isReference } from '../../resources/reference.js';
import { type CliContext, emit, EXIT } from '../context.js';
import { importOne } from './import-write.js';

const USAGE =
  'usage: agt mcp import server.json [REF] [--package TYPE | --remote [--transport T]] [--category C] [--cwd DIR] [--dry-run] [--update]';

/** The flags only the server.json form takes. */
export const SERVER_JSON_OPTIONS = {
  package: { type: 'string' },
  remote: { type: 'boolean' },
  transport: { type: 'string' },
} as const;

/** The flags of `agt mcp import`, as parsed. */
interface ImportFlags {
  category?: string;
  cwd?: string;
  'dry-run'?: boolean;
  update?: boolean;
  package?: string;
  remote?: boolean;
  transport?: string;
}

/** Runs the server.json form of `agt mcp import` on a parsed file; returns the exit code. */
export async function importServerJsonCommand(file: unknown, values: ImportFlags, positionals: string[], ctx: CliContext): Promise<number> {
  if (positionals.length > 2) throw new AgtError('invalid_input', USAGE, { details: { reason: 'usage' } });
  if (values.package !== undefined && (values.remote || values.transport !== undefined))
    throw new AgtError('invalid_input', 'give --package TYPE or --remote, not both', {
      details: { field: '--package', reason: 'conflicting_options' },
    });
  if (values.transport !== undefined && values.transport !== 'streamable-http' && values.transport !== 'sse')
    throw new AgtError('invalid_input', '--transport must be streamable-http or sse', {
      details: { field: '--transport', reason: 'unsupported_transport' },
    });
  const cwd = path.resolve(values.cwd ?? process.cwd());
  const options: ServerJsonImportOptions = {
    cwd,
    ...(values.package !== undefined ? { packageType: values.package } : {}),
    ...(values.transport !== undefined ? { remote: values.transport } : values.remote ? { remote: true } : {}),
  };
  const imported = importServerJson(file, options);
  const reference = positionals[1] ?? `${values.category ?? 'imported'}/${imported.suggestedName}`;
  if (!isReference(reference))
    throw new AgtError('invalid_input', oneLine`"${reference}" is not a reference (CATEGORY/NAME); give another REF`, {
      details: { field: 'REF', reason: 'bad_reference' },
    });
  const inputs = documentInputs(imported.document);
  let outcome;
  try {
    outcome = await importOne(ctx, reference, imported.document, values);
  } catch (error) {
    outcome = { status: 'failed' as const, problems: [isAgtError(error) ? error.message : 'the write failed'] };
  }
  const problems = outcome.problems ?? [];
  const usesCwd = imported.source.kind === 'package' && values.cwd === undefined;
  emit(
    ctx,
    {
      format: 'server.json',
      name: imported.name,
      source: imported.source,
      entries: [{ reference, status: outcome.status, problems, warnings: imported.warnings }],
      inputs: inputs.map((i) => ({ id: i.id, secret: i.password === true })),
      alternatives: imported.alternatives,
      ...(usesCwd ? { cwd } : {}),
    },
    () =>
      [
        oneLine`${outcome.status.padEnd(12)} ${reference}  (${imported.name}: ${sourceLine(imported.source)})`,
        ...problems.map((p) => oneLine`             - ${p}`),
        ...imported.warnings.map((w) => oneLine`             warning: ${w}`),
        ...(usesCwd ? [oneLine`cwd: ${cwd} (the folder it starts in; give --cwd DIR for another)`] : []),
        ...(inputs.length > 0
          ? [
              oneLine`asks at launch for: ${inputs.map((i) => `${i.id}${i.password ? ' (secret)' : ''}`).join(', ')} (--input ID=VALUE, or inputs in code)`,
            ]
          : []),
        ...(imported.alternatives.length > 0
          ? [oneLine`also offered: ${imported.alternatives.join('; ')} (take one with --package TYPE or --remote)`]
          : []),
        ...(outcome.status === 'imported' || outcome.status === 'updated'
          ? [oneLine`nothing was installed or started; try it: agt mcp probe ${reference}`]
          : []),
      ].join('\n'),
  );
  return ['imported', 'updated', 'unchanged', 'would_import', 'would_update'].includes(outcome.status) ? EXIT.ok : EXIT.failed;
}

function sourceLine(source: ReturnType<typeof importServerJson>['source']): string {
  return source.kind === 'package'
    ? `${source.registryType} ${source.identifier}${source.version !== undefined ? `@${source.version}` : ''}`
    : `remote ${source.type} ${source.url}`;
}
