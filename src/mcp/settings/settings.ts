/**
 * ConnectSettings: how agt-mcp connects to MCP servers, one type shared by
 * `connectMcp`, `McpProber`, `NativeRun` and `McpPool`: the time limits (the
 * call timeout among them), authorization in either of its two forms,
 * placeholder values, and the handlers of server-initiated requests. They are
 * checked and resolved once, by resolveConnectSettings (resolved-settings.ts).
 */
import type { ResourceRef } from '../../resources/types.js';
import type { VariableSources } from '../../config/variables.js';
import type { McpAuth } from '../auth/auth.js';
import { AgtError } from '../../errors.js';
import { MIN_MAX_MESSAGE_BYTES } from '../../bounds.js';
import { defined } from '../../json.js';
import {
  type ClientHandlers,
  type CreateMessageResult,
  DEFER,
  type InputMethod,
  type ElicitationRequest,
  type ElicitResult,
  type McpRoot,
  type SamplingRequest,
  type ServerRequestContext,
} from '../requests/client-handlers.js';
import { TIMEOUT_KEYS, type Timeouts } from './timeouts.js';
import type { KnownKeys } from '../../config/unknown-keys.js';
import type { EraVerdictStore } from './verdicts.js';

/** Authorization for remote servers: one provider for every server, or one per stored server (undefined: none). */
export type AuthSetting = McpAuth | ((server: ResourceRef) => McpAuth | undefined);

// A handler's type, bivariant in its context as a method's is (a run's handlers are told more than a connection's).
type Answer<R, C, A> = { answer(request: R, context: C): Promise<A> }['answer'];

/** The settings of connecting; `C` is what the server-request handlers are told (a run tells more). */
export interface ConnectSettings<C extends ServerRequestContext = ServerRequestContext> {
  /** Time limits of each phase, and of each call (`callMs`); defaults: DEFAULT_TIMEOUTS. */
  timeouts?: Partial<Timeouts>;
  /** An OAuthClientProvider (SDK) or `{ bearer }`, or a function of the stored server that gives one. */
  auth?: AuthSetting;
  /** Values for the configs' placeholders: the environment (default process.env) and declared inputs. */
  variables?: VariableSources;
  /**
   * Longest accepted message: a stdio line, a remote response body or one event of its stream. Default 4 MiB.
   * A longer answer fails only its request (protocol_error, reason oversized_message); the connection lives on.
   */
  maxMessageBytes?: number;
  /**
   * Answers servers' elicitation requests (form mode); without it, elicitation is not declared. `'defer'` declares
   * it (form and URL) and leaves every question of a 2026-07-28 server pending for the host (a run's `pending`,
   * answered with `run.decide`); a 2025 server's pushed question cannot wait and is refused (docs/runtime.md).
   */
  elicitation?: Answer<ElicitationRequest, C, ElicitResult> | typeof DEFER;
  /** The elicitation modes `elicitation` accepts; default `['form']`. With `'url'`, URL-mode elicitation (2025-11-25) is declared. */
  elicitationModes?: readonly ('form' | 'url')[];
  /** Answers servers' sampling requests; without it, sampling is not declared. `'defer'`: as for elicitation. */
  sampling?: Answer<SamplingRequest, C, CreateMessageResult> | typeof DEFER;
  /** `sampling` accepts `tools` and `toolChoice` (2025-11-25): `sampling.tools` is declared. */
  samplingTools?: boolean;
  /**
   * The roots offered to servers (`roots/list`): a list, or a function asked each time. Without it, roots are not
   * declared. `'defer'`: as for elicitation.
   */
  roots?: readonly McpRoot[] | ((context: C) => McpRoot[] | Promise<McpRoot[]>) | typeof DEFER;
  /**
   * Calls the server runs as tasks (a 2025 server that declares `tasks.requests.tools.call`, for tools whose
   * `execution.taskSupport` is `required` or `optional`; a 2026-07-28 server that declares the
   * `io.modelcontextprotocol/tasks` extension, for any call it chooses), through `@modelcontextprotocol/ext-tasks`.
   * `'wait'` (or `true`; the default): the call waits for its task inline — polling at the server's interval, clamped to
   * 20 ms – 5 s — and a cancel or the deadline (`timeouts.maxTotalMs`, default 30 min) sends `tasks/cancel`.
   * `'defer'`: a run hands the task back as a call that waits (`waitingFor: 'task'`). `false`: tasks are never asked for.
   */
  tasks?: boolean | 'wait' | 'defer';
  /** Pings the server every so many milliseconds while the connection is idle; a missed ping ends it (connection_closed). Default: off. */
  pingIntervalMs?: number;
  /**
   * Era verdicts of stored servers (E2): a connection to a stored server starts from the verdict of its revision
   * (no server/discover round trip) and records what it learned when it had none. Default: none (every connection negotiates).
   */
  verdicts?: EraVerdictStore;
  /** How long a legacy verdict is used before the server is asked again (it may have been upgraded). Default one day. */
  legacyVerdictMs?: number;
  /**
   * Renders MCP Apps (extension `io.modelcontextprotocol/ui`): the client declares the extension with the MIME type
   * `text/html;profile=mcp-app`, in both eras, so servers list their tools' interfaces (docs/apps.md). Default false.
   */
  apps?: boolean;
  /**
   * An unknown key (a misspelling) is invalid_input naming it and the closest known key. `false` accepts such keys
   * with a warning instead (forward compatibility: options of a newer version). Default true.
   */
  strict?: boolean;
}

