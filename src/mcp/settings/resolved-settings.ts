/**
 * Resolved connect settings: ConnectSettings resolved once into one frozen value —
 * every timeout (the call timeout among them), the message bound, auth,
 * placeholder values, the handlers and the capabilities they declare, the
 * keepalive, tasks, era verdicts and the secret rule. connectMcp, McpProber,
 * NativeRun, McpPool and the CLI sessions all take it, so each rule is
 * checked and defaulted in this one place.
 */
import { type TaskMode, taskMode } from '../tasks/capabilities.js';
import { AgtError } from '../../errors.js';
import type { VariableSources } from '../../config/variables.js';
import { type ClientHandlers, clientCapabilities, type ServerRequestContext } from '../requests/client-handlers.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../oversized.js';
import {
  type AuthSetting,
  checkMaxMessageBytes,
  clientHandlersOf,
  CONNECT_NESTED_KEYS,
  CONNECT_SETTINGS_KNOWN,
  type ConnectSettings,
} from './settings.js';
import { checkKnownKeys, type KnownKeys } from '../../config/unknown-keys.js';
import { checkPingInterval } from '../keepalive.js';
import { UI_CAPABILITY, UI_EXTENSION } from '../apps/ui-meta.js';
import { resolveTimeouts, TIMEOUT_KEYS, type Timeouts } from './timeouts.js';
import { checkVerdictAge, DEFAULT_LEGACY_VERDICT_MS, type EraVerdictStore } from './verdicts.js';

/** ConnectSettings resolved: checked, defaults filled in, frozen. Build one with {@link resolveConnectSettings}. */
export interface ResolvedConnectSettings {
  /** The settings as given (what a pool layers a run's own values from). */
  readonly given: Readonly<ConnectSettings>;
  /** Every time limit, defaults filled in; `callMs` is the call timeout. */
  readonly timeouts: Readonly<Timeouts>;
  /** Longest accepted message (a stdio line, a response body, one stream event). */
  readonly maxMessageBytes: number;
  /** The authorization: one provider, or a function of the stored server; undefined: none. */
  readonly auth: AuthSetting | undefined;
  /** Values for the configs' placeholders. */
  readonly variables: VariableSources;
  /** The handlers of server-initiated requests (a roots list already checked). */
  readonly handlers: Readonly<ClientHandlers>;
  /** The client capabilities those handlers declare. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** MCP Apps rendered: the extension is declared (capabilities), interfaces marked on tools and results. */
  readonly apps: boolean;
  /** The keepalive interval; undefined: off. */
  readonly pingIntervalMs: number | undefined;
  /** What calls the server runs as tasks do: 'off' (never asked for), 'wait' (inline) or 'defer'. */
  readonly tasks: TaskMode;
  /** Where era verdicts are remembered (E2); undefined: every connection negotiates. */
  readonly verdicts: EraVerdictStore | undefined;
  /** How long a legacy verdict is used before the server is asked again. */
  readonly legacyVerdictMs: number;
  /** Unknown keys accepted because `strict` was false, one warning each (a connection made with these settings repeats them). */
  readonly warnings: readonly string[];
  /** Shortest config value masked in what a server sends back, stderr included. */
}

const RESOLVED = Symbol.for('agt-mcp.ResolvedConnectSettings');

/** The names of ConnectSettings fields: what may not stand beside resolved `settings`. */
export const CONNECT_SETTING_FIELDS = [
  'timeouts',
  'auth',
  'variables',
  'maxMessageBytes',
  'elicitation',
  'elicitationModes',
  'sampling',
  'samplingTools',
  'roots',
  'tasks',
  'pingIntervalMs',
  'verdicts',
  'legacyVerdictMs',
  'apps',
] as const satisfies readonly (keyof ConnectSettings)[];

/**
 * Resolves `settings` into a frozen ResolvedConnectSettings: invalid_input names the
 * first bad field, or an unknown key and the closest known one (`strict: false`: a warning), before anything
 * connects. With `base`, the fields `settings` gives replace those of `base` (a probe's own timeouts, a run's
 * own auth over a pool's).
 */
export function resolveConnectSettings(settings: ConnectSettings = {}, base?: ResolvedConnectSettings): ResolvedConnectSettings {
  return resolveWith(settings, base, checkKnownKeys(settings, CONNECT_SETTINGS_KNOWN, 'ConnectSettings', strictOf(settings)));
}

/**
 * The ConnectSettings fields among larger options (a run's, a pool's, a connection's), resolved: their other keys
 * are the caller's to check.
 */
export function resolveSettingsWithin(options: ConnectSettings): ResolvedConnectSettings {
  strictOf(options);
  return resolveWith(options, undefined, []);
}

/** The `strict` setting (default true); anything but a boolean is invalid_input. */
export function strictOf(settings: { strict?: unknown } | undefined): boolean {
  const strict = settings?.strict;
  if (strict === undefined || typeof strict === 'boolean') return strict !== false;
  throw new AgtError('invalid_input', 'strict must be true or false', { details: { field: 'strict' } });
}

