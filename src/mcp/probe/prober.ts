/**
 * McpProber (P2–P4): starts or connects a server exactly the way a run does
 * (connectMcp, with the same client capabilities), performs initialize and
 * every page of tools/list, compiles every tool's inputSchema and outputSchema
 * with the ToolSchemaRegistry, counts the resources and prompts the server
 * declares, and always closes. It calls no business tool.
 *
 * A probe is a live action (P3): it executes the configured command on this
 * host, with no sandbox, or contacts the URL. Its result is no certificate
 * (P4): every run connects and lists tools again.
 */
import { defined, isPlainObject } from '../../json.js';
import { AgtError, isAgtError } from '../../errors.js';
import type { McpDocument } from '../../config/mcp-config.js';
import type { ResourceService } from '../../resources/service.js';
import { ToolSchemaRegistry } from '../../schema/registry.js';
import type { McpAuth } from '../auth/auth.js';
import { connectMcp } from '../connect.js';
import type { McpConnection } from '../connection.js';
import type { EraVerdict, ProtocolEra } from '../settings/era.js';
import { rememberVerdict } from '../settings/verdicts.js';
import { hostVariablesWarning } from '../../config/placeholders.js';
import type { VariableSources } from '../../config/variables.js';
import { checkedSettingsOf, type ResolvedConnectSettings, resolveConnectSettings, strictOf } from '../settings/resolved-settings.js';
import { type ConnectSettings, knownWithSettings } from '../settings/settings.js';
import { checkKnownKeys } from '../../config/unknown-keys.js';
import type { Timeouts } from '../settings/timeouts.js';
import { appsOf, judge, probeLists } from './probe-lists.js';
import { estimateTokens } from '../../toolsearch/tokens.js';

import type { ProbedApp, ProbedTool } from './probe-lists.js';
export type { ProbedApp, ProbedSchemaError, ProbedTool } from './probe-lists.js';

/** The count of one list the server declares, or why it failed to list. */
export interface ProbedList {
  count: number;
  error?: string;
}

/** What a probe found. */
export interface ProbeReport {
  /** True when every tool loaded, and every list the server declares could be read. */
  ok: boolean;
  server: { name: string; version: string };
  protocolVersion: string;
  /** The protocol era the server was reached on (E1): `modern` (2026-07-28) or `legacy` (2025). */
  era: ProtocolEra;
  /** What the probe learned of the server's era (the discover result of a modern server): remembered beside the registry (E2). */
  verdict: EraVerdict;
  capabilities: Record<string, unknown>;
  /** What this client declared (the same a run with the same handlers declares). */
  clientCapabilities: Record<string, unknown>;
  transport: string;
  timings: { spawnMs: number; initializeMs: number; listMs: number; closeMs: number };
  tools: ProbedTool[];
  /** The estimated tokens of the tools' definitions as a model is sent them (about 4 characters a token; tool search budgets count these). */
  toolTokens: number;
  /** Present when the server declares resources: resources and templates. */
  resources?: ProbedList & { templates: number };
  /** Present when the server declares prompts. */
  prompts?: ProbedList;
  /** Present when a tool declares an interface (MCP Apps `_meta.ui.resourceUri`): each such tool, its `ui://` URI, who may call it. */
  apps?: ProbedApp[];
  /** Present when the server declares the MCP Skills extension: its skills as listed (no file is read). */
  skills?: { uri: string; name: string; description: string }[];
  /** The server's instructions from initialize (masked), when it gives any. */
  instructions?: string;
  /** The round trip of one `ping` after listing (2026-07-28: a `server/discover`); absent when the server did not answer it (a warning says so). */
  pingMs?: number;
  /** Log messages (`notifications/message`) the server sent during the probe: whether it logs. */
  logMessages: number;
  warnings: string[];
  stderrTail: string;
}

/**
 * Options of {@link McpProber}: the connect settings (or resolved `settings`); the handlers decide the client capabilities,
 * as in a run, and so does `apps` (MCP Apps: `agt mcp probe` declares it, so servers that list their interfaces only to
 * clients that render them show them).
 */
export interface McpProberOptions extends ConnectSettings {
  /** The connect settings resolved once (a run gives its own); not beside ConnectSettings fields. */
  settings?: ResolvedConnectSettings;
  /** Needed to probe stored references. */
  service?: ResourceService;
  registry?: ToolSchemaRegistry;
  /** Show what servers repeat of their configs' secrets in reports (the CLI's --show-secrets); default masked. */
  revealSecrets?: boolean;
}

/** Every key of McpProberOptions beyond its ConnectSettings, once: the compiler fails here when an option is not listed. */
const PROBER_KEYS = { settings: true, service: true, registry: true, revealSecrets: true } as const satisfies Record<
  Exclude<keyof McpProberOptions, keyof ConnectSettings>,
  true
>;
const PROBER_KNOWN = knownWithSettings(Object.keys(PROBER_KEYS));
/** What one probe's options know (a misspelled `timeout` is refused, as in the prober's). */
const PROBE_KEYS: readonly string[] = Object.freeze(['auth', 'variables', 'timeouts', 'onPhase']);

/** The phases of a probe, for progress displays. */
export type ProbePhase = 'starting' | 'handshake' | 'listing' | 'closing';

// A remote server that gets host variables: said in the report, as in writes and static tests.
function sendsHostVariables(document: McpDocument): string[] {
  const server: unknown = Object.values(document.mcpServers ?? {})[0];
  const warning = isPlainObject(server) ? hostVariablesWarning(server) : undefined;
  return warning === undefined ? [] : [warning];
}

