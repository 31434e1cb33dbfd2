/** `agt mcp …`: create (add), update, import, test, probe, list, show (get), delete (remove). */
import { parseArgs } from 'node:util';
import { AgtError } from '../errors.js';
import { type CliContext, cliDelete, emit, EXIT, inCli, mcpReference, positional, revisionFlag, shown } from './context.js';
import { importCommand } from './mcp-import.js';
import { noteText, type ProbeNote, readProbeNotes } from './probe-notes.js';
import { probeCommand, testCommand } from './mcp-probe.js';
import { addJsonCommand, createCommand, type McpInvocation, updateCommand } from './mcp-write.js';
import { defined } from '../json.js';

/** Runs an `agt mcp` verb (aliases already resolved); returns the exit code. */
export async function mcpCommand(invocation: McpInvocation, ctx: CliContext): Promise<number> {
  const { verb, args } = invocation;
  if (invocation.command !== undefined && verb !== 'create' && verb !== 'update') {
    throw new AgtError('invalid_input', `agt mcp ${verb} takes no -- COMMAND; only create (add) and update do`);
  }
  switch (verb) {
    case 'create':
      return createCommand(invocation, ctx);
    case 'update':
      return updateCommand(invocation, ctx);
    case 'add-json':
      return addJsonCommand(args, ctx);
    case 'import':
      return importCommand(args, ctx);
    case 'test':
      return testCommand(args, ctx);
    case 'probe':
      return probeCommand(args, ctx);
    case 'list': {
      const { values } = parseArgs({ args, strict: true, options: { category: { type: 'string' } } });
      const records = await ctx.service.list({ kind: 'mcp', ...(values.category ? { category: values.category } : {}) });
      const rows = records.map((r) => shown(ctx, r));
      const notes = readProbeNotes(ctx.storeFile);
      emit(ctx, rows, () =>
        rows.length === 0 ? 'no mcp servers registered' : rows.map((r) => listLine(r, notes[r.reference])).join('\n'),
      );
      return records.some((r) => r.problem) ? EXIT.failed : EXIT.ok; // the readable rows are listed; an unreadable one is a problem
    }
    case 'show': {
      const reference = mcpReference(positional(args, 'agt mcp show <reference>'));
      const record = shown(ctx, await inCli(ctx.service.read({ kind: 'mcp', reference }), 'mcp', reference));
      emit(ctx, record, () => JSON.stringify(record, null, 2));
      return EXIT.ok;
    }
    case 'delete': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        strict: true,
        options: { 'expected-revision': { type: 'string' } },
      });
      const reference = mcpReference(positionals[0] ?? positional([], 'agt mcp delete <reference> [--expected-revision N]'));
      const expected = revisionFlag(values['expected-revision']);
      await cliDelete(ctx, { kind: 'mcp', reference, ...defined({ expectedRevision: expected }) });
      emit(ctx, { deleted: reference }, () => `deleted ${reference}`);
      return EXIT.ok;
    }
    default:
      throw new AgtError('invalid_input', `unknown command "agt mcp ${verb}"; see agt mcp --help`);
  }
}

// One server per line: reference, transport, what it runs or where it is (as shown: secrets masked), revision.
function listLine(
  record: { reference: string; revision: number; data: unknown; problem?: { message: string } },
  note: ProbeNote | undefined,
): string {
  if (record.problem) return `${record.reference}  ! ${record.problem.message}`;
  const servers = (record.data as { mcpServers?: Record<string, Record<string, unknown>> } | null)?.mcpServers ?? {};
  const config = Object.values(servers)[0] ?? {};
  const where =
    typeof config.url === 'string'
      ? `${String(config.transport ?? 'streamable-http')}  ${config.url}`
      : `stdio  ${[config.command, ...(Array.isArray(config.args) ? config.args : [])].map(String).join(' ')}`;
  return `${record.reference}  ${where}  (revision ${record.revision})  ${noteText(Object.hasOwn(notesOwn(note), 'revision') ? note : undefined, record.revision)}`;
}

// A note read from a file is data: only a plain object counts.
function notesOwn(note: unknown): object {
  return typeof note === 'object' && note !== null ? note : {};
}
