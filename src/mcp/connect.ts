/**
 * connectMcp: the only way anything opens an MCP connection. Probes and runs
 * both call it, so a probe starts a server exactly the way a run does (P2).
 */
import { Client } from '@modelcontextprotocol/client';
import pkg from '../../package.json' with { type: 'json' };
import { AgtError, isAgtError } from '../errors.js';
import { DISCOVER_PROBE_SHARE, MAX_NAME_LENGTH } from '../bounds.js';
import { defined, isPlainObject } from '../json.js';
import { type McpDocument, type McpServerConfig, normaliseMcpDocument, type RemoteServerConfig } from '../config/mcp-config.js';
import { headerProblem, urlProblem } from '../config/remote-rules.js';
import { secretMasker } from '../config/secrets.js';
import { launchConfig, type VariableSources } from '../config/variables.js';
import { ToolSchemaRegistry } from '../schema/registry.js';
import { installHandlers, registryValidator } from './requests/client-handlers.js';
import { connectStdio, EXITED_ON_PROBE, lateModernAnswer } from './process/connect-stdio.js';
import { type McpConnection, openConnection } from './connection.js';
import { type EraVerdict, MODERN_PROTOCOL_VERSION, modernPrior, priorOf, versionNegotiation } from './settings/era.js';
import { listenForChanges } from './requests/listen.js';
import { NotificationHub } from './requests/notifications.js';
import { basicToken, connectRemote } from './remote.js';
import { checkedSettingsOf, type ResolvedConnectSettings } from './settings/resolved-settings.js';
import { authFor, type ConnectSettings, knownWithSettings } from './settings/settings.js';
import type { Timeouts } from './settings/timeouts.js';
import { forgetVerdict, rememberedVerdict, rememberVerdict, type VerdictMemory } from './settings/verdicts.js';

/** What the library says it is during initialize: its name and its package version. */
const CLIENT_INFO = { name: 'agt-mcp', version: pkg.version } as const;

/**
 * Options of {@link connectMcp}: the connect settings — as ConnectSettings
 * fields, or resolved once as `settings` (not both) — and what concerns one
 * connection.
 */
export interface ConnectOptions extends ConnectSettings {
  /** The settings resolved once ({@link resolveConnectSettings}): what probers, runs and pools pass to each connection. */
  settings?: ResolvedConnectSettings;
  /** The stored reference of the server, if it is one: what a function `auth` is given (else `''`). */
  reference?: string;
  /** The revision of the stored server's config: the verdict of this revision is used and recorded (E2). */
  revision?: number;
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
  /**
   * What an earlier connection learned of this server's era (E2): the
   * connection adopts it and skips the `server/discover` probe. A modern
   * verdict the server no longer honours fails loudly; a legacy one is the
   * caller's to date (McpProber records both, with when).
   */
  verdict?: EraVerdict;
}

/** Every key of ConnectOptions beyond its ConnectSettings, once: the compiler fails here when an option is not listed. */
const OPTION_KEYS = {
  settings: true,
  reference: true,
  revision: true,
  registry: true,
  onPhase: true,
  revealSecrets: true,
  verdict: true,
} as const satisfies Record<Exclude<keyof ConnectOptions, keyof ConnectSettings>, true>;
const CONNECT_OPTIONS_KNOWN = knownWithSettings(Object.keys(OPTION_KEYS));

/**
 * Opens a connection to the server of a document or config; rejects with a stable AgtError code. An unknown option
 * (nested ones too: `timeouts.callMS`) is invalid_input naming the closest; `strict: false`: a warning on the connection.
 */
