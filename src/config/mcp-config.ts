/**
 * MCP server configs: the `{ mcpServers: { NAME: config } }` document (R2),
 * as written and in its normal form (the launch rules R3, R4:
 * launch-rules.ts; the placeholder grammar: placeholders.ts).
 *
 * Configs can be pasted from real hosts: Claude Desktop/Code and Cursor write
 * `command`/`args`/`env` or `url`; VS Code adds `type: "stdio" | "http" | "sse"`.
 * Unknown keys are kept and warned about, never silently dropped. No message
 * contains an env value, a header value or an argument.
 */
import { AgtError } from '../errors.js';
import { outsideText } from '../outside-text.js';
import { defined, isPlainObject, setOwn } from '../json.js';
import { hostVariablesWarning, isSupportedPlaceholder, PLACEHOLDER, UNSUPPORTED_PLACEHOLDER } from './placeholders.js';
import { headerProblem, urlProblem, withPlaceholderStandIns } from './remote-rules.js';
import { HANDSHAKE_MS_RULE, MAX_NAME_LENGTH, msProblem } from '../bounds.js';
import { SANDBOX_FIELDS, type SandboxConfig, sandboxFields } from './sandbox.js';

/** A process on this host, spoken to over stdio. */
export interface StdioServerConfig {
  command: string;
  args?: string[];
  /** Absolute working directory (R3); relative args resolve against it (R4). */
  cwd: string;
  env?: Record<string, string>;
  /** A dotenv file read at launch (VS Code): its variables, under `env`. Relative to `cwd`. */
  envFile?: string;
  /** How long the handshake may take (cold `npx`/`uvx` starts need more). */
  handshakeTimeoutMs?: number;
  /** false: with an McpPool, every run gets its own connection, even within a scope (a browser server, one page per user). Default true. */
  shared?: boolean;
  /** Which MCP protocol era to speak (E1): `auto` (default) finds out, `legacy` is the 2025 `initialize`, `2026-07-28` pins the new one. */
  protocol?: McpProtocolChoice;
  /** Run it in a sandbox (P5): `true` for the defaults, or the runtime's rules (sandbox.ts); absent: no sandbox. */
  sandbox?: true | SandboxConfig;
}

/** The protocol a config asks for (E1): find out, the 2025 era, or the 2026-07-28 revision only. */
export type McpProtocolChoice = 'auto' | 'legacy' | '2026-07-28';

/** The values `protocol` may take in a config. */
export const MCP_PROTOCOL_CHOICES: readonly McpProtocolChoice[] = Object.freeze(['auto', 'legacy', '2026-07-28']);

/** A server reached by URL: Streamable HTTP (default) or the older HTTP+SSE (R7). */
export interface RemoteServerConfig {
  url: string;
  headers?: Record<string, string>;
  transport?: 'streamable-http' | 'sse';
  /** How long the handshake may take. */
  handshakeTimeoutMs?: number;
  /** false: with an McpPool, every run gets its own connection, even within a scope. Default true. */
  shared?: boolean;
  /** Which MCP protocol era to speak (E1); default `auto`. */
  protocol?: McpProtocolChoice;
}

/** One server's launch or connection configuration, as written. */
export type McpServerConfig = StdioServerConfig | RemoteServerConfig;

/**
 * A stdio config as read back (normalised): `args` and `env` always present,
 * `cwd` possibly missing — a config saved before R3 can still be read (R6)
 * and is refused only at launch, naming the fix.
 */
export interface NormalisedStdioConfig extends Omit<StdioServerConfig, 'cwd' | 'args' | 'env'> {
  args: string[];
  cwd?: string;
  env: Record<string, string>;
}

/** One server's configuration as read back (normalised). */
export type NormalisedServerConfig = NormalisedStdioConfig | RemoteServerConfig;

/** An input a config refers to as `${input:id}` (VS Code): asked for at launch, never stored. */
export interface DeclaredInput {
  id: string;
  type?: 'promptString';
  description?: string;
  /** Asked for without echo. */
  password?: boolean;
}

/** An mcp resource's data: exactly one entry (R2). */
export interface McpDocument {
  mcpServers: Record<string, McpServerConfig>;
  /** The inputs its placeholders refer to. */
  inputs?: DeclaredInput[];
}

/** How a server is reached. */
export type McpTransport = 'stdio' | 'streamable-http' | 'sse';

/** A problem with a config, the field it concerns and how to fix it. */
export interface ConfigProblem {
  field: string;
  message: string;
  fix: string;
}

/** An mcp document as read back: its one server normalised. */
export interface NormalisedMcpDocument extends Omit<McpDocument, 'mcpServers'> {
  mcpServers: Record<string, NormalisedServerConfig>;
}

/** A normalised document with its one server. */
export interface NormalisedMcp {
  document: NormalisedMcpDocument;
  name: string;
  config: NormalisedServerConfig;
  transport: McpTransport;
  warnings: string[];
}