/** Probes MCP servers live. */
export class McpProber {
  readonly #options: McpProberOptions;
  readonly #settings: ResolvedConnectSettings;
  readonly #registry: ToolSchemaRegistry;

  constructor(options: McpProberOptions = {}) {
    // A bad value or an unknown key fails here, before any probe (strict: false: a warning in every report).
    this.#settings = checkedSettingsOf(options, PROBER_KNOWN, 'McpProber options');
    this.#options = options;
    this.#registry = options.registry ?? new ToolSchemaRegistry();
  }

  /**
   * Probes a stored reference (needs `service`) or a document; a launch
   * failure rejects with its AgtError code. `auth` applies to a document.
   */
  async probe(
    target: string | McpDocument,
    options: { auth?: McpAuth; variables?: VariableSources; timeouts?: Partial<Timeouts>; onPhase?(phase: ProbePhase): void } = {},
  ): Promise<ProbeReport> {
    // The probe's own options, checked as the prober's were: strict as the prober says (nested ones by resolveConnectSettings).
    const strict = strictOf(this.#options);
    const optionWarnings = checkKnownKeys(options, PROBE_KEYS, 'McpProber.probe options', strict);
    const { auth, variables, timeouts, onPhase } = options;
    const own = defined({ auth, variables, timeouts });
    const settings = Object.keys(own).length === 0 ? this.#settings : resolveConnectSettings({ ...own, strict }, this.#settings);
    const record = typeof target === 'string' ? await this.#read(target) : undefined;
    const document = record?.data ?? (target as McpDocument);
    // A stored server: the prober's auth for it; a document: the probe's own, else the prober's single provider.
    // (A reference without a revision: connectMcp neither uses nor records a verdict — the probe records its own.)
    const connection = await connectMcp(document, {
      settings,
      ...(typeof target === 'string' ? { reference: target } : {}),
      registry: this.#registry,
      ...defined({ onPhase }),
      ...(this.#options.revealSecrets ? { revealSecrets: true } : {}),
    });
    let logMessages = 0;
    connection.onLog(() => (logMessages += 1));
    let listed: Awaited<ReturnType<typeof probeLists>>;
    let pingMs: number | undefined;
    const warnings: string[] = [...optionWarnings];
    try {
      onPhase?.('listing');
      listed = await probeLists(connection);
      // One round trip after listing: a ping in 2025, a server/discover in 2026-07-28 (which has no ping).
      pingMs = await connection.ping().catch((error: unknown) => {
        warnings.push(`the server did not answer ping: ${isAgtError(error) ? error.message : 'unknown error'}`);
        return undefined;
      });
    } catch (error) {
      await connection.close();
      throw error;
    }
    // The close (ending the process tree) needs nothing of what follows, and the report needs nothing of the close but
    // its time: it runs while the verdict is stored and the schemas compile (as far as the server's exit lets it).
    onPhase?.('closing');
    const closing = timedClose(connection);
    closing.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
    let tools: ProbedTool[];
    let apps: ProbedApp[];
    try {
      await new Promise((resolve) => setImmediate(resolve)); // the close has sent its end of stdin: the server exits meanwhile
      // What the probe learned of the server's era is remembered for the runs of this revision (E2).
      if (record !== undefined && typeof target === 'string')
        await rememberVerdict(
          {
            ...defined({ verdicts: this.#settings.verdicts }),
            reference: target,
            revision: record.revision,
            waitMs: this.#settings.timeouts.handshakeMs,
            warnings,
          },
          connection.verdict,
          undefined,
        );
      tools = judge(listed.tools, this.#registry);
      apps = appsOf(listed.tools);
    } finally {
      await closing; // the report is read once the tree has ended (a close that fails fails the probe, as before)
    }
    const closeMs = await closing;
    return {
      ok:
        tools.every((t) => t.ok) &&
        listed.resources?.error === undefined &&
        listed.prompts?.error === undefined &&
        listed.skillsError === undefined,
      server: connection.serverInfo,
      protocolVersion: connection.protocolVersion,
      era: connection.era,
      verdict: connection.verdict,
      capabilities: connection.capabilities,
      clientCapabilities: connection.clientCapabilities,
      transport: connection.transport,
      timings: { ...connection.timings, listMs: listed.listMs, closeMs },
      tools,
      toolTokens: estimateTokens(
        listed.tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema ?? {} })),
      ),
      ...defined({ resources: listed.resources }),
      ...(apps.length > 0 ? { apps } : {}),
      ...defined({ prompts: listed.prompts, skills: listed.skills }),
      ...defined({ instructions: connection.instructions, pingMs }),
      logMessages,
      warnings: [
        ...sendsHostVariables(document),
        ...connection.warnings,
        ...warnings,
        ...(listed.skillsError ? [`skills/list: ${listed.skillsError}`] : []),
      ],
      stderrTail: connection.stderrTail(),
    };
  }

  async #read(reference: string): Promise<{ data: McpDocument; revision: number }> {
    if (this.#options.service === undefined) {
      throw new AgtError(
        'invalid_input',
        'McpProber needs { service } to probe a stored reference; pass a { mcpServers } document to probe without one',
      );
    }
    const record = await this.#options.service.read({ kind: 'mcp', reference });
    return { data: record.data as McpDocument, revision: record.revision };
  }
}

async function timedClose(connection: McpConnection): Promise<number> {
  const started = performance.now();
  await connection.close();
  return performance.now() - started;
}
