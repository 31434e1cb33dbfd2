/**
 * The warning `agt mcp add` and `update` print for a stdio command that cannot be found now (R1: registering starts
 * nothing, so it still registers).
 */
import { commandProblems } from '../../config/config-test.js';
import { isBareCommand } from '../../config/launch-rules.js';
import { isPlainObject } from '../../json.js';
import { oneLine } from '../../outside-text.js';
import type { CliContext } from '../context.js';

// R1: a command that cannot be found now is still registered (registering starts nothing), but the user hears so at
// once on stderr, not at the first probe. The check is `agt mcp test`'s; a placeholder is known only at launch, so a
// command or PATH with one is not checked.
/** Warns on stderr of each stdio command of `data` that cannot be found (the check of `agt mcp test`). */
export function warnMissingCommand(ctx: CliContext, reference: string, data: unknown): void {
  const servers = isPlainObject(data) && isPlainObject(data.mcpServers) ? data.mcpServers : {};
  for (const config of Object.values(servers)) {
    if (!isPlainObject(config) || typeof config.command !== 'string') continue;
    const command = config.command;
    const env = (isPlainObject(config.env) ? config.env : {}) as Record<string, string>;
    if (command.includes('${') || String(env.PATH ?? '').includes('${')) continue;
    for (const problem of commandProblems({ command, env }, 'command')) {
      const what = isBareCommand(command) ? problem.message : oneLine`${command}: ${problem.message}`;
      ctx.err(
        oneLine`agt: warning: ${reference}: ${what}; registered anyway (registering starts nothing): ${problem.fix}; \`agt mcp test ${reference}\` checks again`,
      );
    }
  }
}