/** Every ConnectSettings key, once: the compiler fails here when a setting is added and not listed (or listed and gone). */
const SETTING_KEYS = {
  timeouts: true,
  auth: true,
  variables: true,
  maxMessageBytes: true,
  elicitation: true,
  elicitationModes: true,
  sampling: true,
  samplingTools: true,
  roots: true,
  tasks: true,
  pingIntervalMs: true,
  verdicts: true,
  legacyVerdictMs: true,
  apps: true,
  strict: true,
} as const satisfies Record<keyof ConnectSettings, true>;

/** The keys ConnectSettings knows (what an unknown-key check compares with). */
export const CONNECT_SETTING_KEYS: readonly (keyof ConnectSettings)[] = Object.freeze(
  Object.keys(SETTING_KEYS) as (keyof ConnectSettings)[],
);

/** The option objects ConnectSettings holds, each with its known keys (`timeouts.callMS` is as unknown as `timeout`). */
export const CONNECT_NESTED_KEYS: Readonly<Record<string, KnownKeys>> = Object.freeze({
  timeouts: { keys: TIMEOUT_KEYS },
  variables: { keys: ['env', 'inputs'] satisfies (keyof VariableSources)[] },
});

/** The keys ConnectSettings knows, and those of its option objects. */
export const CONNECT_SETTINGS_KNOWN: KnownKeys = Object.freeze({ keys: CONNECT_SETTING_KEYS, nested: CONNECT_NESTED_KEYS });

/**
 * The known keys of larger options that hold ConnectSettings fields (a pool's, a prober's, connectMcp's): `own` beside
 * `settings` (every ConnectSettings key but those `without`), and the option objects of both.
 */
export function knownWithSettings(
  own: readonly string[],
  options: { without?: readonly string[]; nested?: Readonly<Record<string, KnownKeys>> } = {},
): KnownKeys {
  const settings = CONNECT_SETTING_KEYS.filter((key) => !(options.without ?? []).includes(key));
  return Object.freeze({
    keys: Object.freeze([...own, ...settings]),
    nested: Object.freeze({ ...CONNECT_NESTED_KEYS, ...options.nested }),
  });
}

/** Checks a message bound: a whole number of bytes, at least MIN_MAX_MESSAGE_BYTES (invalid_input naming the field). */
export function checkMaxMessageBytes(value: number | undefined): void {
  if (value === undefined || (Number.isInteger(value) && value >= MIN_MAX_MESSAGE_BYTES)) return;
  throw new AgtError('invalid_input', `maxMessageBytes must be a whole number of bytes, at least ${MIN_MAX_MESSAGE_BYTES}`, {
    details: { field: 'maxMessageBytes' },
  });
}

/** The authorization for one server: the provider itself, or what the function gives for `server`. */
export function authFor(auth: AuthSetting | undefined, server: ResourceRef): McpAuth | undefined {
  return typeof auth === 'function' ? auth(server) : auth;
}

/** The client handlers of `settings`: the roots setting as a handler (a list is checked: invalid_input names a bad root). */
export function clientHandlersOf(settings: ConnectSettings): ClientHandlers {
  const { elicitation, elicitationModes, sampling, samplingTools, roots } = settings;
  for (const [field, value] of Object.entries({ elicitation, sampling, roots }))
    if (typeof value === 'string' && value !== DEFER)
      throw new AgtError('invalid_input', `${field} must be a handler or 'defer'`, { details: { field } });
  const deferred: InputMethod[] = [
    ...(elicitation === DEFER ? (['elicitation/create'] as const) : []),
    ...(sampling === DEFER ? (['sampling/createMessage'] as const) : []),
    ...(roots === DEFER ? (['roots/list'] as const) : []),
  ];
  return {
    ...defined({
      elicitation: elicitation === DEFER ? undefined : elicitation,
      sampling: sampling === DEFER ? undefined : sampling,
      elicitationModes,
      samplingTools,
    }),
    ...(roots === undefined || roots === DEFER ? {} : { roots: rootsHandler(roots) }),
    ...(deferred.length > 0 ? { deferred } : {}),
  };
}

function rootsHandler(roots: Exclude<NonNullable<ConnectSettings['roots']>, typeof DEFER>): NonNullable<ClientHandlers['roots']> {
  if (typeof roots === 'function') return async (context) => checkedRoots(await roots(context));
  const fixed = checkedRoots(roots);
  return async () => fixed;
}

// Roots are file:// URIs (MCP); each is copied, so a host changing its list later changes nothing sent before.
function checkedRoots(roots: readonly McpRoot[]): McpRoot[] {
  if (!Array.isArray(roots)) throw new AgtError('invalid_input', 'roots must be a list of { uri, name? }', { details: { field: 'roots' } });
  return roots.map((root, i) => {
    if (typeof root?.uri !== 'string' || !root.uri.startsWith('file://'))
      throw new AgtError('invalid_input', `roots[${i}].uri must be a file:// URI`, { details: { field: `roots[${i}].uri` } });
    return { uri: root.uri, ...defined({ name: typeof root.name === 'string' ? root.name : undefined }) };
  });
}
