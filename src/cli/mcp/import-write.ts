/** Writing one imported document, for both forms of `agt mcp import` (a host's config file, a server.json). */
import { isAgtError } from '../../errors.js';
import { canonicalJson } from '../../schema/canonical.js';
import { type CliContext, cliWrite } from '../context.js';

/** What happened to one entry. */
export interface Outcome {
  reference: string;
  status: 'imported' | 'updated' | 'unchanged' | 'changed' | 'would_import' | 'would_update' | 'needs_fixing' | 'failed';
  problems: string[];
  warnings: string[];
}

/** Writes one imported document under `reference`: created, unchanged, or replaced only with --update. */
export async function importOne(
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