export async function connectMcp(target: McpDocument | McpServerConfig, options: ConnectOptions = {}): Promise<McpConnection> {
  const settings = checkedSettingsOf(options, CONNECT_OPTIONS_KNOWN, 'connectMcp options');
  // A verdict store gets the handshake's time to answer; one that does not is skipped, with a warning on the connection.
  const memory: VerdictMemory = {
    ...defined({ verdicts: settings.verdicts, reference: options.reference, revision: options.revision }),
    legacyVerdictMs: settings.legacyVerdictMs,
    waitMs: settings.timeouts.handshakeMs,
    warnings: [],
  };
  let remembered = options.verdict ?? (await rememberedVerdict(memory));
  let connection: McpConnection;
  try {
    // A verdict of the store opens a modern connection with no round trip: its first request is what tells it stale.
    const doubt = options.verdict === undefined && remembered !== undefined ? () => forgetVerdict(memory) : undefined;
    connection = await connectWith(target, settings, { ...options, ...defined({ verdict: remembered }) }, doubt);
  } catch (error) {
    // A stored verdict the server no longer honours: forgotten, and the era negotiated at once (E2).
    if (options.verdict !== undefined || remembered === undefined || !isAgtError(error) || !STALE_VERDICT.has(error.code)) throw error;
    await forgetVerdict(memory);
    remembered = undefined;
    connection = await connectWith(target, settings, options);
  }
  await rememberVerdict(memory, connection.verdict, remembered);
  connection.warnings.push(...settings.warnings, ...memory.warnings);
  return connection;
}

// What opening from a stale verdict fails with: the other era's handshake refused, or a pinned-looking mismatch.
const STALE_VERDICT = new Set(['protocol_error', 'protocol_mismatch']);

async function connectWith(
  target: McpDocument | McpServerConfig,
  settings: ResolvedConnectSettings,
  options: ConnectOptions,
  doubtVerdict?: () => Promise<void>,
): Promise<McpConnection> {
  const document = isPlainObject(target) && 'mcpServers' in target ? target : { mcpServers: { server: target } };
  const { config } = normaliseMcpDocument(document);
  // The config's own handshake timeout (cold npx/uvx starts), unless the caller set one.
  const timeouts: Timeouts =
    config.handshakeTimeoutMs && settings.given.timeouts?.handshakeMs === undefined
      ? { ...settings.timeouts, handshakeMs: config.handshakeTimeoutMs }
      : settings.timeouts;
  const { handlers, capabilities: declared } = settings;
  const validator = registryValidator(options.registry ?? new ToolSchemaRegistry());
  const hub = new NotificationHub();
  const choice = config.protocol;
  const prior = priorOf(options.verdict, choice);
  // On stdio a silent probe means a legacy server: the probe gets half the handshake, initialize the rest.
  // A pin has no initialize after it: its probe gets the whole handshake (a slow start is a timeout, never a mismatch).
  const probeMs =
    'command' in config && choice !== MODERN_PROTOCOL_VERSION
      ? Math.max(1, Math.ceil(timeouts.handshakeMs * DISCOVER_PROBE_SHARE))
      : timeouts.handshakeMs;
  const newClient = (era = choice) => {
    const client = new Client(CLIENT_INFO, {
      capabilities: declared,
      jsonSchemaValidator: validator,
      versionNegotiation: versionNegotiation(era, probeMs),
    });
    installHandlers(client, handlers);
    hub.attach(client);
    return client;
  };
  const auth = authFor(settings.auth, { kind: 'mcp', reference: options.reference ?? '' });
  const base = {
    timeouts,
    hub,
    clientCapabilities: declared,
    handlers,
    tasks: settings.tasks,
    clientInfo: CLIENT_INFO,
    ...defined({ endpointId: options.reference }),
    ...defined({ auth, pingIntervalMs: settings.pingIntervalMs, doubtVerdict }),
  };
  // The config's secrets as the server gets them (env, envFile, headers, passwords, and the values placeholders
  // resolved to): errors never show them; what the server sends back shows them only with revealSecrets.
  const collected = new Set<string>();
  const secrets = secretMasker([]);
  const shown = options.revealSecrets ? secretMasker([]) : secrets;
  if ('command' in config) {
    const attempt = (known: typeof prior) =>
      connectStdio(
        newClient(),
        config,
        timeouts,
        { variables: settings.variables, maxMessageBytes: settings.maxMessageBytes, ...defined({ onPhase: options.onPhase }) },
        { collected, masker: secrets, prior: known },
      );
    // A legacy server that exits on a request before initialize (servers on the Rust SDK do): started once more, legacy (E1).
    let stdio = await attempt(prior);
    if (stdio === EXITED_ON_PROBE) stdio = await attempt({ kind: 'legacy' });
    if (stdio === EXITED_ON_PROBE) throw new AgtError('exited_early', 'the server exited before the handshake finished');
    // A modern server that started slower than the probe's share answers the probe late, after the SDK initialized
    // on 2025: the era must not depend on the machine's load, so it is started once more on what it answered (E1).
    const late = lateModernAnswer(stdio, prior);
    if (late !== undefined) {
      await stdio.client.close();
      const again = await attempt(modernPrior(late));
      if (again === EXITED_ON_PROBE) throw new AgtError('exited_early', 'the server exited before the handshake finished');
      again.warnings.push(
        `the server answered server/discover after the ${probeMs} ms the era probe waits (a slow start), so it was started once more on ${MODERN_PROTOCOL_VERSION}; a larger "handshakeTimeoutMs" in its config avoids the second start`,
      );
      stdio = again;
    }
    const listening = await changeListener(stdio.client, timeouts, stdio.warnings);
    return openConnection({ ...base, ...stdio, kind: 'stdio', masker: shown, ...defined({ listener: listening }) });
  }
  options.onPhase?.('handshake');
  const remoteConfig = resolveRemote(config, settings.variables, collected);
  for (const value of [...remoteSecrets(remoteConfig), ...collected]) secrets.add(value);
  const remote = await connectRemote(newClient, remoteConfig, timeouts, { auth, masker: secrets, prior, choice }, settings.maxMessageBytes);
  const warnings: string[] = [];
  const listening = await changeListener(remote.client, timeouts, warnings);
  return openConnection({
    ...base,
    ...remote,
    timings: { spawnMs: remote.connectMs, initializeMs: remote.initializeMs },
    warnings,
    masker: shown,
    ...defined({ listener: listening }),
  });
}