const SERVER_NAME = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_NAME_LENGTH - 1}}$`);
const COMMON_KEYS = ['handshakeTimeoutMs', 'shared', 'protocol', 'type'];
const STDIO_KEYS = new Set(['command', 'args', 'cwd', 'env', 'envFile', ...COMMON_KEYS, ...SANDBOX_FIELDS]);
const REMOTE_KEYS = new Set(['url', 'headers', 'transport', ...COMMON_KEYS]);
const TYPE_ALIASES: Record<string, McpTransport> = {
  stdio: 'stdio',
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  streamableHttp: 'streamable-http',
  sse: 'sse',
};

function invalid(field: string, message: string): AgtError {
  return new AgtError('invalid_input', `mcp config: ${field}: ${message}`, { details: { field } });
}

/** Validates and normalises an mcp document; throws `invalid_input` on malformed structure. */
export function normaliseMcpDocument(data: unknown): NormalisedMcp {
  if (!isPlainObject(data)) throw invalid('data', 'must be an object like { "mcpServers": { "NAME": { … } } }');
  const warnings: string[] = [];
  if (data.servers !== undefined && data.mcpServers === undefined) {
    throw invalid('servers', 'rename "servers" (VS Code) to "mcpServers"');
  }
  for (const key of Object.keys(data))
    if (key !== 'mcpServers' && key !== 'inputs') warnings.push(`unknown key "${outsideText(key, { max: 64 })}" kept as is`);
  if (data.inputs !== undefined) checkInputs(data.inputs);
  const servers = data.mcpServers;
  if (!isPlainObject(servers)) throw invalid('mcpServers', 'must be an object mapping one server name to its config');
  const names = Object.keys(servers);
  if (names.length !== 1) {
    throw invalid('mcpServers', `must hold exactly one server (found ${names.length}); register each server as its own resource`);
  }
  const name = names[0] as string;
  if (!SERVER_NAME.test(name)) {
    throw invalid(
      'mcpServers',
      `the server name must be 1-${MAX_NAME_LENGTH} letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  const { config, transport } = normaliseServer(servers[name], `mcpServers.${name}`, warnings);
  const rest = Object.fromEntries(Object.entries(data).filter(([k]) => k !== 'mcpServers'));
  return { document: { ...rest, mcpServers: { [name]: config } }, name, config, transport, warnings };
}

/** The normalised document as a written one, when nothing the written form requires is missing (a stdio server's `cwd`, R3). */
export function writtenDocument(normalised: NormalisedMcp): McpDocument | undefined {
  const { config } = normalised;
  if ('command' in config && (config.cwd === undefined || config.cwd === '')) return undefined;
  return normalised.document as McpDocument; // the one server has every field StdioServerConfig requires
}

function checkInputs(inputs: unknown): void {
  const ok =
    Array.isArray(inputs) &&
    inputs.every(
      (i) =>
        isPlainObject(i) &&
        typeof i.id === 'string' &&
        i.id !== '' &&
        (i.password === undefined || typeof i.password === 'boolean') &&
        (i.description === undefined || typeof i.description === 'string'),
    );
  if (!ok) throw invalid('inputs', 'must be a list of { "id": "…", "type": "promptString", "description"?, "password"? }');
}

function checkTimeout(raw: Record<string, unknown>, at: string): void {
  const problem = raw.handshakeTimeoutMs === undefined ? undefined : msProblem(raw.handshakeTimeoutMs, HANDSHAKE_MS_RULE);
  if (problem !== undefined) throw invalid(`${at}.handshakeTimeoutMs`, problem);
  if (raw.shared !== undefined && typeof raw.shared !== 'boolean') throw invalid(`${at}.shared`, 'must be true or false');
  if (raw.protocol !== undefined && !MCP_PROTOCOL_CHOICES.includes(raw.protocol as McpProtocolChoice))
    throw invalid(`${at}.protocol`, 'must be "auto" (the default: find out), "legacy" (2025, initialize) or "2026-07-28"');
}

function normaliseServer(raw: unknown, at: string, warnings: string[]): { config: NormalisedServerConfig; transport: McpTransport } {
  if (!isPlainObject(raw)) throw invalid(at, 'must be an object with "command" (stdio) or "url" (remote)');
  let declared: McpTransport | undefined;
  if (raw.type !== undefined) {
    declared = typeof raw.type === 'string' ? TYPE_ALIASES[raw.type] : undefined;
    if (declared === undefined) throw invalid(`${at}.type`, 'must be "stdio", "http" or "sse"');
  }
  const hasCommand = raw.command !== undefined;
  const hasUrl = raw.url !== undefined;
  if (hasCommand === hasUrl) throw invalid(at, 'give either "command" (a stdio server) or "url" (a remote server), not both or neither');
  if (hasCommand) {
    if (declared !== undefined && declared !== 'stdio') throw invalid(`${at}.type`, `"${String(raw.type)}" needs "url", not "command"`);
    return { config: normaliseStdio(raw, at, warnings), transport: 'stdio' };
  }
  if (declared === 'stdio') throw invalid(`${at}.type`, '"stdio" needs "command", not "url"');
  const config = normaliseRemote(raw, at, warnings, declared);
  return { config, transport: config.transport ?? 'streamable-http' };
}

