/**
 * The sandbox flags of `agt mcp add|update` (`--sandbox`, `--allow-write PATH`, `--allow-domain DOMAIN`) and
 * `agt mcp probe --sandbox` (P5). The written config is checked by the service like any other.
 */
import path from 'node:path';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import type { McpDocument } from '../../config/mcp-config.js';
import type { SandboxConfig } from '../../config/sandbox.js';

/** The parseArgs options of the sandbox flags. */
export const SANDBOX_OPTIONS = {
  sandbox: { type: 'boolean' },
  'allow-write': { type: 'string', multiple: true },
  'allow-domain': { type: 'string', multiple: true },
} as const;

/** The sandbox flags as parsed. */
export interface SandboxFlags {
  sandbox?: boolean;
  'allow-write'?: string[];
  'allow-domain'?: string[];
}

/** True when any sandbox flag was given. */
export function sandboxGiven(values: SandboxFlags): boolean {
  return values.sandbox !== undefined || values['allow-write'] !== undefined || values['allow-domain'] !== undefined;
}

// A path from the command line: against the current folder (as --cwd and --env-file are), unless it is `~/…` or starts with a placeholder.
function commandLinePath(p: string): string {
  return p.startsWith('${') || p === '~' || p.startsWith('~/') ? p : path.resolve(p);
}

/**
 * The `sandbox` the flags ask for: `true` for `--sandbox` alone, the rules with `--allow-write` / `--allow-domain`
 * (which imply `--sandbox`); undefined when no sandbox flag was given.
 */
export function sandboxFromFlags(values: SandboxFlags): true | SandboxConfig | undefined {
  if (!sandboxGiven(values)) return undefined;
  const writes = values['allow-write'];
  const domains = values['allow-domain'];
  if (writes === undefined && domains === undefined) return true;
  return {
    ...(writes === undefined ? {} : { filesystem: { allowWrite: writes.map(commandLinePath) } }),
    ...(domains === undefined ? {} : { network: { allowedDomains: [...domains] } }),
  };
}

/** A stored document with `sandbox: true` added to its one stdio server (a sandbox it already has stays as written), for one probe. */
export function withSandbox(document: McpDocument): McpDocument {
  const [name, config] = Object.entries(isPlainObject(document.mcpServers) ? document.mcpServers : {})[0] ?? [];
  if (name === undefined || !isPlainObject(config) || !('command' in config))
    throw new AgtError('invalid_input', '--sandbox applies to stdio servers only: a remote server is not a process of ours');
  // VS Code's `sandboxEnabled: false` would drop the sandbox again at normalisation: --sandbox overrides it.
  const { sandboxEnabled: _, ...rest } = config;
  const sandbox = rest.sandbox === undefined || rest.sandbox === false ? true : rest.sandbox;
  return { ...document, mcpServers: { [name]: { ...rest, sandbox } } } as McpDocument;
}
