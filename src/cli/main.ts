#!/usr/bin/env node
/**
 * `agt`: the command line over the same services the framework tools use
 * (R2, P2, A3, A6, A7). It parses arguments and prints; nothing else.
 */
import { type AgtErrorCode, isAgtError } from '../errors.js';
import { agentCommand } from './agent-commands.js';
import { type CliContext, EXIT, openContext, printable } from './context.js';
import { mcpCommand } from './mcp-commands.js';

const HELP = `agt — register, test, probe and assemble MCP servers

  agt mcp create <ref> --command C [--arg A]… --cwd DIR [--env K=V]…
  agt mcp create <ref> --url U [--header K:V]… [--transport sse]
  agt mcp create <ref> --from FILE.json          a { "mcpServers": { … } } document
  agt mcp import FILE [--category C] [--cwd DIR] [--dry-run]
  agt mcp test <ref>                             static check, starts nothing
  agt mcp probe <ref>                            starts the server (runs its command on this host)
  agt mcp list [--category C] | show <ref> | delete <ref> [--expected-revision N]
  agt agent create <ref> [--name N] [--role manager|worker] [--kind native|harness] [--capability C]… [--mcp REF]…
                         [--model M] [--provider P] [--base-prompt T] [--disabled]
  agt agent update <ref> [--add-mcp X]… [--remove-mcp Y]… [--expected-revision N] [--name N] [--enable|--disable]
  agt agent show <ref> | mcp-list <ref>

Every command: --json (machine output), --store PATH (default $AGT_HOME/agt.db, else ~/.agt/agt.db), --debug,
--show-secrets (print env and header values; otherwise they are shown as ***).
Exit codes: 0 ok, 1 a check or probe failed, 2 usage or invalid input, 3 not found / exists / revision conflict,
4 the server could not be started or reached, 5 the store is unavailable.`;

// Every code has its exit (the type makes a new code a compile error here until it is mapped).
const CODE_EXIT: Record<AgtErrorCode, number> = {
  invalid_input: EXIT.usage, option_removed: EXIT.usage, invalid_config: EXIT.usage, schema_load_failed: EXIT.failed, forbidden: EXIT.failed,
  not_found: EXIT.conflict, already_exists: EXIT.conflict, revision_conflict: EXIT.conflict, fingerprint_mismatch: EXIT.conflict,
  spawn_failed: EXIT.launch, exited_early: EXIT.launch, handshake_timeout: EXIT.launch, protocol_error: EXIT.launch, connection_closed: EXIT.launch,
  auth_required: EXIT.launch, call_timeout: EXIT.launch, cancelled: EXIT.failed, batch_rejected: EXIT.failed, output_invalid: EXIT.failed,
  store_unavailable: EXIT.store,
};

// `--arg -y` would read as an option: a dash-led value after --arg is taken as the value.
function dashValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (argv[i] === '--arg' && next !== undefined && next.startsWith('-') && next !== '--') {
      out.push(`--arg=${next}`);
      i += 1;
    } else out.push(argv[i] as string);
  }
  return out;
}

/** Runs `agt` with these arguments; returns the exit code. */
export async function main(rawArgv: string[]): Promise<number> {
  const argv = dashValues(rawArgv);
  const debug = argv.includes('--debug');
  const json = argv.includes('--json');
  const showSecrets = argv.includes('--show-secrets');
  // A7: the old master switch fails loudly wherever it appears.
  if (argv.some((a) => a === '--allow-mcp' || a.startsWith('--allow-mcp='))) {
    process.stderr.write('agt: --allow-mcp was removed: an agent\'s MCP access is its mounts and the permission policy. Stop passing --allow-mcp.\n');
    return EXIT.usage;
  }
  const storeAt = argv.indexOf('--store');
  const store = storeAt >= 0 ? argv[storeAt + 1] : undefined;
  const rest = argv.filter((a, i) => a !== '--json' && a !== '--debug' && a !== '--show-secrets' && !(i === storeAt || (storeAt >= 0 && i === storeAt + 1)));
  const [group, sub, ...args] = rest;
  if (group === undefined || group === '--help' || group === '-h' || group === 'help') {
    process.stdout.write(`${HELP}\n`);
    return group === undefined ? EXIT.usage : EXIT.ok;
  }
  let ctx: CliContext | undefined;
  try {
    if (group !== 'mcp' && group !== 'agent') {
      process.stderr.write(`agt: unknown command "${group}"; see agt --help\n`);
      return EXIT.usage;
    }
    ctx = openContext({ ...(store ? { store } : {}), json, showSecrets });
    return group === 'mcp' ? await mcpCommand(sub, args, ctx) : await agentCommand(sub, args, ctx);
  } catch (error) {
    if (debug) process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    if (isAgtError(error)) {
      if (json) process.stdout.write(`${JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } }, null, 2)}\n`);
      process.stderr.write(`agt: ${error.code}: ${printable(error.message)}\n`);
      return CODE_EXIT[error.code];
    }
    const code = (error as { code?: string })?.code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`agt: ${(error as Error).message}; see agt --help\n`);
      return EXIT.usage;
    }
    process.stderr.write(`agt: unexpected error: ${(error as Error)?.message ?? String(error)}${debug ? '' : ' (run with --debug for details)'}\n`);
    return EXIT.failed;
  } finally {
    await ctx?.store.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