// A 2026-07-28 connection's stream of change notifications; a server that refuses it still serves calls (a warning says so).
async function changeListener(client: Client, timeouts: Timeouts, warnings: string[]) {
  if (client.getProtocolEra() !== 'modern') return undefined;
  try {
    return await listenForChanges(client, timeouts.listMs);
  } catch (error) {
    warnings.push(`the server did not open a subscriptions/listen stream, so its list changes are not seen (${(error as Error).name})`);
    return undefined;
  }
}

// The secrets a remote config sends: header values and the URL's password (and the Basic token made of it).
function remoteSecrets(config: RemoteServerConfig): string[] {
  // Header values (the masker also takes the token of a "Scheme token" value: the one scheme rule).
  const out = Object.values(config.headers ?? {});
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
// A remote config's url and headers with their placeholders expanded (invalid_config when one has no value).
function resolveRemote(config: RemoteServerConfig, sources: VariableSources, collect: Set<string>): RemoteServerConfig {
  const resolved = launchConfig(config, sources, 'connected', collect);
  for (const [name, value] of Object.entries(resolved.headers ?? {})) {
    const bad = headerProblem(name, value);
    if (bad !== undefined)
      throw new AgtError(
        'invalid_config',
        `the expanded header "${name.slice(0, MAX_NAME_LENGTH)}": ${bad}; correct the variables it is built from`,
        {
          details: { reason: 'invalid_header', field: `config.headers.${name.slice(0, MAX_NAME_LENGTH)}` },
        },
      );
  }
  const problem = urlProblem(resolved.url);
  if (problem !== undefined) {
    throw new AgtError('invalid_config', `the expanded "url" ${problem}; correct the variables it is built from`, {
      details: { reason: 'invalid_url', field: 'config.url' },
    });
  }
  return resolved;
}
