/**
 * Static checks of an mcp config (P1): what can be known without starting a
 * process or opening a connection. It reads file metadata only (stat and
 * access checks on cwd, command, envFile and PATH entries) and this process's
 * environment (for placeholders); it never spawns, connects or reads file contents.
 * A config that asks for a sandbox (P5) also gets what this machine lacks to
 * give one (sandbox-machine.ts: looked up, never run).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { findInPath, isExecutableFile } from './host-paths.js';
import { isBareCommand, hasCwd, launchProblems } from './launch-rules.js';
import { type ConfigProblem, type McpTransport, normaliseMcpDocument, type NormalisedStdioConfig } from './mcp-config.js';
import { resolveServerConfig, type VariableSources } from './variables.js';
import { type MachineFacts, missingSandboxPieces } from './sandbox-machine.js';
import { wantsSandbox } from './sandbox.js';

/** The outcome of a static config test. */
export interface ConfigTestReport {
  ok: boolean;
  transport: McpTransport;
  problems: ConfigProblem[];
  /** What a reviewer should know but does not stop the config (e.g. host variables sent to a remote server). */
  warnings: string[];
}

/**
 * Tests an mcp document statically; never throws for a bad config, reports it.
 * A placeholder that has no value now (in this process's environment, or
 * among the given inputs) is a problem: the server would not start. So is,
 * for a config that asks for a sandbox, each piece this machine lacks to give
 * one (`machine`: what that check looks at; tests pass other facts).
 */
export function testMcpConfig(data: unknown, sources: VariableSources = {}, machine: MachineFacts = {}): ConfigTestReport {
  let normalised: ReturnType<typeof normaliseMcpDocument>;
  try {
    normalised = normaliseMcpDocument(data);
  } catch (error) {
    if (!isAgtError(error)) throw error;
    const field = typeof error.details?.field === 'string' ? error.details.field : 'data';
    return {
      ok: false,
      transport: guessTransport(data),
      problems: [{ field, message: error.message, fix: 'correct this field and write the resource again' }],
      warnings: [],
    };
  }
  const at = `mcpServers.${normalised.name}`;
  const problems = [...launchProblems(normalised.config, at)];
  const { config, unresolved } = resolveServerConfig({ ...normalised.config }, sources, os.homedir(), at);
  problems.push(...unresolved.map((u) => ({ field: u.field, message: `${u.placeholder} has no value now`, fix: u.fix })));
  // A stdio server (transport 'stdio' is the config with a command): do its cwd and command exist?
  if ('command' in config && unresolved.length === 0) problems.push(...existenceProblems(config, at, problems));
  if ('command' in config && wantsSandbox(config) && !problems.some((p) => p.field.startsWith(`${at}.sandbox`)))
    for (const piece of missingSandboxPieces(machine))
      problems.push({ field: `${at}.sandbox`, message: `this machine cannot sandbox the server: ${piece.message}`, fix: piece.fix });
  return { ok: problems.length === 0, transport: normalised.transport, problems, warnings: normalised.warnings };
}

function existenceProblems(config: NormalisedStdioConfig, at: string, known: ConfigProblem[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const cwdOk = !known.some((p) => p.field === `${at}.cwd`);
  if (cwdOk && hasCwd(config)) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(config.cwd);
    } catch {
      stat = undefined;
    }
    if (stat === undefined) {
      problems.push({
        field: `${at}.cwd`,
        message: 'the "cwd" directory does not exist',
        fix: 'create it, or set "cwd" to the directory the server runs in',
      });
    } else if (!stat.isDirectory()) {
      problems.push({ field: `${at}.cwd`, message: '"cwd" is not a directory', fix: 'set "cwd" to a directory' });
    }
  }
  if (config.envFile !== undefined && cwdOk && hasCwd(config)) {
    const file = path.resolve(config.cwd, config.envFile);
    try {
      fs.accessSync(file, fs.constants.R_OK);
      // stat never blocks (opening a FIFO would); a pipe or device is no dotenv file
      if (!fs.statSync(file).isFile())
        problems.push({
          field: `${at}.envFile`,
          message: 'the "envFile" is not a regular file (a pipe, device or directory)',
          fix: 'point it at a dotenv text file',
        });
    } catch {
      problems.push({
        field: `${at}.envFile`,
        message: 'the "envFile" cannot be read',
        fix: 'create the file, or correct the path (relative paths start at "cwd")',
      });
    }
  }
  if (known.some((p) => p.field === `${at}.command`)) return problems;
  problems.push(...commandProblems(config, at));
  return problems;
}

/**
 * Whether a stdio config's command can be found now: a bare name in PATH (the
 * config's own PATH when it sets one), an absolute path as an executable file.
 * Expand placeholders first; the caller skips a command it cannot expand.
 */
export function commandProblems(config: { command: string; env?: Record<string, string> }, at: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (isBareCommand(config.command)) {
    const pathValue = config.env?.PATH ?? process.env.PATH;
    // Windows: PATHEXT as the server would get it (npx is npx.cmd there).
    const pathExt = config.env?.PATHEXT ?? process.env.PATHEXT;
    if (findInPath(config.command, pathValue, pathExt === undefined ? {} : { pathExt }) === undefined) {
      problems.push({
        field: `${at}.command`,
        message: `"${config.command}" was not found in PATH`,
        fix: 'install it, or give the absolute path of the program',
      });
    }
  } else if (!fs.existsSync(config.command)) {
    problems.push({
      field: `${at}.command`,
      message: 'the "command" file does not exist',
      fix: 'correct the absolute path of the program',
    });
  } else if (!isExecutableFile(config.command)) {
    problems.push({
      field: `${at}.command`,
      message: 'the "command" file is not an executable file',
      fix: 'make it executable (chmod +x), or run it through its interpreter (e.g. "command": "node", "args": ["server.js"])',
    });
  }
  return problems;
}

function guessTransport(data: unknown): McpTransport {
  const servers = isPlainObject(data) && isPlainObject(data.mcpServers) ? Object.values(data.mcpServers) : [];
  const first = servers[0];
  if (isPlainObject(first) && typeof first.url === 'string')
    return first.transport === 'sse' || first.type === 'sse' ? 'sse' : 'streamable-http';
  return 'stdio';
}
