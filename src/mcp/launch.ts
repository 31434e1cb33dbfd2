/**
 * Turns a stored stdio config into what is spawned (R3–R6). The process runs
 * in the config's `cwd`, never in the host's, agent's or prober's (R5), so the
 * same config starts the same way whoever mounts it; relative paths in `args`
 * therefore resolve against `cwd` (R4). `${cwd}` and `${workspace}` in args and
 * env values expand to `cwd`.
 *
 * Environment: the SDK's safe default set (HOME, LOGNAME, PATH, SHELL, TERM,
 * USER on POSIX; values starting with "()" skipped), then the config's `env`.
 * Nothing else of the host's environment reaches the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AgtError } from '../errors.js';
import { setOwn } from '../json.js';
import { findInPath, isExecutableFile } from '../resources/config-test.js';
import { CWD_PLACEHOLDERS, isBareCommand, launchProblems, type StdioServerConfig } from '../resources/mcp-config.js';

/** Exactly what is spawned. */
export interface LaunchSpec {
  /** Absolute path of the program. */
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** Replaces `${cwd}` and `${workspace}` with `cwd`. */
export function expandPlaceholders(value: string, cwd: string): string {
  let out = value;
  for (const placeholder of CWD_PLACEHOLDERS) out = out.split(placeholder).join(cwd);
  return out;
}

function spawnFailed(reason: string, message: string, extra: Record<string, unknown> = {}): AgtError {
  return new AgtError('spawn_failed', message, { details: { reason, ...extra } });
}

/** Builds the launch spec, or throws invalid_config (R3, R6) / spawn_failed (what is missing on this host). */
export function toLaunchSpec(config: StdioServerConfig): LaunchSpec {
  const problems = launchProblems(config, 'config');
  if (problems.length > 0) {
    const text = problems.map((p) => `${p.field}: ${p.message}; fix: ${p.fix}`).join(' | ');
    throw new AgtError('invalid_config', `the stored config cannot be started: ${text}`, { details: { problems } });
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
  for (const [key, value] of Object.entries(config.env ?? {})) setOwn(env, key, expandPlaceholders(value, cwd));
  const args = (config.args ?? []).map((arg) => expandPlaceholders(arg, cwd));

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