function resolveWith(settings: ConnectSettings, base: ResolvedConnectSettings | undefined, warnings: string[]): ResolvedConnectSettings {
  // Keys of the option objects accepted unknown (strict: false) are left out: layering these settings checks them again.
  const picked = pickSettings(settings);
  const given: ConnectSettings = Object.freeze({
    ...base?.given,
    ...picked,
    ...(picked.variables === undefined ? {} : { variables: knownOnly(picked.variables, VARIABLE_KEYS) }),
    ...(settings.timeouts || base?.given.timeouts
      ? { timeouts: knownOnly({ ...base?.given.timeouts, ...settings.timeouts }, TIMEOUT_KEYS) }
      : {}),
  });
  // Every value checked once, in this order, so the first bad field is the one named.
  const timeouts = Object.freeze(resolveTimeouts(given.timeouts));
  checkMaxMessageBytes(given.maxMessageBytes);
  checkPingInterval(given.pingIntervalMs);
  checkVerdictAge(given.legacyVerdictMs);
  if (given.apps !== undefined && typeof given.apps !== 'boolean')
    throw new AgtError('invalid_input', 'apps must be true or false', { details: { field: 'apps' } });
  const handlers = Object.freeze(clientHandlersOf(given)); // a roots list is checked here
  const out: ResolvedConnectSettings = {
    given,
    timeouts,
    maxMessageBytes: given.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    auth: given.auth,
    variables: given.variables ?? {},
    handlers,
    capabilities: Object.freeze(withApps(clientCapabilities(handlers), given.apps === true)),
    apps: given.apps === true,
    pingIntervalMs: given.pingIntervalMs,
    tasks: taskMode(given.tasks),
    verdicts: given.verdicts,
    legacyVerdictMs: given.legacyVerdictMs ?? DEFAULT_LEGACY_VERDICT_MS,
    warnings: Object.freeze([...(base?.warnings ?? []), ...warnings]),
  };
  Object.defineProperty(out, RESOLVED, { value: true });
  return Object.freeze(out);
}

// The client capabilities with the MCP Apps extension declared when the host renders apps.
function withApps(capabilities: Record<string, unknown>, apps: boolean): Record<string, unknown> {
  if (!apps) return capabilities;
  const extensions = (capabilities.extensions ?? {}) as Record<string, unknown>;
  return { ...capabilities, extensions: { ...extensions, [UI_EXTENSION]: { mimeTypes: [...UI_CAPABILITY.mimeTypes] } } };
}

const VARIABLE_KEYS = CONNECT_NESTED_KEYS.variables?.keys ?? [];

// The known keys of an option object (a value that is no object is left for its own check to name).
function knownOnly<T>(value: T, keys: readonly string[]): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(value, key)) out[key] = (value as Record<string, unknown>)[key];
  return out as T;
}

/** True for a value {@link resolveConnectSettings} made. */
export function isResolvedConnectSettings(value: unknown): value is ResolvedConnectSettings {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RESOLVED] === true;
}

/**
 * The resolved settings of options that carry either resolved `settings` or
 * the ConnectSettings fields themselves (resolved here); both at once is
 * invalid_input naming the field.
 */
export function settingsOf<C extends ServerRequestContext>(
  options: ConnectSettings<C> & { settings?: ResolvedConnectSettings },
  warnings: readonly string[] = [],
): ResolvedConnectSettings {
  const { settings } = options;
  if (settings === undefined) {
    strictOf(options);
    return resolveWith(options as ConnectSettings, undefined, [...warnings]);
  }
  if (!isResolvedConnectSettings(settings))
    throw new AgtError('invalid_input', 'settings must be made by resolveConnectSettings', { details: { field: 'settings' } });
  const beside = CONNECT_SETTING_FIELDS.find((field) => options[field] !== undefined);
  if (beside !== undefined)
    throw new AgtError(
      'invalid_input',
      `give either resolved settings or ConnectSettings fields, not both ("${beside}" is set beside settings)`,
      {
        details: { field: beside },
      },
    );
  return warnings.length === 0 ? settings : resolveWith({}, settings, [...warnings]);
}

/**
 * {@link settingsOf} for options whose own keys stand beside their ConnectSettings fields (a pool's, a prober's,
 * connectMcp's): every key, nested option objects too, is checked against `known` first. An unknown one is
 * invalid_input naming it and the closest known key; with `strict: false`, a warning the settings carry (and so
 * every connection made with them).
 */
export function checkedSettingsOf<C extends ServerRequestContext>(
  options: ConnectSettings<C> & { settings?: ResolvedConnectSettings },
  known: KnownKeys,
  where: string,
): ResolvedConnectSettings {
  return settingsOf(options, checkKnownKeys(options, known, where, strictOf(options)));
}

// The ConnectSettings fields (but timeouts) a larger options object sets (a run's, a pool's, a prober's).
function pickSettings<C extends ServerRequestContext>(options: ConnectSettings<C>): ConnectSettings {
  const out: Record<string, unknown> = {};
  for (const field of CONNECT_SETTING_FIELDS) if (field !== 'timeouts' && options[field] !== undefined) out[field] = options[field];
  return out as ConnectSettings;
}

/** The ConnectSettings field names. */
export type ConnectSettingField = (typeof CONNECT_SETTING_FIELDS)[number];

/**
 * `options` with its connect settings resolved once into `settings` (its
 * ConnectSettings fields taken out), `extra` settings layered over them: what
 * a caller that connects more than once, or adds its own auth, passes on.
 */
export function resolvedOptions<T extends ConnectSettings & { settings?: ResolvedConnectSettings }>(
  options: T,
  extra?: ConnectSettings,
): Omit<T, ConnectSettingField> & { settings: ResolvedConnectSettings } {
  const base = settingsOf(options);
  const rest = { ...options } as Record<string, unknown>;
  for (const field of CONNECT_SETTING_FIELDS) delete rest[field];
  return { ...(rest as Omit<T, ConnectSettingField>), settings: extra === undefined ? base : resolveConnectSettings(extra, base) };
}
