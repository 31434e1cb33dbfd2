/**
 * Turns a stored stdio config into what is spawned (R3–R6). The process runs
 * in the config's `cwd`, never in the host's, agent's or prober's (R5), so the
 * same config starts the same way whoever mounts it; relative paths in `args`
 * therefore resolve against `cwd` (R4). Placeholders (`${cwd}`, `${NAME}`,
 * `${env:NAME}`, `${input:id}`, …; resources/variables.ts) are expanded here, at
 * launch, and a placeholder without a value fails with invalid_config naming it.
 *
 * Environment: the SDK's safe default set (HOME, LOGNAME, PATH, SHELL, TERM,
 * USER on POSIX; values starting with "()" skipped), then the variables of
 * `envFile`, then the config's `env`. Nothing else of the host's environment
 * reaches the server (unless a placeholder names it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AgtError } from '../errors.js';
import { setOwn } from '../json.js';
import { findInPath, isExecutableFile } from '../resources/config-test.js';
import { isBareCommand, launchProblems, type StdioServerConfig } from '../resources/mcp-config.js';
import { launchConfig, type VariableSources } from '../resources/variables.js';

/** Exactly what is spawned. */
export interface LaunchSpec {
  /** Absolute path of the program. */
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** Reads a dotenv file: KEY=VALUE lines, `#` comments, optional `export `, single or double quotes. */
export function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (m === null) continue;
    let value = (m[2] as string).trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    setOwn(out, m[1] as string, value);
  }
  return out;
}

function spawnFailed(reason: string, message: string, extra: Record<string, unknown> = {}): AgtError {
  return new AgtError('spawn_failed', message, { details: { reason, ...extra } });
}

/** Builds the launch spec, or throws invalid_config (R3, R6, a placeholder without a value) / spawn_failed (what is missing on this host). */
export function toLaunchSpec(stored: StdioServerConfig, sources: VariableSources = {}): LaunchSpec {
  const problems = launchProblems(stored, 'config');
  if (problems.length > 0) {
    const text = problems.map((p) => `${p.field}: ${p.message}; fix: ${p.fix}`).join(' | ');
    throw new AgtError('invalid_config', `the stored config cannot be started: ${text}`, { details: { problems } });
  }
  const config = launchConfig(stored, sources, 'started');
  const expanded = launchProblems(config, 'config');
  if (expanded.length > 0) {
    throw new AgtError('invalid_config', `the expanded config cannot be started: ${expanded.map((p) => `${p.field}: ${p.message}; fix: ${p.fix}`).join(' | ')}`, { details: { problems: expanded } });
  }
  const cwd = config.cwd;
  // Checked before spawning: a missing cwd makes spawn report ENOENT for the *command*, which misleads.
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(cwd);
  } catch {
    stat = undefined;
  }
  if (stat === undefined) throw spawnFailed('cwd_missing', 'the working directory ("cwd") does not exist; create it or correct "cwd"');
  if (!stat.isDirectory()) throw spawnFailed('cwd_not_directory', '"cwd" is not a directory; point it at the directory the server runs in');

  const env: Record<string, string> = { ...getDefaultEnvironment() };
  if (config.envFile !== undefined) {
    const file = path.resolve(cwd, config.envFile);
    let values: Record<string, string>;
    try {
      values = readEnvFile(file);
    } catch (error) {
      throw spawnFailed('env_file_unreadable', `the "envFile" cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); create it or correct the path (relative paths start at "cwd")`);
    }
    for (const [key, value] of Object.entries(values)) setOwn(env, key, value);
  }
  for (const [key, value] of Object.entries(config.env ?? {})) setOwn(env, key, value);
  const args = config.args ?? [];

  let command = config.command;
  if (isBareCommand(command)) {
    const found = findInPath(command, env.PATH);
    if (found === undefined) {
      throw spawnFailed('command_not_found', `"${command}" was not found in the PATH the server gets; install it or give its absolute path`, {
        command,
      });
    }
    command = found;
  } else if (!fs.existsSync(command)) {
    throw spawnFailed('command_missing', 'the "command" file does not exist; correct its absolute path');
  } else if (!isExecutableFile(command)) {
    throw spawnFailed('not_executable', 'the "command" file is not executable; chmod +x it, or run it through its interpreter');
  }
  return { command, args, cwd: path.resolve(cwd), env };
}
