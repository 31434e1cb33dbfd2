/**
 * The launch rules of stdio configs (R3, R4): an absolute `cwd`, a command
 * that is a bare name or an absolute path, a `sandbox` of the right shape
 * (P5, sandbox.ts: its paths and domains are quoted, they hold no secrets).
 * Shared by writes, static tests, imports and the connect path; messages name
 * fields and fixes, never values unless asked (`quoteValues`).
 */
import { type HostPaths, hostPaths } from './host-paths.js';
import type { ConfigProblem, McpServerConfig, NormalisedServerConfig } from './mcp-config.js';
import { sandboxProblems } from './sandbox.js';

/** True when a stdio config names its working directory (R3 still checks that it is absolute). */
export function hasCwd<C extends { cwd?: string }>(config: C): config is C & { cwd: string } {
  return typeof config.cwd === 'string' && config.cwd !== '';
}

/** True for a bare command name looked up in PATH (no path separator; on Windows no drive either). */
export function isBareCommand(command: string, rules: HostPaths = hostPaths()): boolean {
  return rules.isBareCommand(command);
}

/** Launch rules R3: absolute cwd; command a bare name or an absolute path; a `sandbox` of the right shape, on stdio only (P5). */
export function launchProblems(
  config: McpServerConfig | NormalisedServerConfig,
  at = 'config',
  options: { quoteValues?: boolean; rules?: HostPaths } = {},
): ConfigProblem[] {
  if (!('command' in config)) return sandboxProblems(config, at);
  const rules = options.rules ?? hostPaths();
  const problems: ConfigProblem[] = [];
  const cwd: string | undefined = config.cwd;
  if (cwd === undefined || cwd === '') {
    problems.push({
      field: `${at}.cwd`,
      message:
        'a stdio server needs an absolute "cwd": it never inherits the working directory of the host, agent or prober, so it starts the same way for everyone',
      fix: 'set "cwd" to the absolute directory the server runs in, e.g. the folder of its source',
    });
  } else if (!rules.isAbsolute(cwd)) {
    problems.push({
      field: `${at}.cwd`,
      message: '"cwd" must be an absolute path',
      fix: 'replace "cwd" with the absolute path of that directory',
    });
  }
  const command = config.command;
  // A command that starts with a placeholder (`${HOME}/bin/x`) is checked once it is expanded, at launch.
  if (!rules.isBareCommand(command) && !rules.isAbsolute(command) && !command.startsWith('${')) {
    // Never for an expanded config (quoteValues: false): a resolved placeholder may be a secret.
    const suggestion =
      options.quoteValues !== false && cwd !== undefined && rules.isAbsolute(cwd) ? ` (here: "${rules.resolve(cwd, command)}")` : '';
    problems.push({
      field: `${at}.command`,
      message: '"command" must be a bare command name found in PATH (like "node") or an absolute path; a relative path is ambiguous',
      fix: `use the absolute path of the program${suggestion}, or a bare command name; relative paths belong in "args", which resolve against "cwd"`,
    });
  }
  problems.push(...sandboxProblems(config, at));
  return problems;
}
