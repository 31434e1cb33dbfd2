/**
 * connectMcp: the only way anything opens an MCP connection. Probes and runs
 * both call it, so a probe starts a server exactly the way a run does (P2).
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pkg from '../../package.json' with { type: 'json' };
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AgtError, isAgtError, maskError } from '../errors.js';
import { defined, isPlainObject } from '../json.js';
import {
  type McpDocument,
  type McpServerConfig,
  type NormalisedStdioConfig,
  normaliseMcpDocument,
  type RemoteServerConfig,
  urlProblem,
} from '../resources/mcp-config.js';
import { secretArgIndexes, secretArgValue, type SecretMasker, secretMasker } from '../resources/secrets.js';
import { launchConfig, type VariableSources } from '../resources/variables.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { clientCapabilities, installHandlers, registryValidator } from './client-handlers.js';
import { type McpConnection, openConnection } from './connection.js';
import { withStderr } from './request-error.js';
import { checkPingInterval } from './keepalive.js';
import { NotificationHub } from './notifications.js';
import { oversizedAnswer } from './oversized.js';
import { hostDefaultEnvironment } from './platform/index.js';
import { toLaunchSpec } from './launch.js';
import { basicToken, connectRemote } from './remote.js';
import { ProcessGroupStdioTransport } from './stdio-transport.js';
import { authFor, clientHandlersOf, type ConnectSettings } from './settings.js';
import { resolveTimeouts, type Timeouts } from './timeouts.js';

/** What the library says it is during initialize: its name and its package version. */
const CLIENT_INFO = { name: 'agt-mcp', version: pkg.version } as const;

/** Options of {@link connectMcp}: the ConnectSettings, and what concerns one connection. */
export interface ConnectOptions extends ConnectSettings {
  /** The stored reference of the server, if it is one: what a function `auth` is given (else `''`). */
  reference?: string;
  /** The validator the SDK client uses where it validates (default: a new ToolSchemaRegistry). */
  registry?: ToolSchemaRegistry;
  /** Told as the connection moves through its phases (for progress displays). */
  onPhase?(phase: 'starting' | 'handshake'): void;
  /**
   * Show what the server repeats of the config's secrets (the CLI's
   * --show-secrets). By default every env, envFile and header value, resolved
   * placeholder and password of 6 characters or more is shown as `***` in
   * everything the connection returns: server info, lists, results, errors.
   */
  revealSecrets?: boolean;
}

/** Opens a connection to the server of a document or config; rejects with a stable AgtError code. */
export async function connectMcp(target: McpDocument | McpServerConfig, options: ConnectOptions = {}): Promise<McpConnection> {
  const document = isPlainObject(target) && 'mcpServers' in target ? target : { mcpServers: { server: target } };
  const { config } = normaliseMcpDocument(document);
  // The config's own handshake timeout (cold npx/uvx starts), unless the caller set one.
  const timeouts = resolveTimeouts({
    ...(config.handshakeTimeoutMs ? { handshakeMs: config.handshakeTimeoutMs } : {}),
    ...options.timeouts,
  });
  checkMaxMessageBytes(options.maxMessageBytes);
  checkPingInterval(options.pingIntervalMs);
  const handlers = clientHandlersOf(options);
  const declared = clientCapabilities(handlers);
  const validator = registryValidator(options.registry ?? new ToolSchemaRegistry());
  const hub = new NotificationHub();
  const newClient = () => {
    const client = new Client(CLIENT_INFO, { capabilities: declared, jsonSchemaValidator: validator });
    installHandlers(client, handlers);
    hub.attach(client);
    return client;
  };
  const auth = authFor(options.auth, { kind: 'mcp', reference: options.reference ?? '' });
  const base = {
    timeouts,
    hub,
    clientCapabilities: declared,
    ...defined({ auth, pingIntervalMs: options.pingIntervalMs, tasks: options.tasks }),
  };
  // The config's secrets as the server gets them (env, envFile, headers, passwords, and the values placeholders
  // resolved to): errors never show them; what the server sends back shows them only with revealSecrets.
  const collected = new Set<string>();
  const secrets = secretMasker([]);
  const shown = options.revealSecrets ? secretMasker([]) : secrets;
  if ('command' in config) {
    const stdio = await connectStdio(newClient(), config, timeouts, options, collected, secrets);
    return openConnection({ ...base, ...stdio, kind: 'stdio', masker: shown });
  }
  options.onPhase?.('handshake');
  const resolved = resolveRemote(config, options.variables ?? {}, collected);
  for (const value of [...remoteSecrets(resolved), ...collected]) secrets.add(value);
  const remote = await connectRemote(newClient, resolved, timeouts, auth, secrets, options.maxMessageBytes);
  return openConnection({
    ...base,
    ...remote,
    timings: { spawnMs: remote.connectMs, initializeMs: remote.initializeMs },
    warnings: [],
    masker: shown,
  });
}

function checkMaxMessageBytes(value: number | undefined): void {
  if (value === undefined || (Number.isInteger(value) && value >= 1024)) return;
  throw new AgtError('invalid_input', 'maxMessageBytes must be a whole number of bytes, at least 1024', {
    details: { field: 'maxMessageBytes' },
  });
}

// The secrets a remote config sends: header values and the URL's password (and the Basic token made of it).
function remoteSecrets(config: RemoteServerConfig): string[] {
  // A header value and, for "Scheme token" values, the token alone: a server may echo just the token.
  const out = Object.values(config.headers ?? {}).flatMap((value) => [value, ...(/^\S+\s+(\S{6,})$/.exec(value)?.slice(1) ?? [])]);
  try {
    const url = new URL(config.url);
    if (url.password !== '') {
      const password = decodeURIComponent(url.password);
      out.push(password, url.password, basicToken(decodeURIComponent(url.username), password));
    }
  } catch {
    // checked before: the URL parses
  }
  return out;
}

