/**
 * What `agt mcp add`, `add-json` and `update` say of a registration beyond
 * the service's own warnings, while still saving it with exit 0 (R1:
 * registering starts nothing): a command that cannot be found now, and agt's
 * flags written after `--`, where they go to the server. With --json they are
 * in the output's `warnings`; otherwise on stderr.
 */
import { commandProblems } from '../../config/config-test.js';
import { isBareCommand } from '../../config/launch-rules.js';
import { isPlainObject } from '../../json.js';
import { oneLine, outsideText } from '../../outside-text.js';
import type { WriteResult } from '../../resources/service.js';
import { type CliContext, emit, shown } from '../context.js';

/** One thing agt says of a write: a `warning` (it will not work as typed) or a `note` (a hint); the message is raw text. */
export interface Told {
  readonly level: 'warning' | 'note';
  readonly message: string;
}

// R1: a command that cannot be found now is still registered (registering starts nothing), but the user hears so at
// once, not at the first probe. The check is `agt mcp test`'s; a placeholder is known only at launch, so a command or
// PATH with one is not checked.
/** A warning for each stdio command of `data` that cannot be found (the check of `agt mcp test`). */
export function missingCommands(reference: string, data: unknown): Told[] {
  const servers = isPlainObject(data) && isPlainObject(data.mcpServers) ? data.mcpServers : {};
  const told: Told[] = [];
  for (const config of Object.values(servers)) {
    if (!isPlainObject(config) || typeof config.command !== 'string') continue;
    const command = config.command;
    const env = (isPlainObject(config.env) ? config.env : {}) as Record<string, string>;
    if (command.includes('${') || String(env.PATH ?? '').includes('${')) continue;
    for (const problem of commandProblems({ command, env }, 'command')) {
      const what = isBareCommand(command) ? problem.message : `${command}: ${problem.message}`;
      const message = `${reference}: ${what}; registered anyway (registering starts nothing): ${problem.fix}; \`agt mcp test ${reference}\` checks again`;
      told.push({ level: 'warning', message });
    }
  }
  return told;
}

// After `--` everything is the server's (documented). agt's flags only agt reads: there they are surely misplaced
// (and the server likely refuses them). Each with its shape before `--`.
const AGT_ONLY: Readonly<Record<string, string>> = { '--store': '--store PATH', '--show-secrets': '--show-secrets' };
// Flags agt reads with `-- COMMAND` that a server may well take too (`--json`, `--debug`, `--env`): only a hint. Not
// here: what agt refuses or ignores with a command (--command, --arg, --url, --from, --header, --transport), and the
// short -e / -H (`docker run -e KEY` is a server's own).
const SHARED: Readonly<Record<string, string>> = {
  '--json': '--json',
  '--debug': '--debug',
  '--env': '--env K=V',
  '--env-file': '--env-file FILE',
  '--cwd': '--cwd DIR',
  '--timeout': '--timeout MS',
};
const UPDATE_ONLY: Readonly<Record<string, string>> = { '--expected-revision': '--expected-revision N', '--unset-env': '--unset-env KEY' };

/**
 * What agt says of its own flags written after the `--` of `typed` (`agt mcp add`): they went to the server. A global
 * flag agt also got before `--` (`given`) is plainly the server's own there.
 */
export function serverFlags(after: readonly string[], typed: string, update: boolean, given: ReadonlySet<string> = new Set()): Told[] {
  const shared = update ? { ...SHARED, ...UPDATE_ONLY } : SHARED;
  const flagOf = (a: string, table: Readonly<Record<string, string>>) => Object.keys(table).find((f) => a === f || a.startsWith(`${f}=`));
  const named = (table: Readonly<Record<string, string>>) => [
    ...new Set(after.map((a) => flagOf(a, table)).filter((f): f is string => f !== undefined && !given.has(f))),
  ];
  const told: Told[] = [];
  const say = (level: Told['level'], flags: string[], table: Readonly<Record<string, string>>, put: string) => {
    if (flags.length === 0) return;
    const shape = `${typed} <category/name> ${flags.map((f) => table[f]).join(' ')} -- COMMAND ARGS…`;
    told.push({ level, message: `flags after -- go to the server: ${flags.join(', ')}; ${put} before --: ${shape}` });
  };
  say('warning', named(AGT_ONLY), AGT_ONLY, "put agt's flags");
  say('note', named(shared), shared, 'if they were meant for agt, put them');
  return told;
}

/** `told` as stderr lines: `agt: warning: …`, escaped. */
export function toldLines(told: readonly Told[]): string[] {
  return told.map((t) => `agt: ${t.level}: ${outsideText(t.message)}`);
}

/**
 * Prints a write's outcome: with --json one object whose `warnings` holds the service's and agt's; otherwise `lines`
 * and the service's warnings on stdout, agt's on stderr.
 */
export function emitWritten(ctx: CliContext, written: WriteResult, lines: string[], told: readonly Told[]): void {
  const { record, warnings } = written;
  emit(ctx, { record: shown(ctx, record), warnings: [...warnings, ...told.map((t) => t.message)] }, () =>
    [...lines, ...warnings.map((w) => oneLine`warning: ${w}`)].join('\n'),
  );
  if (!ctx.json) for (const line of toldLines(told)) ctx.err(line);
}