function normaliseStdio(raw: Record<string, unknown>, at: string, warnings: string[]): NormalisedStdioConfig {
  if (typeof raw.command !== 'string' || raw.command.trim() === '') throw invalid(`${at}.command`, 'must be a non-empty string');
  const args = raw.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw invalid(`${at}.args`, 'must be an array of strings');
  if (raw.cwd !== undefined && typeof raw.cwd !== 'string') throw invalid(`${at}.cwd`, 'must be a string (an absolute path)');
  if (raw.envFile !== undefined && (typeof raw.envFile !== 'string' || raw.envFile === ''))
    throw invalid(`${at}.envFile`, 'must be the path of a dotenv file');
  checkTimeout(raw, at);
  const env = stringMap(raw.env, `${at}.env`, 'env values');
  warnUnknownPlaceholders(raw.command, `${at}.command`, warnings);
  for (const [i, arg] of args.entries()) warnUnknownPlaceholders(arg, `${at}.args[${i}]`, warnings);
  for (const key of Object.keys(env)) warnUnknownPlaceholders(env[key] as string, `${at}.env.${key}`, warnings);
  if (typeof raw.envFile === 'string') warnUnknownPlaceholders(raw.envFile, `${at}.envFile`, warnings);
  const unknown = keepUnknown(raw, STDIO_KEYS, at, warnings);
  return {
    ...unknown,
    command: raw.command,
    args: [...args] as string[],
    ...defined({ cwd: raw.cwd }),
    env,
    ...defined({ envFile: raw.envFile }),
    ...defined({
      handshakeTimeoutMs: raw.handshakeTimeoutMs as number | undefined,
      shared: raw.shared as boolean | undefined,
      protocol: raw.protocol as McpProtocolChoice | undefined,
    }),
    ...sandboxFields(raw, at, warnings, invalid),
  };
}

function normaliseRemote(
  raw: Record<string, unknown>,
  at: string,
  warnings: string[],
  declared: McpTransport | undefined,
): RemoteServerConfig {
  if (typeof raw.url !== 'string') throw invalid(`${at}.url`, 'must be a string (an http or https URL)');
  const checkable = withPlaceholderStandIns(raw.url);
  const problem = checkable === undefined ? undefined : urlProblem(checkable);
  if (problem !== undefined) throw invalid(`${at}.url`, problem);
  if (raw.transport !== undefined && raw.transport !== 'streamable-http' && raw.transport !== 'sse') {
    throw invalid(`${at}.transport`, 'must be "streamable-http" (the default) or "sse"');
  }
  const transport = (raw.transport as RemoteServerConfig['transport']) ?? (declared === 'sse' ? 'sse' : 'streamable-http');
  if (declared !== undefined && raw.transport !== undefined && declared !== transport) {
    throw invalid(`${at}.type`, 'contradicts "transport"');
  }
  const headers = stringMap(raw.headers, `${at}.headers`, 'header values');
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerProblem(name, value);
    if (problem !== undefined) throw invalid(`${at}.headers.${name.slice(0, MAX_NAME_LENGTH)}`, problem);
  }
  checkTimeout(raw, at);
  warnUnknownPlaceholders(raw.url, `${at}.url`, warnings);
  for (const key of Object.keys(headers)) warnUnknownPlaceholders(headers[key] as string, `${at}.headers.${key}`, warnings);
  const sends = hostVariablesWarning({ url: raw.url, headers });
  if (sends !== undefined) warnings.push(`${at}: ${sends}`);
  const unknown = keepUnknown(raw, REMOTE_KEYS, at, warnings);
  return {
    ...unknown,
    url: raw.url,
    headers,
    transport,
    ...defined({ handshakeTimeoutMs: raw.handshakeTimeoutMs, shared: raw.shared, protocol: raw.protocol }),
  } as RemoteServerConfig;
}

function stringMap(value: unknown, at: string, what: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isPlainObject(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw invalid(at, `must be an object whose ${what} are strings`);
  }
  return { ...(value as Record<string, string>) };
}

function keepUnknown(raw: Record<string, unknown>, known: Set<string>, at: string, warnings: string[]): Record<string, unknown> {
  const unknown: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    if (known.has(key)) continue;
    setOwn(unknown, key, raw[key]);
    warnings.push(`${at}: unknown key "${outsideText(key, { max: 64 })}" kept as is (it has no effect)`);
  }
  return unknown;
}

function warnUnknownPlaceholders(value: string, at: string, warnings: string[]): void {
  for (const match of value.matchAll(PLACEHOLDER)) {
    if (!isSupportedPlaceholder(match[1] as string)) {
      warnings.push(`${at}: placeholder ${match[0]}: ${UNSUPPORTED_PLACEHOLDER}`);
    }
  }
}