async function connectStdio(
  client: Client,
  config: NormalisedStdioConfig,
  timeouts: Timeouts,
  options: ConnectOptions,
  collected: Set<string>,
  masker: SecretMasker,
) {
  const spec = await toLaunchSpec(config, options.variables, collected); // R3–R6: invalid_config / spawn_failed before anything runs
  // The values of the config's own env and envFile (as the server gets them) and resolved placeholders never show in the stderr tail.
  const own = Object.keys(spec.env).filter((k) => !DEFAULT_ENV_KEYS.has(k) || (config.env ?? {})[k] !== undefined);
  const ownValues = [
    ...own.map((k) => spec.env[k] ?? ''),
    ...collected,
    ...secretArgIndexes(spec.args).map((i) => secretArgValue(spec.args[i] as string)),
  ];
  for (const value of ownValues) masker.add(value);
  const secrets = secretMasker(ownValues, 4).secrets; // the stderr tail masks values from 4 characters
  const transport = new ProcessGroupStdioTransport(spec, {
    spawnMs: timeouts.spawnMs,
    closeGraceMs: timeouts.closeGraceMs,
    secrets,
    ...defined({ maxMessageBytes: options.maxMessageBytes }),
  });
  const started = performance.now();
  options.onPhase?.('starting');
  transport.onSpawned = () => options.onPhase?.('handshake');
  try {
    await Promise.race([
      client.connect(transport, { timeout: timeouts.handshakeMs }),
      transport.failed.then(() => Promise.reject(stdioFailure(transport, timeouts))),
    ]);
  } catch (error) {
    // Classify before closing: the kill that close() sends must not read as an early exit.
    const mapped = isAgtError(error) ? withStderr(error, transport) : handshakeError(error, transport, timeouts, config.command);
    await transport.close();
    throw maskError(mapped, masker.text);
  }
  const initializeMs = performance.now() - started - transport.spawnMs;
  const warnings =
    transport.garbageLines > 0 ? [`skipped ${transport.garbageLines} non-JSON line(s) on stdout; servers should log to stderr`] : [];
  return { client, transport, stdio: transport, timings: { spawnMs: transport.spawnMs, initializeMs }, warnings };
}

// The host variables every server gets (launch.ts); not secrets of the config.
const DEFAULT_ENV_KEYS = new Set(Object.keys(hostDefaultEnvironment()));

// A remote config's url and headers with their placeholders expanded (invalid_config when one has no value).
function resolveRemote(config: RemoteServerConfig, sources: VariableSources, collect: Set<string>): RemoteServerConfig {
  const resolved = launchConfig(config, sources, 'connected', collect);
  const problem = urlProblem(resolved.url);
  if (problem !== undefined) {
    throw new AgtError('invalid_config', `the expanded "url" ${problem}; correct the variables it is built from`, {
      details: { reason: 'invalid_url', field: 'config.url' },
    });
  }
  return resolved;
}

function stdioFailure(transport: ProcessGroupStdioTransport, timeouts: Timeouts): AgtError {
  if (transport.fatal !== undefined) return transport.fatal;
  if (transport.exit !== undefined) {
    const { code, signal } = transport.exit;
    return new AgtError('exited_early', `the server exited before the handshake finished (${signal ?? `exit code ${code}`})`, {
      details: { exitCode: code, signal },
    });
  }
  return new AgtError('connection_closed', 'the connection closed during the handshake', { details: { timeoutMs: timeouts.handshakeMs } });
}

// Package runners download before the server starts: the first start of a package takes long.
const RUNNERS = new Set(['npx', 'uvx', 'bunx', 'pnpm', 'yarn', 'pipx', 'docker', 'uv']);

function handshakeError(error: unknown, transport: ProcessGroupStdioTransport, timeouts: Timeouts, command: string): AgtError {
  if (transport.fatal !== undefined || transport.exit !== undefined) return withStderr(stdioFailure(transport, timeouts), transport);
  const timedOut = error instanceof McpError && error.code === -32001;
  if (timedOut && transport.garbageLines > 0) {
    return withStderr(
      new AgtError(
        'protocol_error',
        `the server wrote ${transport.garbageLines} non-JSON line(s) on stdout and never answered initialize; MCP servers must keep stdout for JSON-RPC and log to stderr`,
        {
          details: { reason: 'non_json_output', garbageLines: transport.garbageLines },
        },
      ),
      transport,
    );
  }
  if (timedOut) {
    const runner = path.basename(command);
    const hint = RUNNERS.has(runner)
      ? `; ${runner} may still be downloading the package on a cold start: give it more time (agt mcp probe --timeout 60000, or "handshakeTimeoutMs" in the config)`
      : '';
    return withStderr(
      new AgtError('handshake_timeout', `the server did not answer initialize within ${timeouts.handshakeMs} ms${hint}`, {
        details: { phase: 'initialize', timeoutMs: timeouts.handshakeMs },
      }),
      transport,
    );
  }
  const oversized = oversizedAnswer(error, 'initialize');
  if (oversized !== undefined) return withStderr(oversized, transport);
  const text = error instanceof Error ? error.message : String(error);
  return withStderr(
    new AgtError(
      'protocol_error',
      /protocol version/i.test(text)
        ? 'the server answered with a protocol version this client does not support'
        : 'the server answered initialize with something that is not a valid MCP response',
      {
        details: { reason: /protocol version/i.test(text) ? 'unsupported_protocol_version' : 'invalid_initialize' },
        cause: error,
      },
    ),
    transport,
  );
}
