/**
 * Turns a stored stdio config into what is spawned (R3–R6). The process runs
 * in the config's `cwd`, never in the host's, agent's or prober's (R5), so the
 * same config starts the same way whoever mounts it; relative paths in `args`
 * therefore resolve against `cwd` (R4). Placeholders (`${cwd}`, `${NAME}`,
 * `${env:NAME}`, `${input:id}`, …; config/variables.ts) are expanded here, at
 * launch, and a placeholder without a value fails with invalid_config naming it.
 *
 * Environment: the SDK's safe default set (HOME, LOGNAME, PATH, SHELL, TERM,
 * USER on POSIX; on Windows the SDK's list plus COMSPEC, PATHEXT and WINDIR,
 * which cmd.exe and `.cmd` shims need; values starting with "()" skipped), then the variables of
 * `envFile`, then the config's `env`. Nothing else of the host's environment
 * reaches the server (unless a placeholder names it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { AgtError } from '../../errors.js';
import { FileReadError, readBoundedFile } from '../../files.js';
import { setOwn } from '../../json.js';
import { findInPath, isExecutableFile } from '../../config/host-paths.js';
import { hasCwd, isBareCommand, launchProblems } from '../../config/launch-rules.js';
import type { NormalisedStdioConfig, StdioServerConfig } from '../../config/mcp-config.js';
import { launchConfig, type VariableSources } from '../../config/variables.js';
import { hostDefaultEnvironment } from './platform/index.js';
import { MAX_STATE_FILE_BYTES } from '../../bounds.js';

/** Exactly what is spawned. */
export interface LaunchSpec {
  /** Absolute path of the program. */
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** Parses dotenv text: KEY=VALUE lines, `#` comments, optional `export `, single or double quotes. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
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
      value = value.slice(0, commentStart(value)).trimEnd();
    }
    setOwn(out, m[1] as string, value);
  }
  return out;
}

// Where an unquoted value's comment starts: the first "#" after white space (a loop, not a regex, on untrusted text).
function commentStart(value: string): number {
  for (let at = value.indexOf('#'); at !== -1; at = value.indexOf('#', at + 1)) {
    if (at > 0 && /\s/.test(value[at - 1] as string)) return at - 1;
  }
  return value.length;
}

/** Reads a dotenv file: a regular text file of at most {@link MAX_STATE_FILE_BYTES}; rejects with FileReadError. */
export async function readEnvFile(file: string): Promise<Record<string, string>> {
  const bytes = await readBoundedFile(file, MAX_STATE_FILE_BYTES);
  if (bytes.includes(0)) throw new FileReadError('not_text'); // e.g. /proc/self/environ: NUL-separated, not dotenv
  return parseEnvFile(bytes.toString('utf8'));
}

const ENV_FILE_PROBLEMS: Record<string, string> = {
  too_large: `it is larger than ${MAX_STATE_FILE_BYTES} bytes`,
  not_regular_file: 'it is not a regular file (a pipe, device or directory)',
  not_text: 'it holds NUL bytes, so it is not a dotenv text file',
};

function spawnFailed(reason: string, message: string, extra: Record<string, unknown> = {}): AgtError {
  return new AgtError('spawn_failed', message, { details: { reason, ...extra } });
}

/** Builds the launch spec, or throws invalid_config (R3, R6, a placeholder without a value) / spawn_failed (what is missing on this host). */
export async function toLaunchSpec(
  stored: NormalisedStdioConfig | StdioServerConfig,
  sources: VariableSources = {},
  collect?: Set<string>,
): Promise<LaunchSpec> {
  const problems = launchProblems(stored, 'config');
  if (problems.length > 0 || !hasCwd(stored)) {
    const text = problems.map((p) => `${p.field}: ${p.message}; fix: ${p.fix}`).join(' | ');
    throw new AgtError('invalid_config', `the stored config cannot be started: ${text}`, { details: { problems } });
  }
  const config = launchConfig(stored, sources, 'started', collect);
  // Problems of the expanded config name fields and placeholders as written, never what they resolved to (secrets).
  const expanded = launchProblems(config, 'config', { quoteValues: false });
  if (expanded.length > 0) {
    throw new AgtError(
      'invalid_config',
      `the config cannot be started once its placeholders are expanded: ${expanded.map((p) => `${p.field}: ${p.message}; fix: ${p.fix}`).join(' | ')}`,
      { details: { problems: expanded } },
    );
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

  const env: Record<string, string> = hostDefaultEnvironment();
  if (config.envFile !== undefined) {
    const file = path.resolve(cwd, config.envFile);
    let values: Record<string, string>;
    try {
      values = await readEnvFile(file);
    } catch (error) {
      const reason = error instanceof FileReadError ? error.reason : 'error';
      const why = ENV_FILE_PROBLEMS[reason] ?? `it cannot be read (${reason})`;
      // The path as written in the config (placeholders unexpanded: their values may be secrets).
      throw spawnFailed(
        'env_file_unreadable',
        `the "envFile" ${JSON.stringify(stored.envFile)} cannot be used: ${why}; point it at a dotenv file (relative paths start at "cwd")`,
        { problem: reason },
      );
    }
    for (const [key, value] of Object.entries(values)) setOwn(env, key, value);
  }
  for (const [key, value] of Object.entries(config.env ?? {})) setOwn(env, key, value);
  const args = config.args ?? [];

  let command = config.command;
  if (isBareCommand(command)) {
    const found = findInPath(command, env.PATH, env.PATHEXT === undefined ? {} : { pathExt: env.PATHEXT });
    if (found === undefined) {
      // Named as written: `${HOST_TOKEN}` rather than what it resolved to.
      throw spawnFailed(
        'command_not_found',
        `${JSON.stringify(stored.command)} was not found in the PATH the server gets; install it or give its absolute path`,
        {
          command: stored.command,
        },
      );
    }
    command = found;
  } else if (!fs.existsSync(command)) {
    throw spawnFailed('command_missing', 'the "command" file does not exist; correct its absolute path');
  } else if (!isExecutableFile(command)) {
    throw spawnFailed('not_executable', 'the "command" file is not executable; chmod +x it, or run it through its interpreter');
  }
  return { command, args, cwd: path.resolve(cwd), env };
}
